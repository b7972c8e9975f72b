/**
 * Where a source's audio comes from, and what is refused before ffmpeg ever sees it. Pull
 * sources: `rtmp://`, `rtmps://`, `srt://`, `rtsp://`, and `http(s)://` (an HLS playlist when the
 * path ends in `.m3u8`, otherwise a plain audio stream such as Icecast). Push sources: an RTMP or an
 * SRT listener with a secret key per source. Every other scheme (`file:`, `concat:`, `subfile:`,
 * `data:`, `pipe:`, ...) is refused here, and ffmpeg's own allow-lists refuse them again.
 */

export const PULL_SCHEMES = ['rtmp', 'rtmps', 'srt', 'rtsp', 'http', 'https'] as const;
export type PullScheme = (typeof PULL_SCHEMES)[number];
export type InputKind = 'pull' | 'rtmp-push' | 'srt-push';

export class SourceRefused extends Error {
  override name = 'SourceRefused';
}

export interface PullInput {
  kind: 'pull';
  scheme: PullScheme;
  /** Parsed; its credentials and keys are secrets. */
  url: URL;
  /** HTTP(S) `.m3u8`: an HLS playlist. */
  hls: boolean;
}

const DEFAULT_PORTS: Record<PullScheme, number> = {
  rtmp: 1935,
  rtmps: 443,
  srt: 0,
  rtsp: 554,
  http: 80,
  https: 443,
};

/** The URL's host without IPv6 brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

export function portOf(url: URL, scheme: PullScheme): number {
  return url.port ? Number(url.port) : DEFAULT_PORTS[scheme];
}

/** Checks a pull URL's form (the host's address is checked when the source starts). */
export function parsePullUrl(text: string): PullInput {
  if (text.length > 2048) throw new SourceRefused('url: at most 2048 characters');
  // ffmpeg reads options after white space in some URLs (librtmp's style): none at all.
  if (/\s/.test(text) || [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    throw new SourceRefused('url: no spaces or control characters');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (!scheme || !(PULL_SCHEMES as readonly string[]).includes(scheme))
    throw new SourceRefused(
      `url: ${scheme ? `the scheme ${scheme}: is` : 'a URL without a scheme is'} not allowed; use rtmp, rtmps, srt, rtsp, http or https`,
    );
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SourceRefused('url: not a valid URL');
  }
  if (!hostOf(url)) throw new SourceRefused('url: needs a host');
  if (scheme === 'srt' && !url.port) throw new SourceRefused('url: srt:// needs a port');
  const hls = (scheme === 'http' || scheme === 'https') && /\.m3u8$/i.test(url.pathname);
  return { kind: 'pull', scheme: scheme as PullScheme, url, hls };
}

const mask = (secret: string) => (secret.length <= 4 ? '****' : `${secret.slice(0, 2)}…${secret.slice(-2)}`);

/** A secret shown without giving it away: its first and last two characters. */
export const maskSecret = mask;

/**
 * A pull URL as the API shows it: credentials, query values and an RTMP stream key (the last path
 * segment) masked, since each may be the secret that lets someone publish or read the stream.
 */
export function maskUrl(input: PullInput): string {
  const url = new URL(input.url.href);
  if (url.username) url.username = mask(decodeURIComponent(url.username));
  if (url.password) url.password = '****';
  for (const [key, value] of [...url.searchParams]) url.searchParams.set(key, mask(value));
  if (input.scheme === 'rtmp' || input.scheme === 'rtmps') {
    const parts = url.pathname.split('/');
    const last = parts.length - 1;
    if (last >= 2 && parts[last]) parts[last] = mask(decodeURIComponent(parts[last]));
    url.pathname = parts.join('/');
  }
  return decodeURI(url.href);
}

/** A new stream key: 24 random bytes, base64url (32 characters). */
export function newStreamKey(random: (bytes: number) => Uint8Array): string {
  return Buffer.from(random(24)).toString('base64url');
}

/** What an operator may give as a stream key (also an SRT passphrase: 10-79 characters). */
export const STREAM_KEY = /^[A-Za-z0-9_-]{16,64}$/;
