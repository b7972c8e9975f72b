/**
 * A source as the API takes and shows it (pure): where its audio comes from, which event's source
 * room its captions go to, and its capture settings (language, mode, vocabulary, word rules,
 * sensitivity and window), which are the capture page's.
 */
import { MAX_PROMPT_CHARS } from '@live-captions/audio';
import { SENSITIVITY } from '@live-captions/capture';
import {
  CAPTION_TEXT_RULE,
  captionTextFault,
  RELAY_ROOM_NAME,
  type StreamSource,
  type StreamSourceSettings,
  type StreamSourceState,
} from '@live-captions/protocol';
import { z } from 'zod';
import { STREAM_KEY } from './source-input.js';

export type SourceState = StreamSourceState;

/**
 * A string within the caption text rule (`@live-captions/protocol`'s caption-text.ts): a name, the
 * vocabulary and the word rules reach the decoder's prompt, the captions and the database, and
 * none of them can carry a NUL (PostgreSQL refuses it) or a control character (never matched in
 * a caption, so a rule holding one would silently never apply). The message names the character.
 */
const ruledText = (schema: z.ZodString) =>
  schema.check((ctx) => {
    const fault = captionTextFault(ctx.value);
    if (fault)
      ctx.issues.push({
        code: 'custom',
        input: ctx.value,
        message: `has ${fault.codePoint} at ${fault.index}: ${CAPTION_TEXT_RULE}`,
      });
  });

export const settingsSchema = z.strictObject({
  language: z
    .string()
    .regex(/^(auto|[a-z]{2,3})$/, { message: 'a language code or auto' })
    .default('en'),
  mode: z.enum(['transcribe', 'translate', 'both']).default('transcribe'),
  vocabulary: ruledText(z.string().max(MAX_PROMPT_CHARS)).default(''),
  replacements: z
    .array(
      z.strictObject({
        from: ruledText(z.string().min(1).max(200)),
        to: ruledText(z.string().max(200)),
      }),
    )
    .max(200)
    .default([]),
  maskProfanity: z.boolean().default(false),
  sensitivity: z.enum(Object.keys(SENSITIVITY) as [keyof typeof SENSITIVITY]).default('normal'),
  intervalSeconds: z.union([z.literal(3), z.literal(6), z.literal(9)]).default(3),
});
export type SourceSettings = z.infer<typeof settingsSchema>;
// The pages read the settings as the protocol describes them: the schema must give exactly that
// (a compile error here when the two part).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const SETTINGS_MATCH_PROTOCOL: Same<SourceSettings, StreamSourceSettings> = true;

/** A source's id (a UUID, given when it is added): anything else names no source. */
export const SOURCE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const roomSchema = z
  .string()
  .regex(RELAY_ROOM_NAME, { message: 'a room name (1-128 of A-Z a-z 0-9 _ -)' });

export const newSourceSchema = z.strictObject({
  room: roomSchema,
  name: ruledText(z.string().min(1).max(100)),
  input: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('pull'), url: z.string().min(1) }),
    z.strictObject({ kind: z.literal('rtmp-push'), streamKey: z.string().regex(STREAM_KEY).optional() }),
    z.strictObject({ kind: z.literal('srt-push'), streamKey: z.string().regex(STREAM_KEY).optional() }),
  ]),
  settings: settingsSchema.default(settingsSchema.parse({})),
  running: z.boolean().default(true),
});
export type NewSource = z.infer<typeof newSourceSchema>;

export const settingsUpdateSchema = settingsSchema.partial();

/** One line naming the first problem of a refused body (never its values); `under`: the part parsed. */
export function bodyProblem(error: z.ZodError, under?: string): string {
  const issue = error.issues[0];
  const path = [...(under ? [under] : []), ...(issue?.path ?? [])].join('.');
  return `${path || 'body'}: ${issue?.message ?? 'invalid'}`;
}

/** What a replica running a source reports. */
export interface SourceStatus {
  state: SourceState;
  reason: string | null;
  /** 0..1 over the last 60 dB, smoothed (the capture page's meter). */
  level: number;
  /** Audio received and not yet captioned, seconds. */
  behindSeconds: number;
  /** Since when the state holds (ISO). */
  since: string;
  node: string;
  /**
   * The write sockets of its room on the relay, its own included, as the relay last said (its
   * join, each ack): more than 1, another publisher's captions interleave with its own.
   */
  roomWriters?: number;
}

/** What the API shows of a source (the protocol's, which the pages read). */
export type SourceView = StreamSource;

/** How long a running source's reported status stays believable without a new report. */
export const STATUS_STALE_MS = 10_000;
