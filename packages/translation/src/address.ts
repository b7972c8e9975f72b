/**
 * Which engine addresses a room's writer may make the server call: the rule of destination URLs
 * (`outboundAddress` of @live-captions/http: http(s), no userinfo or fragment, operator-listed
 * `host:port` entries allowed over http too), and for everything else the engine's own hosted
 * API over https on its default port.
 */
import { outboundAddress } from '@live-captions/http/urls';
import { EngineAddressError } from './errors.js';
import type { EngineKind } from './types.js';

/** The hosted APIs each kind may call without the operator listing them. Apertium has none: it is self-hosted. */
export const PLATFORM_HOSTS: Readonly<Record<EngineKind, readonly string[]>> = {
  apertium: [],
  libretranslate: ['libretranslate.com'],
  deepl: ['api.deepl.com', 'api-free.deepl.com'],
};

/**
 * The base URL (origin and path prefix, no trailing slash) the engine will be called at, or an
 * EngineAddressError (422) saying why not. A listed host may sit behind a path prefix (a
 * self-hosted LibreTranslate under `/translate-api`); a hosted API is its bare origin.
 */
export function checkEngineAddress(
  kind: EngineKind,
  value: string,
  allowedHosts: ReadonlySet<string>,
): string {
  const address = outboundAddress(value, allowedHosts);
  if ('problem' in address) throw new EngineAddressError(address.problem);
  const { url } = address;
  if (url.search || value.trim().endsWith('?')) throw new EngineAddressError('must not carry a query');
  const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  if (address.listed) return base;
  const hosts = PLATFORM_HOSTS[kind];
  if (hosts.length === 0)
    throw new EngineAddressError(`must be a host:port the operator allowed (OUTPUTS_ALLOWED_HOSTS)`);
  if (!hosts.includes(url.hostname.toLowerCase()) || url.port !== '')
    throw new EngineAddressError(`must be on ${hosts.join(' or ')}, or a host:port the operator allowed`);
  if (url.protocol !== 'https:') throw new EngineAddressError('must use https');
  if (url.pathname !== '/') throw new EngineAddressError(`must be https://${url.hostname.toLowerCase()}`);
  return url.origin;
}
