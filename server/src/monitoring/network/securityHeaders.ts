import type { RequestHandler } from 'express';
import { DASHBOARD_CSP } from '../ui/contentSecurityPolicy.js';

/**
 * Defensive headers on every response under the base path: the page policy (a route can
 * replace it), no MIME sniffing, no Referer leaving the page, no framing by older browsers.
 */
export function securityHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    next();
  };
}

/** API answers hold task data and tokens: never stored by a browser or a shared cache. */
export function noStore(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
}
