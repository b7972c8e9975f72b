/**
 * Which IP addresses are not the public Internet: loopback, private, link-local, carrier-grade
 * NAT, documentation, benchmark, multicast and reserved ranges, also inside an IPv4-mapped, NAT64
 * or 6to4 IPv6 address. What the services that fetch an address an operator or a feed gave them
 * (stream sources, the calendar's schedule import) refuse unless the operator listed it: nothing
 * public lives there, everything an SSRF probe aims at does. One rule for all of them.
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
  ['100::', 64],
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
