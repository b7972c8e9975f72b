import { BlockList, isIP } from 'node:net';

/** Reverse proxies whose X-Forwarded-For header is believed. */
export interface TrustedProxies {
  readonly list: BlockList;
  readonly empty: boolean;
}

function family(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 6 ? 'ipv6' : 'ipv4';
}

/** `::ffff:10.0.0.1` (IPv4 seen through a dual-stack socket) -> `10.0.0.1`. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** Parses `10.0.0.1, 172.16.0.0/12, ::1`; throws naming the bad entry. */
export function parseTrustedProxies(value: string): TrustedProxies {
  const list = new BlockList();
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const kind = isIP(address);
    const bits = prefix === undefined ? undefined : Number(prefix);
    const max = kind === 6 ? 128 : 32;
    if (
      kind === 0 ||
      extra !== undefined ||
      (bits !== undefined && !(Number.isInteger(bits) && bits >= 0 && bits <= max))
    ) {
      throw new Error(`"${entry}" is not an IP address or CIDR range`);
    }
    if (bits === undefined) list.addAddress(address, family(address));
    else list.addSubnet(address, bits, family(address));
  }
  return { list, empty: entries.length === 0 };
}

function trusted(proxies: TrustedProxies, address: string): boolean {
  return !proxies.empty && isIP(address) !== 0 && proxies.list.check(address, family(address));
}

/**
 * The client's address: the socket's peer, unless that peer is a trusted proxy; then the right-most
 * X-Forwarded-For entry that is not itself a trusted proxy. Headers from anyone else are ignored.
 */
export function clientAddress(
  remote: string | undefined,
  forwardedFor: string | string[] | undefined,
  proxies: TrustedProxies,
): string {
  let address = normalizeAddress(remote ?? 'unknown');
  if (!trusted(proxies, address) || forwardedFor === undefined) return address;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((hop) => normalizeAddress(hop.trim()))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (isIP(hop) === 0) return address;
    address = hop;
    if (!trusted(proxies, hop)) return hop;
  }
  return address;
}

/** The eight 16-bit groups of an IPv6 address (zone dropped, embedded IPv4 converted). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%', 1)[0]!.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part ? part.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The key connection caps count a client under: its address, or for IPv6 its /64, since one
 * IPv6 host commonly holds a whole /64 and could otherwise open sockets from endless addresses.
 */
export function addressKey(address: string): string {
  if (isIP(address.split('%', 1)[0]!) !== 6) return address;
  const groups = ipv6Groups(address).slice(0, 4);
  return `${groups.map((group) => group.toString(16)).join(':')}::/64`;
}
