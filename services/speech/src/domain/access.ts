/**
 * Who may call the API: the service access token (Bearer, constant-time compare) and the
 * browser origin rules (the service's own origin, plus CAPTION_ALLOWED_ORIGINS).
 */
import { tokenLookup } from '@live-captions/http';

/** Builds a checker for `Authorization` headers against the one service access token. */
export function bearerChecker(apiKey: string): (authorization: string | undefined) => boolean {
  const lookup = tokenLookup([[apiKey, true]]);
  return (authorization) => lookup(/^Bearer (.+)$/.exec(authorization ?? '')?.[1]) === true;
}

/** CAPTION_API_KEY: at least 24 printable ASCII characters, no whitespace. Returns the problem or undefined. */
export function apiKeyProblem(key: string): string | undefined {
  if (!/^[\x21-\x7e]*$/.test(key)) return 'must be printable ASCII without whitespace';
  if (key.length < 24) return 'must be at least 24 characters';
  return undefined;
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
