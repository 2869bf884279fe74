import { AddressRanges } from './AddressRanges.js';

/** The allow-list of client addresses (IPv4, IPv6, CIDR ranges). Empty = everyone allowed. */
export class IpAllowList {
  private readonly ranges: AddressRanges;
  readonly isOpen: boolean;

  constructor(entries: readonly string[]) {
    this.ranges = new AddressRanges(entries);
    this.isOpen = entries.length === 0;
  }

  allows(address: string | undefined): boolean {
    return this.isOpen || this.ranges.contains(address);
  }
}
