import type { Request } from 'express';

const ALLOWED_FETCH_SITES = new Set(['same-origin', 'same-site', 'none']);
const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/**
 * Browser provenance check on a management POST, before authorization (a refusal is 403):
 * Sec-Fetch-Site must be same-origin, same-site or none; without it, an Origin header must
 * match the request's scheme, host and effective port; a request with neither header passes
 * (non-browser client).
 */
export function provenanceAllows(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string') return ALLOWED_FETCH_SITES.has(site.trim().toLowerCase());
  const origin = req.headers.origin;
  if (typeof origin !== 'string') return true;
  let o: URL;
  let r: URL;
  try {
    o = new URL(origin);
    r = new URL(`${req.protocol}://${req.headers.host ?? ''}`);
  } catch {
    return false;
  }
  if (o.origin === 'null' || (o.protocol !== 'http:' && o.protocol !== 'https:')) return false;
  const port = (u: URL) => u.port || DEFAULT_PORTS[u.protocol] || '';
  return o.protocol === r.protocol && o.hostname.toLowerCase() === r.hostname.toLowerCase() && port(o) === port(r);
}
