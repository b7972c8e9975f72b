/**
 * Page parameters: settings may come from the query or the fragment, tokens only from the
 * fragment (never sent to a server, never logged by a proxy). Once read, tokens are removed from
 * the address bar so that they do not end up in screenshots, history or copied addresses.
 */
import { relayUrlProblem } from '@live-captions/http/urls';

/** Fragment keys that carry a secret. */
export const TOKEN_KEYS: readonly string[] = [
  'relayReadToken',
  'relayWriteToken',
  'sourceReadToken',
  'outputWriteToken',
  'outputReadToken',
  'token',
  // The local OBS WebSocket password (overlay's `obs` option).
  'obspw',
];

export interface PageParams {
  get(name: string): string | undefined;
  /** The address without the token keys (for history.replaceState). */
  cleanUrl: string;
  /** Whether the address carried any token. */
  hadTokens: boolean;
}

export function readParams(href: string): PageParams {
  const url = new URL(href);
  const fragment = new URLSearchParams(url.hash.replace(/^#/, ''));
  const query = url.searchParams;
  let hadTokens = false;
  for (const key of TOKEN_KEYS) {
    if (fragment.has(key)) hadTokens = true;
    fragment.delete(key);
  }
  const original = new URLSearchParams(new URL(href).hash.replace(/^#/, ''));
  const rest = fragment.toString();
  url.hash = rest ? `#${rest}` : '';
  return {
    get(name) {
      const value = original.get(name) ?? (TOKEN_KEYS.includes(name) ? null : query.get(name));
      return value === null || value === '' ? undefined : value;
    },
    cleanUrl: url.toString(),
    hadTokens,
  };
}

/** `key=value&...` for a fragment, skipping empty values. */
export function fragment(params: Record<string, string | number | boolean | null | undefined>): string {
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '' || value === false) continue;
    out.set(key, value === true ? '1' : String(value));
  }
  return out.toString();
}

/** Whether a relay address is usable (the services' rule: ws:// or wss:// with a host, no userinfo, query or fragment). */
export function isRelayUrl(value: string | undefined): value is string {
  return value !== undefined && value !== '' && relayUrlProblem(value) === undefined;
}
