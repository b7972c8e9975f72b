/**
 * Which URLs a room's writer may make this server call (SSRF): the platforms' own caption hosts
 * over https, or hosts the operator listed. Also how a secret URL is shown: masked, never whole.
 */
export type { DestinationKind } from '@live-captions/protocol';

/** The platforms' caption ingestion hosts and paths (YouTube's ingestion URL; Zoom's API token). */
const PLATFORM: Record<'youtube' | 'zoom', { host: string; path: string; http: boolean }> = {
  // YouTube Studio shows `http://upload.youtube.com/closedcaption?...`: accepted, sent over https.
  youtube: { host: 'upload.youtube.com', path: '/closedcaption', http: true },
  zoom: { host: 'wmcapi.zoom.us', path: '/closedcaption', http: false },
};

/** Why a URL is refused (422 `destination_not_allowed`); the message never quotes the URL. */
export class DestinationNotAllowed extends Error {
  override name = 'DestinationNotAllowed';
}

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

/** OUTPUTS_ALLOWED_HOSTS: comma-separated `host:port` entries, lower-cased. */
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

/**
 * The URL the service will call for a destination of `kind`, or DestinationNotAllowed. `http://`
 * is upgraded to https for YouTube's host; a listed `host:port` keeps its scheme (http or https).
 */
export function destinationUrl(
  kind: 'youtube' | 'zoom',
  value: string,
  allowedHosts: ReadonlySet<string>,
): string {
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DestinationNotAllowed('url: must be an absolute https URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new DestinationNotAllowed('url: must be an https URL');
  if (url.username || url.password) throw new DestinationNotAllowed('url: must not carry userinfo');
  if (url.hash) throw new DestinationNotAllowed('url: must not carry a fragment');
  const listed = `${url.hostname}:${url.port || defaultPort(url.protocol)}`.toLowerCase();
  if (allowedHosts.has(listed)) return text;
  const platform = PLATFORM[kind];
  if (url.hostname.toLowerCase() !== platform.host || url.port !== '')
    throw new DestinationNotAllowed(`url: must be on ${platform.host}`);
  if (url.protocol === 'http:' && !platform.http) throw new DestinationNotAllowed('url: must use https');
  if (url.pathname !== platform.path)
    throw new DestinationNotAllowed(`url: must be https://${platform.host}${platform.path}?...`);
  if (!url.search) throw new DestinationNotAllowed('url: lacks its parameters (copy the whole URL)');
  // The query is kept as typed (its signature covers that text); only the scheme changes.
  return text.replace(/^http:/i, 'https:');
}

/**
 * What the API shows of a secret URL: scheme, host, path and the last 4 characters of its `id`
 * parameter (enough to tell two streams apart), never the signature, key or token.
 */
export function maskUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(invalid)';
  }
  const id = parsed.searchParams.get('id') ?? parsed.searchParams.get('cid');
  const tail = id ? `?id=…${id.slice(-4)}` : '';
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}${tail}`;
}
