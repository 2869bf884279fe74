import { isIP } from 'node:net';

/**
 * An address as compared everywhere: brackets, a port and an IPv6 zone stripped, the
 * IPv4-mapped IPv6 prefix removed (::ffff:1.2.3.4 → 1.2.3.4), lower case. undefined when
 * the text is not an IP address.
 */
export function normalizeAddress(raw: string): string | undefined {
  let a = raw.trim();
  if (a.startsWith('[')) {
    const end = a.indexOf(']');
    if (end < 0) return undefined;
    const rest = a.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return undefined;
    a = a.slice(1, end);
  } else if (/^\d{1,3}(\.\d{1,3}){3}:\d{1,5}$/.test(a)) {
    a = a.slice(0, a.lastIndexOf(':'));
  }
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(a);
  if (mapped) a = mapped[1]!;
  return isIP(a) === 0 ? undefined : a.toLowerCase();
}
