/**
 * The links of one caption room (pure), made exactly as the hub makes them for its single pair
 * (links.ts, audience-link.ts): capture writes the source room, the editor reads it and writes
 * the output room, overlay and audience read the output room. Each carries only its page's
 * tokens, in the fragment; the service access token is never in one.
 */
import { type CaptionRoom, roomPairOf } from '@live-captions/protocol';
import { audienceUrl } from './audience-link.js';
import { buildLinks, type Links, type OverlayOptions } from './links.js';

export interface RoomLinks extends Links {
  audience: string;
}

/**
 * `site`: the UI's base with a trailing slash; `captureUrl`: the capture host's, or null (then no
 * capture link); `relayUrl`: the relay's WebSocket address the pages join.
 */
export function roomLinks(
  site: string,
  captureUrl: string | null,
  relayUrl: string,
  room: Pick<CaptionRoom, 'sourceRoom' | 'outputRoom' | 'tokens'>,
  overlay: OverlayOptions = {},
): RoomLinks {
  const links = buildLinks(site, captureUrl, { relayUrl, ...roomPairOf(room) }, overlay);
  return { ...links, audience: audienceUrl(site, relayUrl, room.outputRoom, room.tokens.outputRead) };
}

/**
 * A room's short link: the public page with the room's id and no token at all, short enough to
 * type from a door sheet; the page forwards it to the room's audience link.
 */
export function shortRoomLink(site: string, id: string): string {
  const url = new URL('now.html', site);
  url.searchParams.set('room', id);
  return url.href;
}
