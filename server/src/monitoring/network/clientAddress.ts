import type { IncomingMessage } from 'node:http';
import { AddressRanges } from './AddressRanges.js';
import { normalizeAddress } from './normalizeAddress.js';

export { normalizeAddress } from './normalizeAddress.js';

/** Where a request comes from, or why that cannot be told. */
export type ClientAddress = { ok: true; address: string } | { ok: false; detail: string };

/** Loopback, trusted by default (a reverse proxy on the same host), as ASP.NET's forwarded-headers middleware does. */
export const DEFAULT_TRUSTED_PROXIES: readonly string[] = ['127.0.0.0/8', '::1'];

/**
 * Tells the client address of a request. The socket's peer is the client unless it is a
 * trusted proxy; then X-Forwarded-For is read from the right: each trusted proxy is skipped
 * and the first address that is not one is the client (so an address the client wrote itself,
 * on the left, never wins). When every listed address is a trusted proxy, the left-most is the
 * client. A request from a trusted proxy without the header is the proxy's own (a local client).
 * A header that is present but empty or holds something other than an address where it is read
 * makes the client unknown: the request is refused, never credited to the proxy.
 */
export class ClientAddressResolver {
  private readonly proxies: AddressRanges;
  private readonly cache = new WeakMap<IncomingMessage, ClientAddress>();

  /** `trustedProxies` null or empty: no proxy is trusted, the socket's peer is the client. */
  constructor(trustedProxies: readonly string[] | null) {
    this.proxies = new AddressRanges(trustedProxies ?? []);
  }

  resolve(req: IncomingMessage): ClientAddress {
    let known = this.cache.get(req);
    if (known === undefined) {
      known = this.compute(req);
      this.cache.set(req, known);
    }
    return known;
  }

  /** The address, or undefined when it cannot be told. */
  addressOf(req: IncomingMessage): string | undefined {
    const r = this.resolve(req);
    return r.ok ? r.address : undefined;
  }

  private compute(req: IncomingMessage): ClientAddress {
    const remote = req.socket?.remoteAddress;
    const peer = remote === undefined ? undefined : normalizeAddress(remote);
    if (peer === undefined) return { ok: false, detail: 'The client address cannot be read from the connection.' };
    if (this.proxies.size === 0 || !this.proxies.contains(peer)) return { ok: true, address: peer };
    const header = req.headers['x-forwarded-for'];
    if (header === undefined) return { ok: true, address: peer };
    const entries = (Array.isArray(header) ? header.join(',') : header).split(',');
    let client: string | undefined;
    for (let i = entries.length - 1; i >= 0; i--) {
      const address = normalizeAddress(entries[i]!);
      if (address === undefined) {
        return { ok: false, detail: 'X-Forwarded-For from a trusted proxy must be a comma-separated list of IP addresses.' };
      }
      client = address;
      if (!this.proxies.contains(address)) break;
    }
    if (client === undefined) return { ok: false, detail: 'X-Forwarded-For from a trusted proxy is empty.' };
    return { ok: true, address: client };
  }
}
