/**
 * Caption rooms: the unit an event is captioned in. A caption room is a pair of relay rooms, its
 * source room (what the capture page or a stream source publishes, the editor reads) and its
 * reviewed output room (what the editor publishes and the overlay, audience page, outputs and
 * translations read), with a read and a write token each.
 *
 * The relay owns them: holders of the service access token (`CAPTION_API_KEY`) create, list,
 * rename, rotate and remove rooms on its HTTP API (`/rooms`), and every other service that knows
 * rooms (the gateway's `/relay-config`, outputs, stream sources, the links hub) reads that API.
 * A room of the relay's file (`relay.private.json`) whose `<name>-output` room is in the file too
 * is listed as a caption room of kind `file`: usable everywhere, but renamed, rotated or removed
 * only by editing the file.
 */
import { z } from 'zod';

/**
 * A caption room's id: its source room's relay name, and with `-output` its output room's; lower
 * case, digits and single hyphens, at most 48 characters (room names are at most 128; an id is
 * also a URL segment and a file name).
 */
export const CAPTION_ROOM_ID = /^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$/;

/** The output room's relay name of a caption room. */
export const outputRoomOf = (id: string): string => `${id}-output`;

/** A caption room's display name limit (characters). */
export const CAPTION_ROOM_NAME_MAX = 80;

/** How many rooms the relay's API keeps (a conference of 35-40 rooms, with room to spare). */
export const CAPTION_ROOMS_MAX = 200;

export interface CaptionRoomTokens {
  sourceRead: string;
  sourceWrite: string;
  outputRead: string;
  outputWrite: string;
}

/** A caption room as the operator API answers it (with its tokens: only to the service token). */
export interface CaptionRoom {
  id: string;
  /** What people call the room: "Main hall (Janson)". */
  name: string;
  sourceRoom: string;
  outputRoom: string;
  /** `api`: made through `/rooms`; `file`: a pair of `relay.private.json`, changed only there. */
  kind: 'api' | 'file';
  tokens: CaptionRoomTokens;
  /** ISO 8601; null for a room of the file. */
  createdAt: string | null;
  updatedAt: string | null;
  /** The calendar venue whose events start and stop the room's stream sources; null: by hand. */
  schedule: CaptionRoomSchedule | null;
}

/**
 * A room bound to a calendar venue: for every event there its stream sources run from
 * `leadSeconds` before the start to `tailSeconds` after the end. `hold` is the operator's hand:
 * `on` or `off` wins over the calendar until it is set back to null.
 */
export interface CaptionRoomSchedule {
  /** The venue's id in the calendar (The Events Calendar REST v1 `venue.id`). */
  venue: number;
  leadSeconds: number;
  tailSeconds: number;
  hold: CaptionRoomHold;
}

export type CaptionRoomHold = 'on' | 'off' | null;

/** The lead and tail a schedule gets when the operator names only its venue. */
export const SCHEDULE_DEFAULT_SECONDS = 300;
/** The longest lead or tail (a whole hour before or after a talk is already generous). */
export const SCHEDULE_MAX_SECONDS = 3600;

/**
 * The error code of a relay that keeps no caption rooms (no store): its `/rooms` answers 404 with
 * it, where an unknown room of a relay with rooms is `not_found`.
 */
export const NO_ROOMS_STORE = 'no_rooms_store';

/** `GET /rooms`: every caption room, and the registry's version (also its ETag). */
export interface CaptionRoomList {
  rooms: CaptionRoom[];
  version: string;
}

/**
 * `GET /rooms/public` (no token): what the public "captioning now" page and a door sheet may show.
 * Only the output room's read token: the audience link is a read link.
 */
export interface PublicCaptionRoom {
  id: string;
  name: string;
  outputRoom: string;
  outputReadToken: string;
  /** Something was published into the room in the last two minutes. */
  live: boolean;
  /** Languages seen in the output room in the last ten minutes: the original's first, then tracks. */
  languages: string[];
  /** The calendar venue the room is bound to (its talks are the venue's events), or null. */
  venue: number | null;
}

export interface PublicCaptionRoomList {
  rooms: PublicCaptionRoom[];
}

const name = z
  .string({ message: 'must be a string' })
  .trim()
  .min(1, { message: 'must not be empty' })
  .max(CAPTION_ROOM_NAME_MAX, { message: `must be at most ${CAPTION_ROOM_NAME_MAX} characters` })
  // Control characters (NUL included) would break logs, files and PostgreSQL's text.
  .refine((value) => !/\p{Cc}/u.test(value), { message: 'must not contain control characters' });

const id = z
  .string({ message: 'must be a string' })
  .regex(CAPTION_ROOM_ID, {
    message:
      'must be 1-48 characters of a-z 0-9 and single hyphens, starting and ending with a letter or digit',
  })
  .refine((value) => !value.includes('--'), { message: 'must not contain two hyphens in a row' })
  .refine((value) => !value.endsWith('-output'), { message: 'must not end with -output' });

/** `POST /rooms`: a name, and optionally the id (made from the name otherwise). */
export const newCaptionRoomSchema = z.strictObject({ name, id: id.optional() });
export type NewCaptionRoom = z.infer<typeof newCaptionRoomSchema>;

const seconds = z
  .number({ message: 'must be a number of seconds' })
  .int({ message: 'must be a whole number of seconds' })
  .min(0, { message: 'must not be negative' })
  .max(SCHEDULE_MAX_SECONDS, { message: `must be at most ${SCHEDULE_MAX_SECONDS} seconds` });

/** A venue binding as the operator sends it: the venue, and optionally the lead and tail. */
export const captionRoomScheduleSchema = z.strictObject({
  venue: z
    .number({ message: 'must be a venue id (a positive whole number)' })
    .int({ message: 'must be a venue id (a positive whole number)' })
    .positive({ message: 'must be a venue id (a positive whole number)' })
    .max(2 ** 31 - 1, { message: 'must be a venue id (a positive whole number)' }),
  leadSeconds: seconds.default(SCHEDULE_DEFAULT_SECONDS),
  tailSeconds: seconds.default(SCHEDULE_DEFAULT_SECONDS),
});

/**
 * `PATCH /rooms/:id`: any of a new name (the id, and so the relay rooms and links, stay), a venue
 * binding (`null` unbinds), and the hand (`hold`: `on`, `off`, or `null` to give the room back to
 * its schedule). A room of the file takes a binding and a hold, not a name.
 */
export const captionRoomPatchSchema = z
  .strictObject({
    name: name.optional(),
    schedule: captionRoomScheduleSchema.nullable().optional(),
    hold: z.enum(['on', 'off'], { message: 'must be "on", "off" or null' }).nullable().optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, {
    message: 'name the change: name, schedule or hold',
  });
export type CaptionRoomPatch = z.infer<typeof captionRoomPatchSchema>;

/** An id made from a display name: "Main Hall (Janson)" -> "main-hall-janson". */
export function captionRoomIdFrom(displayName: string): string {
  const slug = displayName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/g, '')
    .replace(/-output$/, '-out');
  return slug || 'room';
}

/** One relay room of a caption room, as the relay node answering sees it. */
export interface RelayRoomActivity {
  /** Sockets joined to write (a source room: capture pages and stream sources; two is a warning). */
  publishers: number;
  /** Sockets joined to read (an output room: the audience, overlays, the outputs service). */
  readers: number;
  /** Captions the room took in the last 60 s. */
  captionsLastMinute: number;
  /** ISO 8601 time of its last caption, or null. */
  lastCaptionAt: string | null;
  /** The original's language, then the translation tracks', from its last ten minutes. */
  languages: string[];
}

/**
 * `GET /activity/rooms` (service token): each caption room's source and output room now. With
 * several relay nodes, `publishers` and `readers` count the sockets of the node that answers;
 * the captions are every node's.
 */
export interface CaptionRoomActivityList {
  rooms: { id: string; source: RelayRoomActivity; output: RelayRoomActivity }[];
}
