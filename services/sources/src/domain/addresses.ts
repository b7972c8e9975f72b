/**
 * Which addresses a pull source may reach: public ones, and private or loopback ones only when the
 * operator lists them (SOURCES_ALLOWED_HOSTS: host names, addresses or CIDR ranges), so that a
 * source URL cannot make the service read the host's own or its network's services.
 */
import { BlockList, isIP } from 'node:net';

const PRIVATE_V4 = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const;
const PRIVATE_V6 = [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
] as const;

const privateList = new BlockList();
for (const [net, prefix] of PRIVATE_V4) privateList.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of PRIVATE_V6) privateList.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped, NAT64 or 6to4 IPv6 address, else the address itself. */
export function embeddedV4(address: string): string {
  const lower = address.toLowerCase();
  const mapped = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped?.[1]) return mapped[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] && hex[2]) {
    const high = Number.parseInt(hex[1], 16);
    const low = Number.parseInt(hex[2], 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4}):/.exec(lower);
  if (sixToFour?.[1] && sixToFour[2]) {
    const high = Number.parseInt(sixToFour[1], 16);
    const low = Number.parseInt(sixToFour[2], 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return address;
}

/** Whether an IP address is loopback, private, link-local, reserved or multicast. */
export function isPrivateAddress(address: string): boolean {
  const plain = embeddedV4(address);
  const family = isIP(plain);
  if (family === 0) return true;
  return privateList.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}

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
