/**
 * Which reverse proxies are believed about the client (X-Forwarded-For / -Proto). One parser for
 * every service: express's own (`proxy-addr`), so `trust proxy` in express and the relay's
 * WebSocket upgrade read a list the same way.
 */
import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';
import { z } from 'zod';

/** Whether the hop `address` (at `index`, 0 = the socket's peer) is a trusted proxy. */
export type TrustedProxies = (address: string, index: number) => boolean;

/**
 * Parses `172.30.240.2, 10.0.0.0/8, fd00::/8, loopback` (addresses, CIDR ranges and express's
 * names loopback, linklocal, uniquelocal; empty = nobody). Throws naming the first bad entry.
 * The result is also a valid express `trust proxy` setting.
 */
export function parseTrustedProxies(value: string): TrustedProxies {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    try {
      proxyaddr.compile(entry);
    } catch {
      throw new Error(
        `${JSON.stringify(entry)} is not an IP address or CIDR range (nor loopback, linklocal, uniquelocal)`,
      );
    }
  }
  return entries.length === 0 ? () => false : proxyaddr.compile(entries);
}

/** An environment variable holding such a list; add `.default(...)` or `.optional()`. */
export const trustedProxiesVar = () =>
  z.string().superRefine((value, ctx) => {
    try {
      parseTrustedProxies(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
    }
  });

/** `::ffff:10.0.0.1` (IPv4 seen through a dual-stack socket) -> `10.0.0.1`. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/**
 * The client's address: the socket's peer, unless that peer is a trusted proxy; then the right-most
 * X-Forwarded-For entry that is not itself a trusted proxy (as express's `req.ip`). A hop that is
 * not an address ends the walk at the last address known: a proxy never writes one, so it came
 * from the client.
 */
export function clientAddress(
  remote: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: TrustedProxies,
): string {
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '');
  const hops = header
    .split(',')
    .map((hop) => hop.trim())
    .filter(Boolean)
    .reverse();
  let address = remote ?? 'unknown';
  for (const [index, hop] of hops.entries()) {
    if (!trusted(address, index) || isIP(hop) === 0) break;
    address = hop;
  }
  return normalizeAddress(address);
}
