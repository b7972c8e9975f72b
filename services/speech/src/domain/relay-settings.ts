/**
 * `GET /relay-config`: the capture page's auto-fill data from `secrets/relay-tokens.env`, or with
 * `?room=` a caption room of the relay's rooms API.
 * Field names are a stable contract for the capture page and the links hub.
 */

import { relayUrlProblem } from '@live-captions/http';
import { CAPTION_ROOM_ID, type CaptionRoom, type RelaySettings, roomPairOf } from '@live-captions/protocol';
import {
  type RelayTokensField,
  readRelayTokens,
  RELAY_TOKENS_VARS as VAR,
} from '@live-captions/secret-files';

const REQUIRED: RelayTokensField[] = [
  'relayAddress',
  'sourceRoom',
  'outputRoom',
  'sourceRead',
  'sourceWrite',
];

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
export function parseRelaySettings(vars: Record<string, string>): {
  settings?: RelaySettings;
  problems: string[];
} {
  const problems: string[] = [];
  const file = readRelayTokens(vars);
  for (const field of REQUIRED) if (!file[field]) problems.push(`${VAR[field]}: is required`);
  const address = file.relayAddress;
  if (address) {
    // ws:// only on loopback, for the local stack that `pnpm secrets:init` writes by default.
    const problem = relayUrlProblem(address, { secure: true });
    if (problem) problems.push(`${VAR.relayAddress}: ${problem}`);
  }
  const site = file.relaySite ?? null;
  if (site) {
    try {
      const url = new URL(site);
      if (url.protocol !== 'https:' && url.protocol !== 'http:')
        problems.push(`${VAR.relaySite}: must be an http(s) URL`);
      if (!site.endsWith('/')) problems.push(`${VAR.relaySite}: must end with a slash`);
    } catch {
      problems.push(`${VAR.relaySite}: must be an http(s) URL ending with a slash`);
    }
  }
  if (problems.length > 0) return { problems };

  return {
    settings: withLinks({
      relayUrl: file.relayAddress!,
      site,
      sourceRoom: file.sourceRoom!,
      outputRoom: file.outputRoom!,
      sourceReadToken: file.sourceRead!,
      sourceWriteToken: file.sourceWrite!,
      outputReadToken: file.outputRead ?? null,
      outputWriteToken: file.outputWrite ?? null,
    }),
    problems,
  };
}

/**
 * `GET /relay-config?room=<id>`: a caption room of the relay's rooms API, in the same shape, with
 * the public relay address and UI site of `relay-tokens.env` (the relay's own address without it).
 */
export function roomRelaySettings(
  room: CaptionRoom,
  where: { relayUrl: string; site: string | null },
): RelaySettings {
  return withLinks({
    relayUrl: where.relayUrl,
    site: where.site,
    ...roomPairOf(room),
  });
}

/** Why `?room=` is not a caption room id (the relay's rule), or undefined. */
export function captionRoomIdProblem(id: string): string | undefined {
  if (CAPTION_ROOM_ID.test(id) && !id.includes('--') && !id.endsWith('-output')) return undefined;
  return 'room: must be a caption room id (1-48 characters of a-z 0-9 and single hyphens)';
}

function withLinks(base: Omit<RelaySettings, 'links'>): RelaySettings {
  const { site } = base;
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
  return { ...base, links: { editor, overlay } };
}
