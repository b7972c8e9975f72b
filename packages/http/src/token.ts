/**
 * Finding which secret (API key, Bearer token) a request presents without leaking it through
 * timing: tokens are compared as SHA-256 digests with timingSafeEqual, so neither a common prefix
 * nor a length difference shows, and every known token is compared, so neither does which one
 * matched.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Whether a presented token equals the expected one, in a time independent of both. */
export function tokensEqual(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

/** Builds a lookup over `known` (token -> what it grants); the digests are computed once. */
export function tokenLookup<T>(
  known: Iterable<readonly [string, T]>,
): (given: string | undefined) => T | undefined {
  const entries = [...known].map(([token, value]) => ({ digest: digest(token), value }));
  return (given) => {
    // A missing token is compared too, so that it takes as long as a wrong one.
    const presented = digest(given ?? '');
    let found: T | undefined;
    for (const entry of entries) {
      if (timingSafeEqual(presented, entry.digest) && given !== undefined && found === undefined) {
        found = entry.value;
      }
    }
    return found;
  };
}

/** A checker of `Authorization` headers against the one service access token (`CAPTION_API_KEY`). */
export function bearerChecker(apiKey: string): (authorization: string | undefined) => boolean {
  const lookup = tokenLookup([[apiKey, true]]);
  return (authorization) => lookup(/^Bearer (.+)$/.exec(authorization ?? '')?.[1]) === true;
}

/** `CAPTION_API_KEY`: at least 24 printable ASCII characters, no whitespace. The problem, or undefined. */
export function apiKeyProblem(key: string): string | undefined {
  if (!/^[\x21-\x7e]*$/.test(key)) return 'must be printable ASCII without whitespace';
  if (key.length < 24) return 'must be at least 24 characters';
  return undefined;
}

/**
 * `CAPTION_API_KEY` of a service's environment (unset or empty: undefined), checked apart from its
 * schema with {@link apiKeyProblem}'s reasons: a wrong one adds an issue to `issues`, never the key.
 */
export function readApiKey(env: NodeJS.ProcessEnv, issues: string[]): string | undefined {
  const apiKey = env.CAPTION_API_KEY || undefined;
  if (apiKey === undefined) return undefined;
  const problem = apiKeyProblem(apiKey);
  if (problem) issues.push(`CAPTION_API_KEY: ${problem}`);
  return apiKey;
}
