/**
 * What the public "captioning now" page says about a room (pure): the languages it is captioned
 * in, and whether it is live. Only what `GET /public/rooms` gives: no write token ever.
 */
import type { PublicCaptionRoom } from '@live-captions/protocol';

/** "English, Spanish" from the room's language codes; `name` gives a code its name. */
export function languagesLine(
  room: Pick<PublicCaptionRoom, 'languages'>,
  name: (code: string) => string,
): string {
  return room.languages.map(name).join(', ');
}

/** The line under a room's name: live or not, and its languages when it has had captions lately. */
export function roomStateLine(
  room: Pick<PublicCaptionRoom, 'live' | 'languages'>,
  name: (code: string) => string,
): string {
  const languages = languagesLine(room, name);
  return [room.live ? 'Captioning now' : 'Not live', languages].filter(Boolean).join(' · ');
}

/** The room a short link (`now.html?room=<id>`) asks for, or undefined. */
export function requestedRoom(href: string): string | undefined {
  return new URL(href).searchParams.get('room') ?? undefined;
}
