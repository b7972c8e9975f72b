import { z } from 'zod';

/*
 * `captions`: our extension field of an event (issue 41), which clients of The Events Calendar
 * ignore as they ignore any key they do not know. The live-captions scheduler writes it through
 * the ordinary event update: while a talk runs, its caption room and where the audience follows
 * its captions; once it ended, its transcripts. It is public, as the rest of a published event.
 */

/** Most transcripts an event carries: one per language track, with room to spare. */
export const MAX_TRANSCRIPTS = 50;
/** Longest link accepted (browsers and proxies handle far longer; a transcript link is short). */
export const MAX_LINK_LENGTH = 2048;
/** A relay room name (the caption room's id is its source room's name): `RELAY_ROOM_NAME`. */
const ROOM = /^[A-Za-z0-9_-]{1,128}$/;
/** `original` or a BCP-47 language tag (`de`, `pt-BR`), as the outputs service names tracks. */
const TRACK = /^(?:original|[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*)$/;

export interface CaptionsTranscript {
  track: string;
  srt: string;
  vtt: string;
  txt: string;
}

export interface EventCaptions {
  room: string;
  live: string | null;
  transcripts: CaptionsTranscript[];
}

/** `captions[transcripts][2][vtt]`: a nested value named as WordPress names it in its errors. */
const nameOf = (path: readonly PropertyKey[] | undefined) =>
  (path ?? ['captions']).map((part, at) => (at === 0 ? String(part) : `[${String(part)}]`)).join('');

/**
 * An error message naming the value: the field itself gets the bare text (the validator puts
 * `captions` before it), a value inside it its full bracketed name.
 */
const named =
  (text: string) => (issue: { path?: readonly PropertyKey[]; code?: string; keys?: readonly string[] }) => {
    if (issue.code === 'unrecognized_keys')
      return `${nameOf([...(issue.path ?? ['captions']), issue.keys?.[0] ?? ''])} is not a known field`;
    return issue.path && issue.path.length > 1 ? `${nameOf(issue.path)} ${text}` : text;
  };

/** An absolute http(s) link without credentials, spaces or control characters. */
function isLink(value: string): boolean {
  if (value.length > MAX_LINK_LENGTH || /[\s\p{Cc}]/u.test(value)) return false;
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.hostname !== '' &&
      url.username === '' &&
      url.password === ''
    );
  } catch {
    return false;
  }
}

const LINK = `must be an http or https URL of at most ${MAX_LINK_LENGTH} characters, without credentials`;
const link = () => z.string({ error: named(LINK) }).refine(isLink, { error: named(LINK) });

/** A form body sends `captions=` or `live=` for "none": read as null. */
const emptyIsNull = (value: unknown) => (value === '' ? null : value);

const transcript = z
  .strictObject(
    {
      track: z
        .string({ error: named('must be "original" or a language tag like de or pt-BR') })
        .max(64, { error: named('must be at most 64 characters') })
        .regex(TRACK, { error: named('must be "original" or a language tag like de or pt-BR') }),
      srt: link().describe('SubRip file'),
      vtt: link().describe('WebVTT file'),
      txt: link().describe('Plain text file'),
    },
    { error: named('must be an object {track, srt, vtt, txt}') },
  )
  .describe("One language track's transcript files");

const captionsObject = z
  .strictObject(
    {
      room: z
        .string({ error: named('must be a caption room id') })
        .regex(ROOM, { error: named('must be a caption room id: 1-128 characters of A-Z a-z 0-9 _ -') })
        .describe('The caption room the event is captioned in'),
      live: z
        .preprocess(emptyIsNull, link().nullable())
        .default(null)
        .describe('Where the audience follows the captions live; null when not live (any more)'),
      transcripts: z
        .array(transcript, { error: named('must be a list of {track, srt, vtt, txt}') })
        .max(MAX_TRANSCRIPTS, { error: named(`must hold at most ${MAX_TRANSCRIPTS} transcripts`) })
        .refine((list) => new Set(list.map((t) => t.track.toLowerCase())).size === list.length, {
          error: named('must name each track once'),
        })
        .default([])
        .describe('The transcript of each language track, once the event ended'),
    },
    { error: named('must be null or an object {room, live, transcripts}') },
  )
  .describe('Live captions and transcripts');

/**
 * The `captions` write field: null clears it. Validated strictly: any wrong value is a 400
 * `rest_invalid_param` naming `captions` and, inside it, the value (`captions[transcripts][0][vtt]`).
 */
export const captionsField = () =>
  z
    .preprocess(emptyIsNull, captionsObject.nullable())
    .describe(
      'Our extension (TEC clients ignore it): {room, live, transcripts:[{track, srt, vtt, txt}]} or null to clear',
    );

/** What an event answers under `captions` (/doc). */
export const captionsOut = z
  .object({
    room: z.string(),
    live: z.string().nullable(),
    transcripts: z.array(z.object({ track: z.string(), srt: z.string(), vtt: z.string(), txt: z.string() })),
  })
  .nullable()
  .describe(
    'Our extension, absent in The Events Calendar: the caption room, the live captions link while the event runs, its transcripts once it ended; null when none (or the event is locked by its password)',
  );
