/**
 * Which addresses a pull source may reach: public ones, and private or loopback ones only when the
 * operator lists them (SOURCES_ALLOWED_HOSTS: host names, addresses or CIDR ranges), so that a
 * source URL cannot make the service read the host's own or its network's services.
 */
import { BlockList, isIP } from 'node:net';

import { embeddedV4, isPrivateAddress } from '@live-captions/http';

export { embeddedV4, isPrivateAddress };

/** SOURCES_ALLOWED_HOSTS: host names (exact, case-insensitive), addresses and CIDR ranges. */
export class AllowList {
  private readonly names = new Set<string>();
  private readonly addresses = new BlockList();

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
      const address = cidr?.[1] ?? entry;
      const family = isIP(address.replace(/^\[|\]$/g, ''));
      if (family !== 0) {
        const type = family === 4 ? 'ipv4' : 'ipv6';
        const plain = address.replace(/^\[|\]$/g, '');
        if (cidr) {
          const prefix = Number(cidr[2]);
          if (prefix > (family === 4 ? 32 : 128)) throw new Error(`${entry}: prefix too long`);
          this.addresses.addSubnet(plain, prefix, type);
        } else this.addresses.addAddress(plain, type);
      } else if (!cidr && /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/i.test(entry)) {
        this.names.add(entry.toLowerCase());
      } else throw new Error(`${entry}: not a host name, an address or a CIDR range`);
    }
  }

  /** Parses the variable's comma-separated list; throws naming the first wrong entry. */
  static parse(text: string): AllowList {
    return new AllowList(
      text
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    );
  }

  /** Whether `host` (as written in the URL) resolving to `address` may be reached. */
  allows(host: string, address: string): boolean {
    if (!isPrivateAddress(address)) return true;
    if (this.names.has(host.toLowerCase().replace(/^\[|\]$/g, ''))) return true;
    const plain = embeddedV4(address);
    const family = isIP(plain);
    return family !== 0 && this.addresses.check(plain, family === 4 ? 'ipv4' : 'ipv6');
  }
}
