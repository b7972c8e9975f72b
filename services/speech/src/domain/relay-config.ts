/**
 * `GET /relay-config`: the capture page's auto-fill data from `secrets/relay-tokens.env`.
 * Field names are a stable contract for the capture page and the links hub.
 */
import type { RelayConfigResponse } from '@live-captions/protocol';
import { LOCAL_HOSTS } from './access.js';

const REQUIRED = [
  'RELAY_ADDRESS',
  'RELAY_ROOM',
  'RELAY_OUTPUT_ROOM',
  'RELAY_SOURCE_READ',
  'RELAY_SOURCE_WRITE',
] as const;

const fragment = (params: Record<string, string | null>) =>
  Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== null)
    .map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
    .join('&');

/**
 * Validates the file's variables; returns one message per problem (never the values).
 * Links put tokens in the fragment only, each link carrying just the tokens its page needs:
 * the editor reads the source room and writes the output room; the overlay reads the output room.
 */
export function parseRelayConfig(vars: Record<string, string>): {
  config?: RelayConfigResponse;
  problems: string[];
} {
  const problems: string[] = [];
  for (const name of REQUIRED) if (!vars[name]) problems.push(`${name}: is required`);
  const address = vars.RELAY_ADDRESS;
  if (address) {
    try {
      const url = new URL(address);
      // ws:// only on loopback, for the local stack that `pnpm secrets:init` writes by default.
      const local = url.protocol === 'ws:' && LOCAL_HOSTS.has(url.hostname);
      if (url.protocol !== 'wss:' && !local)
        problems.push('RELAY_ADDRESS: must use wss:// (ws:// only for localhost)');
    } catch {
      problems.push('RELAY_ADDRESS: must be a wss:// URL');
    }
  }
  const site = vars.RELAY_SITE || null;
  if (site) {
    try {
      const url = new URL(site);
      if (url.protocol !== 'https:' && url.protocol !== 'http:')
        problems.push('RELAY_SITE: must be an http(s) URL');
      if (!site.endsWith('/')) problems.push('RELAY_SITE: must end with a slash');
    } catch {
      problems.push('RELAY_SITE: must be an http(s) URL ending with a slash');
    }
  }
  if (problems.length > 0) return { problems };

  const base = {
    relayUrl: vars.RELAY_ADDRESS!,
    site,
    sourceRoom: vars.RELAY_ROOM!,
    outputRoom: vars.RELAY_OUTPUT_ROOM!,
    sourceReadToken: vars.RELAY_SOURCE_READ!,
    sourceWriteToken: vars.RELAY_SOURCE_WRITE!,
    outputReadToken: vars.RELAY_OUTPUT_READ || null,
    outputWriteToken: vars.RELAY_OUTPUT_WRITE || null,
  };
  const editor = site
    ? `${site}editor.html#${fragment({
        relayUrl: base.relayUrl,
        sourceRoom: base.sourceRoom,
        sourceReadToken: base.sourceReadToken,
        outputRoom: base.outputRoom,
        outputWriteToken: base.outputWriteToken,
      })}`
    : null;
  const overlay = site
    ? `${site}overlay.html#${fragment({
        relayUrl: base.relayUrl,
        room: base.outputRoom,
        relayReadToken: base.outputReadToken,
      })}`
    : null;
  return { config: { ...base, links: { editor, overlay } }, problems };
}
