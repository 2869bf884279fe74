import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** Strips brackets, a port and the IPv4-mapped IPv6 prefix (::ffff:1.2.3.4 → 1.2.3.4). */
export function normalizeAddress(raw: string): string | undefined {
  let a = raw.trim();
  if (a.startsWith('[')) {
    const end = a.indexOf(']');
    if (end < 0) return undefined;
    a = a.slice(1, end);
  } else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(a)) {
    a = a.slice(0, a.lastIndexOf(':'));
  }
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(a);
  if (mapped) a = mapped[1]!;
  return isIP(a) === 0 ? undefined : a.toLowerCase();
}

/**
 * The client address of a request: with `trustForwardedFor`, the first X-Forwarded-For
 * address (§5.9), else the socket's. undefined when the address cannot be read.
 */
export function clientAddress(req: IncomingMessage, trustForwardedFor: boolean): string | undefined {
  if (trustForwardedFor) {
    const xff = req.headers['x-forwarded-for'];
    const first = (Array.isArray(xff) ? xff[0] : xff)?.split(',')[0];
    if (first !== undefined && first.trim() !== '') return normalizeAddress(first);
  }
  const remote = req.socket?.remoteAddress;
  return remote === undefined ? undefined : normalizeAddress(remote);
}
