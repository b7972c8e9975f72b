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
