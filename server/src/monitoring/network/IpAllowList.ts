import { BlockList, isIP } from 'node:net';
import { normalizeAddress } from './clientAddress.js';

/**
 * §5.9 allow-list on node's net.BlockList (used as an allow set): IPv4, IPv6, CIDR ranges;
 * IPv4-mapped IPv6 addresses are compared as IPv4. Empty = everyone allowed.
 */
export class IpAllowList {
  private readonly list = new BlockList();
  readonly isOpen: boolean;

  constructor(entries: readonly string[]) {
    this.isOpen = entries.length === 0;
    for (const entry of entries) {
      const [rawAddr, prefix] = entry.split('/');
      const addr = normalizeAddress(rawAddr!) ?? rawAddr!;
      const family = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) this.list.addAddress(addr, family);
      else {
        let bits = Number(prefix);
        // ::ffff:a.b.c.d/n (n ≥ 96) is the IPv4 range a.b.c.d/(n-96).
        if (family === 'ipv4' && isIP(rawAddr!) === 6) bits = Math.max(0, bits - 96);
        this.list.addSubnet(addr, bits, family);
      }
    }
  }

  allows(address: string | undefined): boolean {
    if (this.isOpen) return true;
    if (address === undefined) return false;
    const a = normalizeAddress(address);
    if (a === undefined) return false;
    return this.list.check(a, isIP(a) === 6 ? 'ipv6' : 'ipv4');
  }
}
