import { isIP } from 'node:net';

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
