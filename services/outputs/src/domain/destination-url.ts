/**
 * Which URLs a room's writer may make this server call (SSRF): the platforms' own caption hosts
 * over https, or hosts the operator listed. Also how a secret URL is shown: masked, never whole.
 */
import { outboundAddress } from '@live-captions/http';

// The operator's host list is the shared outbound address rule's (also the translation engines').
export { parseHostList } from '@live-captions/http';
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
  const address = outboundAddress(text, allowedHosts);
  if ('problem' in address) throw new DestinationNotAllowed(`url: ${address.problem}`);
  if (address.listed) return text;
  const url = address.url;
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
 * What makes two destination URLs the same stream, for the room's one-destination-per-target
 * rule (409): the URL as the service calls it (`destinationUrl`), with the parts URLs may spell
 * differently made alike: scheme and host in lower case, the default port dropped, the query's
 * parameters decoded and sorted (`sparams=id,ns` and `sparams=id%2Cns`, `?a=1&b=2` and
 * `?b=2&a=1`). The URL that is called stays as typed (its signature covers that text).
 */
export function targetKey(url: string): string {
  const parsed = new URL(url);
  const params = [...parsed.searchParams].sort(([a, x], [b, y]) =>
    a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1,
  );
  // URL already lower-cases the scheme and host and drops the default port.
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}?${new URLSearchParams(params)}`;
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
