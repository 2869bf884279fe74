import { BlockList, isIP } from 'node:net';
import { normalizeAddress } from './normalizeAddress.js';

/**
 * A set of IPv4/IPv6 addresses and CIDR ranges on node's net.BlockList. IPv4-mapped IPv6
 * addresses are compared as IPv4 (`::ffff:10.0.0.0/104` is `10.0.0.0/8`).
 */
export class AddressRanges {
  private readonly list = new BlockList();
  readonly size: number;

  constructor(entries: readonly string[]) {
    this.size = entries.length;
    for (const entry of entries) {
      const [rawAddr, prefix] = entry.split('/');
      const addr = normalizeAddress(rawAddr!) ?? rawAddr!;
      const family = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) this.list.addAddress(addr, family);
      else {
        let bits = Number(prefix);
        if (family === 'ipv4' && isIP(rawAddr!) === 6) bits = Math.max(0, bits - 96);
        this.list.addSubnet(addr, bits, family);
      }
    }
  }

  /** False for anything that is not an IP address. */
  contains(address: string | undefined): boolean {
    if (address === undefined) return false;
    const a = normalizeAddress(address);
    if (a === undefined) return false;
    return this.list.check(a, isIP(a) === 6 ? 'ipv6' : 'ipv4');
  }
}

/** The first entry that is not an IPv4/IPv6 address or CIDR range, if any. */
export function invalidAddressRange(entries: readonly string[]): string | undefined {
  return entries.find((entry) => {
    const [addr, prefix, extra] = entry.split('/');
    const family = isIP(addr ?? '');
    const bits = family === 6 ? 128 : 32;
    const badPrefix = prefix !== undefined && (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits);
    return family === 0 || badPrefix || extra !== undefined;
  });
}
