/**
 * The relay's frames (protocol 2), the one definition of their shape: the relay validates what a
 * client sends with these schemas, the relay-client checks what the relay sends with them, and
 * the clients' types (relay-client, the pages) are inferred from them. Each WebSocket text frame holds one of them as JSON. `proto/relay.proto` describes
 * the same messages for hrpc; a test checks that their fields agree.
 *
 * Kept apart from `relay.ts` so that a browser bundle that needs only the constants and the
 * types never pulls in zod. Written with `zod/mini`, zod 4's tree-shakable API (imported as a
 * namespace, which is what lets esbuild drop the rest), because the relay-client checks every
 * server frame with these schemas inside the browser pages: the classic API added about 93 kB
 * (minified, gzip) to each page that has a relay connection, mini adds 7 kB. The issues it
 * reports (codes, paths) are zod's, as with the classic API; its messages are not localised.
 */
import * as z from 'zod/mini';
import { CAPTION_TEXT_RULE, captionTextFault } from './caption-text.js';
import {
  RELAY_DELIVERY_CLIENT,
  RELAY_EPOCH_MAX,
  RELAY_ID_MAX,
  RELAY_LABEL_MAX,
  RELAY_LN_MAX,
  RELAY_PROTOCOL,
  RELAY_TEXT_MAX,
} from './relay.js';

/** Counts and sequences: safe integers from `min`. */
const count = (min: number) => z.int().check(z.gte(min));

/** One socket joins one room with one role; a read socket never publishes. */
export const relayRoleSchema = z.enum(['read', 'write']);

/** Why a reader misses captions: the history no longer holds them, or the relay restarted. */
export const relayGapReasonSchema = z.enum(['history-expired', 'relay-restarted']);

/** Position in a room's stream: `epoch` changes when the relay restarts, `sequence` counts from 1. */
export const relayCursorSchema = z.strictObject({
  epoch: z.string().check(z.maxLength(RELAY_EPOCH_MAX)),
  sequence: count(0),
});

/** Identity of one publish attempt, chosen by the publisher and reused when it resends. */
export const relayDeliverySchema = z.strictObject({
  client: z.string().check(z.regex(RELAY_DELIVERY_CLIENT)),
  sequence: count(1),
});

/**
 * First frame of a socket; a reader's `cursor` is the last position it has seen. `beat: true`
 * asks the relay for beat frames (below): a client that asks can tell a silent relay (a frozen
 * process, a dead NAT mapping) from a quiet room, which WebSocket pings cannot tell a browser.
 * A reader's `replayMs` bounds what it is replayed to the captions of the last `replayMs` milliseconds: a
 * fresh join (no cursor) gets those, then live ones; a join whose cursor is older skips to there
 * (reported as a `history-expired` gap). Without it a fresh join starts at the live edge and a
 * cursor gets everything the relay still holds after it.
 */
export const relayJoinSchema = z.strictObject({
  protocol: z.literal(RELAY_PROTOCOL),
  join: z.string(),
  role: relayRoleSchema,
  token: z.string(),
  cursor: z.optional(relayCursorSchema),
  beat: z.optional(z.literal(true)),
  replayMs: z.optional(count(0)),
  /**
   * A reader asks for each caption's `delivery` (the publisher's identity, below): a publisher's
   * sequences are contiguous, so a skip in them tells captions lost (a relay that restarted
   * without its history after taking them) from a restart that lost nothing.
   */
  deliveries: z.optional(z.literal(true)),
});

/** The relay's answer to a join. */
export const relayJoinedSchema = z.strictObject({
  joined: z.string(),
  role: relayRoleSchema,
  protocol: z.literal(RELAY_PROTOCOL),
  epoch: z.string(),
  /** Room sequence of the first caption this socket will get. */
  next: count(1),
  gap: z.union([z.literal(false), relayGapReasonSchema]),
  retentionMs: count(0),
  /**
   * Only when the join asked for beats: the longest the relay stays silent towards this socket
   * while it is up (it sends a beat frame when nothing else went out for that long).
   */
  beatMs: z.optional(count(1)),
  /**
   * To a write socket: the write sockets joined to the room on this relay node now, this one
   * included. More than 1 means captions from several publishers interleave in the room (two
   * capture pages, a page and a stream source): the publishers warn. Absent from older relays.
   */
  writers: z.optional(count(1)),
});

/** A string of at most `max` characters, as readers take it (see `captionFields`). */
const text = (max: number) => z.string().check(z.maxLength(max));
/** A string of at most `max` characters within the caption text rule (`caption-text.ts`). */
const ruledText = (max: number) =>
  z.string().check(
    z.maxLength(max),
    z.refine((value) => captionTextFault(value) === undefined, { message: CAPTION_TEXT_RULE }),
  );

/**
 * Caption fields shared by a publish and what readers get. A publish must keep the caption text
 * rule (the relay refuses it otherwise); a reader takes what a relay sends without it, so that a
 * caption retained by a relay of an older version cannot stop its readers, and cleans it itself.
 */
const captionFields = (string: (max: number) => ReturnType<typeof text>) => ({
  msg: z.literal(true),
  final: z.optional(string(RELAY_TEXT_MAX)),
  interm: z.optional(string(RELAY_TEXT_MAX)),
  id: z.union([z.int(), string(RELAY_ID_MAX)]),
  label: z.optional(string(RELAY_LABEL_MAX)),
  ln: z.optional(string(RELAY_LN_MAX)),
  /** Clears the overlay. */
  c: z.optional(z.boolean()),
  /** A guard removed hallucinated or repeated text from it: the editor marks it for review. */
  trimmed: z.optional(z.boolean()),
});

/**
 * Exactly one of `final` / `interm` (relay.proto's `oneof text`, hence the path). Checked even
 * when other fields fail, so that the relay can name this fault before theirs.
 */
const hasOneText = (caption: { final?: unknown; interm?: unknown }) =>
  (caption.final !== undefined) !== (caption.interm !== undefined);
const oneText = {
  path: ['text'],
  message: 'Exactly one of final or interm',
  when: ({ value }: { value: unknown }) => typeof value === 'object' && value !== null,
};

/** A caption sent by a write socket. */
export const relayPublishSchema = z
  .strictObject({ ...captionFields(ruledText), delivery: relayDeliverySchema })
  .check(z.refine(hasOneText, oneText));

/** The relay's answer to a publish (also to a duplicate, with the original's room sequence). */
export const relayAckSchema = z.strictObject({
  ack: relayDeliverySchema,
  epoch: z.string(),
  sequence: count(1),
  /** The room's write sockets on this node when the publish was taken (as `joined.writers`). */
  writers: z.optional(count(1)),
});

/**
 * A caption as a read socket gets it: the publish without its delivery, plus its room position
 * and `at`, when the relay took it (ms since 1970; in cluster mode Redis's clock), so that a reader
 * that reads it late (from the history, after an outage) knows when it was said. Optional for
 * relays of an earlier version, which do not send it.
 */
export const relayCaptionSchema = z
  .strictObject({
    ...captionFields(text),
    relay: relayCursorSchema,
    at: z.optional(count(0)),
    /** Only to a reader whose join asked for `deliveries`: the publish's delivery identity. */
    delivery: z.optional(relayDeliverySchema),
  })
  .check(z.refine(hasOneText, oneText));

/** Captions a reader will not get, mid-stream; it continues with `next`. */
export const relayGapSchema = z.strictObject({
  gap: relayGapReasonSchema,
  epoch: z.string(),
  next: count(1),
});

/**
 * The relay is up and this socket is served: sent to a socket that asked for beats (`join.beat`)
 * whenever nothing else was sent to it for `joined.beatMs`. Carries nothing else, so that one
 * encoded frame serves every socket.
 */
export const relayBeatSchema = z.strictObject({
  beat: z.literal(true),
});

/** `hasOneText`, said to the type system. */
type OneText<T> = Omit<T, 'final' | 'interm'> &
  ({ final: string; interm?: never } | { interm: string; final?: never });

export type RelayRole = z.infer<typeof relayRoleSchema>;
export type RelayGapReason = z.infer<typeof relayGapReasonSchema>;
export type RelayCursor = z.infer<typeof relayCursorSchema>;
export type RelayDelivery = z.infer<typeof relayDeliverySchema>;
export type RelayJoin = z.infer<typeof relayJoinSchema>;
export type RelayJoined = z.infer<typeof relayJoinedSchema>;
export type RelayPublish = OneText<z.infer<typeof relayPublishSchema>>;
export type RelayCaptionFields = OneText<Omit<z.infer<typeof relayPublishSchema>, 'delivery'>>;
export type RelayAck = z.infer<typeof relayAckSchema>;
export type RelayCaption = OneText<z.infer<typeof relayCaptionSchema>>;
export type RelayGap = z.infer<typeof relayGapSchema>;
export type RelayBeat = z.infer<typeof relayBeatSchema>;

/** Frames the relay sends. */
export type RelayServerFrame = RelayJoined | RelayAck | RelayCaption | RelayGap | RelayBeat;
