/**
 * The HTTP API's request bodies, checked with zod, and its errors; the answers' shapes are the
 * protocol's (`Destination`, `ArchiveSession`), which the editor page reads.
 */
import { captionTextFault, type DestinationKind } from '@live-captions/protocol';
import { z } from 'zod';
import { canonicalTag, ORIGINAL, parseTrack } from './tracks.js';

const URL_MESSAGE = 'url: must be the caption URL the platform shows (at most 4096 characters)';
/** Spaces or control characters inside a URL: never a platform's, and PostgreSQL refuses a NUL. */
const urlText = (value: string) => captionTextFault(value) === undefined && !/\s/.test(value.trim());
const url = z
  .string({ error: URL_MESSAGE })
  .max(4096, { error: URL_MESSAGE })
  .refine(urlText, { error: 'url: must not contain spaces or control characters' });
const LANG_MESSAGE = 'lang: must be a language tag like en-US';
const lang = z
  .string({ error: LANG_MESSAGE })
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, { error: LANG_MESSAGE });

const track = z
  .string({ message: 'track: must be "original" or a language tag like es' })
  .max(64, { message: 'track: too long' })
  .transform((value, ctx) => {
    const parsed = parseTrack(value);
    if (parsed === undefined)
      ctx.addIssue({ code: 'custom', message: 'track: must be "original" or a language tag like es' });
    return parsed ?? ORIGINAL;
  });

export const newDestinationSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('youtube'), url, track: track.default(ORIGINAL) }),
    z.strictObject({ kind: z.literal('zoom'), url, lang: lang.optional(), track: track.default(ORIGINAL) }),
    z.strictObject({ kind: z.literal('archive') }),
  ],
  { error: 'kind: must be youtube, zoom or archive' },
);
/** What a checked body holds: the protocol's `NewDestination` with the track filled in. */
export type CheckedNewDestination = z.infer<typeof newDestinationSchema>;

/**
 * Zoom's `lang`: as given, else the track's language with its likely region (Zoom's contract
 * names `lang` as `en-US`, language and region; its stand-in refused a bare `ca` with 403, so a
 * Catalan track never reached Zoom): `ca` -> `ca-ES`, `pt-BR` stays; `en-US` for the original.
 */
export function zoomLang(lang: string | undefined, track: string): string {
  if (lang !== undefined) return lang;
  if (track === ORIGINAL) return 'en-US';
  try {
    const likely = new Intl.Locale(track).maximize();
    return likely.region ? `${likely.language}-${likely.region}` : track;
  } catch {
    return track;
  }
}

/**
 * One message naming the field, for a 400, in our words: every schema above carries its own
 * message, prefixed with its field; the library's own texts ("Invalid input: expected string")
 * never reach a client.
 */
export function bodyProblem(error: z.ZodError, root = 'body: must be a JSON object with a kind'): string {
  const issue = error.issues[0];
  if (!issue) return 'body: invalid';
  if (issue.code === 'unrecognized_keys') return `${[...issue.path, issue.keys[0]].join('.')}: unknown field`;
  const field = issue.path.join('.');
  if (!field) return root;
  // An item of a list (`terms.3`) carries its list's name.
  const named = [`${field}: `, `${String(issue.path[0])}: `].some((prefix) =>
    issue.message.startsWith(prefix),
  );
  return named ? issue.message : `${field}: invalid value`;
}

const TARGET_MESSAGE = 'target: must be a language tag like es or pt-BR';
const SOURCE_MESSAGE = 'source: must be a language tag like en or en-GB';
/** A BCP-47 tag in canonical form (`pt-br` -> `pt-BR`); `message` names the field. */
const languageTag = (message: string) =>
  z
    .string({ error: message })
    .max(64, { error: message })
    .transform((value, ctx) => {
      const tag = canonicalTag(value.trim());
      if (tag === undefined) ctx.addIssue({ code: 'custom', message });
      return tag ?? '';
    });
const ENGINE_MESSAGE = 'engine: must be apertium, libretranslate or deepl';
const engine = z.enum(['apertium', 'libretranslate', 'deepl'], { error: ENGINE_MESSAGE });
const ENGINE_URL_MESSAGE = "url: must be the engine's http(s) address (at most 2048 characters)";
/** An engine address; empty means the engine's default. The address rule is checked by the route. */
const engineUrl = z
  .string({ error: ENGINE_URL_MESSAGE })
  .max(2048, { error: ENGINE_URL_MESSAGE })
  .refine(urlText, { error: 'url: must not contain spaces or control characters' })
  .transform((value) => value.trim() || undefined);
const KEY_MESSAGE = "key: must be the engine's API key (at most 512 characters)";
/** An engine key; empty means none. Never echoed in a message. */
const engineKey = z
  .string({ error: KEY_MESSAGE })
  .max(512, { error: KEY_MESSAGE })
  .refine(urlText, {
    error: 'key: must not contain spaces or control characters',
  })
  .transform((value) => value.trim() || undefined);

/** `POST /rooms/:room/translation-languages`: which engine to ask, from which language. */
export const translationLanguagesSchema = z.strictObject({
  engine,
  url: engineUrl.optional(),
  key: engineKey.optional(),
  source: languageTag(SOURCE_MESSAGE).default('en'),
});

/** `POST /rooms/:room/translations`: the protocol's `NewTranslation`. */
export const newTranslationSchema = translationLanguagesSchema.extend({
  target: languageTag(TARGET_MESSAGE),
});
export type CheckedNewTranslation = z.infer<typeof newTranslationSchema>;

/**
 * A room's vocabulary: at most 200 terms of 1-100 characters each (a term is a name or a phrase;
 * every term is matched against every caption, so the list stays short).
 */
export const VOCABULARY_LIMITS = { terms: 200, termLength: 100 } as const;
const TERMS_MESSAGE = `terms: must be a list of at most ${VOCABULARY_LIMITS.terms} names`;
const TERM_MESSAGE = `terms: each must be 1-${VOCABULARY_LIMITS.termLength} characters of text, without line breaks or control characters`;
export const vocabularySchema = z.strictObject({
  terms: z
    .array(
      z
        .string({ error: TERM_MESSAGE })
        .transform((value) => value.trim().replace(/\s+/gu, ' '))
        .refine(
          (value) =>
            value.length >= 1 &&
            value.length <= VOCABULARY_LIMITS.termLength &&
            // Line breaks and tabs became spaces above; every other control is refused here.
            captionTextFault(value) === undefined,
          { error: TERM_MESSAGE },
        ),
      { error: TERMS_MESSAGE },
    )
    .max(VOCABULARY_LIMITS.terms, { error: TERMS_MESSAGE })
    // The same term twice (any letter case) is kept once, the first spelling.
    .transform((terms) => {
      const seen = new Set<string>();
      return terms.filter((term) => {
        const key = term.toLowerCase();
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    }),
});

/** A calendar event id: the calendar's ids are PostgreSQL `integer`s. */
const EVENT_ID_MESSAGE = 'event.id: must be the calendar event id, a positive integer';
const EVENT_TITLE_MESSAGE = 'event.title: must be the event title, at most 500 characters of text';
/** ISO 8601 with its offset (`2030-05-04T10:00:00Z`, `...+02:00`): a time without one is ambiguous. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const instant = (field: 'start' | 'end') => {
  const message = `event.${field}: must be an ISO 8601 time with its offset, like 2030-05-04T10:00:00Z`;
  return z
    .string({ error: message })
    .max(40, { error: message })
    .transform((value, ctx) => {
      const ms = ISO_INSTANT.test(value) ? Date.parse(value) : Number.NaN;
      if (Number.isNaN(ms)) ctx.addIssue({ code: 'custom', message });
      return ms;
    });
};

/**
 * `PUT /rooms/:room/archive/event`: the calendar event the room's captions belong to from now on,
 * or null between talks. Times come back as UTC ISO (`toISOString`).
 */
export const archiveEventSchema = z.strictObject(
  {
    event: z
      .strictObject(
        {
          id: z
            .number({ error: EVENT_ID_MESSAGE })
            .int({ error: EVENT_ID_MESSAGE })
            .min(1, { error: EVENT_ID_MESSAGE })
            .max(2_147_483_647, { error: EVENT_ID_MESSAGE }),
          title: z
            .string({ error: EVENT_TITLE_MESSAGE })
            .max(500, { error: EVENT_TITLE_MESSAGE })
            // PostgreSQL refuses a NUL; the other controls would reach the public page.
            .refine((value) => captionTextFault(value) === undefined, { error: EVENT_TITLE_MESSAGE }),
          start: instant('start'),
          end: instant('end'),
        },
        { error: 'event: must be {id, title, start, end} or null' },
      )
      .refine((event) => event.end >= event.start, {
        error: 'event.end: must not be before event.start',
        path: ['end'],
      })
      .nullable(),
  },
  { error: 'body: must be a JSON object {"event": {...} | null}' },
);

/** A route's id parameter (a destination or an archive session): what `randomUUID` gives. */
export const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const LABELS: Record<DestinationKind, string> = {
  youtube: 'YouTube Live',
  zoom: 'Zoom',
  archive: 'Transcript archive',
};

/** Error codes of the `{error:{message, code}}` body. */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'destination_not_allowed'
  | 'engine_address_not_allowed'
  | 'engine_unavailable'
  | 'unavailable'
  | 'internal';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
