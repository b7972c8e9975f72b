import { type LookupAddress, lookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isPrivateAddress, outboundAddress } from '@live-captions/http';

/**
 * Fetches a schedule feed for an import. The address rule is the outputs service's
 * (`outboundAddress` of @live-captions/http: absolute http(s), no userinfo or fragment; a
 * `host:port` the operator listed may be anything, plain http and private addresses included);
 * any other host must use https and resolve to public addresses only, checked on the address
 * actually connected to (no DNS rebinding between the check and the connection). Redirects are
 * followed (at most 3), each under the same rule. Size and time are capped.
 */
export interface FeedFetchRule {
  allowedHosts: ReadonlySet<string>;
  maxBytes: number;
  timeoutMs: number;
}

/** Why a feed could not be fetched, with the HTTP status the import answers. */
export class FeedFetchError extends Error {
  override name = 'FeedFetchError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Whether `address` (an IP) is one a feed from an unlisted host may come from. */
export function isPublicAddress(address: string): boolean {
  return !isPrivateAddress(address);
}

/** dns.lookup that refuses non-public answers: the socket connects only to a checked address. */
const publicLookup: typeof lookup = ((
  hostname: string,
  options: object,
  callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
) => {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as LookupAddress[];
    if (list.length === 0 || !list.every((a) => isPublicAddress(a.address))) {
      return callback(
        new FeedFetchError(400, 'rest_import_url_not_allowed', 'url: its host is not public'),
        '',
        0,
      );
    }
    if ((options as { all?: boolean }).all) return callback(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
}) as typeof lookup;

/** The URL to call for `value`, and whether the operator listed its host. */
export function checkFeedUrl(
  value: string,
  allowedHosts: ReadonlySet<string>,
): { url: URL; listed: boolean } {
  const address = outboundAddress(value, allowedHosts);
  if ('problem' in address)
    throw new FeedFetchError(400, 'rest_import_url_not_allowed', `url: ${address.problem}`);
  if (address.listed) return address;
  if (address.url.protocol !== 'https:') {
    throw new FeedFetchError(400, 'rest_import_url_not_allowed', 'url: must use https (or be a listed host)');
  }
  const host = address.url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !isPublicAddress(host)) {
    throw new FeedFetchError(400, 'rest_import_url_not_allowed', 'url: its host is not public');
  }
  return address;
}

/** The feed's body as text; never more than `maxBytes`, never longer than `timeoutMs` in all. */
export async function fetchFeed(value: string, rule: FeedFetchRule): Promise<string> {
  const signal = AbortSignal.timeout(rule.timeoutMs);
  let target = value;
  for (let hop = 0; hop <= 3; hop++) {
    const { url, listed } = checkFeedUrl(target, rule.allowedHosts);
    const answer = await get(url, listed, rule.maxBytes, signal);
    if ('redirect' in answer) {
      target = new URL(answer.redirect, url).toString();
      continue;
    }
    return answer.body;
  }
  throw new FeedFetchError(502, 'rest_import_fetch_failed', 'url: too many redirects');
}

function get(
  url: URL,
  listed: boolean,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ body: string } | { redirect: string }> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const fail = (error: unknown) =>
      reject(
        error instanceof FeedFetchError
          ? error
          : signal.aborted
            ? new FeedFetchError(504, 'rest_import_fetch_timeout', 'url: the feed did not arrive in time')
            : new FeedFetchError(502, 'rest_import_fetch_failed', `url: ${(error as Error).message}`),
      );
    const request = client.get(
      url,
      {
        signal,
        lookup: listed ? undefined : publicLookup,
        headers: { 'user-agent': 'live-captions-calendar' },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location) {
          response.resume();
          return resolve({ redirect: response.headers.location });
        }
        if (status < 200 || status > 299) {
          response.resume();
          return fail(
            new FeedFetchError(502, 'rest_import_fetch_failed', `url: the feed answered HTTP ${status}`),
          );
        }
        const tooLarge = () =>
          new FeedFetchError(413, 'rest_import_too_large', `url: the feed is larger than ${maxBytes} bytes`);
        if (Number(response.headers['content-length'] ?? 0) > maxBytes) {
          response.destroy();
          return fail(tooLarge());
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            response.destroy();
            fail(tooLarge());
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve({ body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', fail);
      },
    );
    request.on('error', fail);
  });
}
