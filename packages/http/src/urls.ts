/**
 * Address rules of the stack, shared by the services' configuration and the browser pages (this
 * module imports nothing, so esbuild can bundle it into a page).
 */

/** Hosts where plain http:// (or ws://) is acceptable: traffic never leaves the machine. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

function originProblem(value: string, url: URL | undefined): string | undefined {
  if (value.includes('*')) return 'must not contain a wildcard';
  if (url === undefined) return 'must be an origin like https://captions.example.org';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use https (or http for loopback)';
  if (url.username || url.password) return 'must not contain userinfo';
  // One trailing slash is what a browser's address bar shows: accepted. Anything after the host
  // is a path, query or fragment, which a browser never sends in an Origin header.
  const afterScheme = value.slice(value.indexOf('//') + 2).replace(/\/$/, '');
  if (/[/?#]/.test(afterScheme) || url.pathname !== '/' || url.search || url.hash) {
    return 'must be a bare origin scheme://host[:port] (no path, query or fragment)';
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname))
    return 'http is allowed for loopback hosts only';
  return undefined;
}

/**
 * One allowed browser origin: https://host[:port] (http only for loopback), with or without a
 * trailing slash, in any letter case. Returns it as browsers send it in `Origin`
 * (`https://Captions.Example.org/` -> `https://captions.example.org`); throws an Error whose
 * message quotes the value and says what is wrong.
 */
export function parseOrigin(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  const problem = originProblem(value, url);
  if (problem !== undefined || url === undefined) throw new Error(`${JSON.stringify(value)} ${problem}`);
  return url.origin;
}

/**
 * A relay WebSocket address: ws:// or wss:// with a host and without userinfo, query or fragment
 * (the room and tokens travel in the join frame, never in the URL). `secure`: wss:// unless the
 * host is loopback, for addresses handed to browsers on other machines. Returns the problem, or
 * undefined when the address is usable.
 */
export function relayUrlProblem(value: string, options: { secure?: boolean } = {}): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a ws:// or wss:// URL (e.g. wss://relay.example.org)';
  }
  if ((url.protocol !== 'ws:' && url.protocol !== 'wss:') || url.host === '') {
    return 'must be a ws:// or wss:// URL (e.g. wss://relay.example.org)';
  }
  if (url.username || url.password || url.search || url.hash)
    return 'must not carry userinfo, query or fragment';
  if (options.secure && url.protocol !== 'wss:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    return 'must use wss:// (ws:// only for localhost)';
  }
  return undefined;
}

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

/**
 * An operator's list of extra hosts this server may call (OUTPUTS_ALLOWED_HOSTS): comma-separated
 * `host:port` entries, returned lower-cased; throws an Error quoting the first bad entry.
 */
export function parseHostList(value: string): string[] {
  const hosts: string[] = [];
  for (const entry of value.split(',').map((item) => item.trim())) {
    if (entry === '') continue;
    const match = HOST_PORT.exec(entry);
    if (!match || Number(match[2]) < 1 || Number(match[2]) > 65535)
      throw new Error(`${JSON.stringify(entry)} must be host:port (e.g. 127.0.0.1:9000)`);
    hosts.push(entry.toLowerCase());
  }
  return hosts;
}

const defaultPort = (protocol: string) => (protocol === 'https:' ? '443' : '80');

/** An address a room's writer asked this server to call, parsed; `listed`: its host:port is allowed by the operator. */
export type OutboundAddress = { url: URL; listed: boolean } | { problem: string };

/**
 * The one rule for addresses a room's writer makes this server call (SSRF): an absolute http(s)
 * URL without userinfo or fragment. `listed` says whether its `host:port` (default port filled
 * in) is among the operator's `allowedHosts`, where plain http is acceptable; otherwise the caller
 * applies its platforms' own rule (their hosts, https, default port). The problem never quotes
 * the value: it may hold a secret.
 */
export function outboundAddress(value: string, allowedHosts: ReadonlySet<string>): OutboundAddress {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return { problem: 'must be an absolute https URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { problem: 'must be an https URL' };
  if (url.username || url.password) return { problem: 'must not carry userinfo' };
  if (url.hash || value.trim().endsWith('#')) return { problem: 'must not carry a fragment' };
  const hostPort = `${url.hostname}:${url.port || defaultPort(url.protocol)}`.toLowerCase();
  return { url, listed: allowedHosts.has(hostPort) };
}
