/**
 * Who may call the API: the service access token (Bearer, constant-time compare) and the
 * browser origin rules (the service's own origin, plus CAPTION_ALLOWED_ORIGINS).
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Builds a checker for `Authorization` headers; comparing digests keeps the time independent of the token. */
export function bearerChecker(apiKey: string): (authorization: string | undefined) => boolean {
  const expected = digest(apiKey);
  return (authorization) => {
    const match = /^Bearer (.+)$/.exec(authorization ?? '');
    const given = digest(match?.[1] ?? '');
    // Always compare, even without a token, so a missing header takes as long as a wrong one.
    return timingSafeEqual(given, expected) && match !== null;
  };
}

/** CAPTION_API_KEY: at least 24 printable ASCII characters, no whitespace. Returns the problem or undefined. */
export function apiKeyProblem(key: string): string | undefined {
  if (!/^[\x21-\x7e]*$/.test(key)) return 'must be printable ASCII without whitespace';
  if (key.length < 24) return 'must be at least 24 characters';
  return undefined;
}

/** Hosts where plain http:// (or ws://) is acceptable: traffic never leaves the machine. */
export const LOCAL_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * One CAPTION_ALLOWED_ORIGINS entry: an exact origin, `https://` (http only for localhost), no
 * `*`, path, query, fragment or userinfo. Returns the normalized origin or throws with the reason.
 */
export function parseAllowedOrigin(entry: string): string {
  if (entry.includes('*')) throw new Error(`"${entry}" must be an exact origin, not a wildcard`);
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    throw new Error(`"${entry}" is not an origin like https://captions.example.org`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname))) {
    throw new Error(`"${entry}" must use https:// (http:// only for localhost)`);
  }
  if (url.username || url.password) throw new Error(`"${entry}" must not carry userinfo`);
  const bare = entry.replace(/\/$/, '');
  if (url.search || url.hash || url.pathname !== '/' || bare !== url.origin) {
    throw new Error(
      `"${entry}" must be a bare origin (scheme://host[:port]) without path, query or fragment`,
    );
  }
  return url.origin;
}

/**
 * The browser-origin rule: no Origin header (a non-browser client), the service's own origin
 * (`scheme://Host` of the request) or one of the configured origins.
 */
export function originAllowed(
  origin: string | undefined,
  ownOrigin: string,
  allowed: ReadonlySet<string>,
): boolean {
  if (origin === undefined) return true;
  return origin === ownOrigin || allowed.has(origin);
}
