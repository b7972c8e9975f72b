/**
 * Who may call the API: the service access token (Bearer, constant-time compare) and the
 * browser origin rules (the service's own origin, plus CAPTION_ALLOWED_ORIGINS).
 */
// The service access token's rule is shared with the stream sources service.
export { bearerChecker } from '@live-captions/http';

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
