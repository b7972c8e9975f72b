import {
  captionTextFault,
  RELAY_DELIVERY_CLIENT,
  RELAY_ID_MAX,
  RELAY_LABEL_MAX,
  RELAY_LN_MAX,
  RELAY_PROTOCOL,
  RELAY_TEXT_MAX,
  RelayCloseCode,
  type RelayDelivery,
  type RelayJoin,
  relayJoinSchema,
  relayPublishSchema,
} from '@live-captions/protocol';
import type { z } from 'zod';

/** A frame the relay refuses; the socket is closed with `code` and `reason`. */
export class FrameError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'FrameError';
  }
}

/** Parses a JSON frame into text -> value; throws 1007 for anything that is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new FrameError(RelayCloseCode.invalidPayload, 'Invalid JSON');
  }
}

/** The frame as a whole (not an object; for a join, also a `join` that is not a string). */
const FRAME = '';
/** A key the frame may not have: the reason is this prefix and the key. */
const UNKNOWN = '*';

/**
 * The close reason of each fault a schema can find, keyed by the field it is in, in the order
 * the relay has always checked them: of several faults, the first one here names the frame.
 */
type Reasons<Fields extends string> = Record<Fields | typeof FRAME | typeof UNKNOWN, string>;

const JOIN_REASONS: Reasons<keyof typeof relayJoinSchema.shape> = {
  [FRAME]: 'Join first',
  join: 'Join first',
  [UNKNOWN]: 'Unknown join field: ',
  protocol: `Unsupported protocol (expected ${RELAY_PROTOCOL})`,
  role: 'role must be "read" or "write"',
  token: 'token must be a string',
  cursor: 'cursor must be {epoch, sequence}',
  beat: 'beat must be true',
  replayMs: 'replayMs must be a whole number of milliseconds',
  deliveries: 'deliveries must be true',
};

const PUBLISH_REASONS: Reasons<keyof typeof relayPublishSchema.shape | 'text'> = {
  [FRAME]: 'Expected a caption object',
  [UNKNOWN]: 'Unknown caption field: ',
  msg: 'msg must be true',
  text: 'Exactly one of final or interm',
  final: `final must be a string of at most ${RELAY_TEXT_MAX}`,
  interm: `interm must be a string of at most ${RELAY_TEXT_MAX}`,
  id: `id must be an integer or a string of at most ${RELAY_ID_MAX}`,
  label: `label must be a string of at most ${RELAY_LABEL_MAX}`,
  ln: `ln must be a string of at most ${RELAY_LN_MAX}`,
  c: 'c must be true or false',
  trimmed: 'trimmed must be true or false',
  delivery: 'delivery must be {client: [A-Za-z0-9_-]{16,128}, sequence >= 1}',
};

/** Fields that keep the caption text rule (`@live-captions/protocol` caption-text.ts). */
const RULED = new Set(['final', 'interm', 'id', 'label', 'ln']);

/**
 * The reason for a field that breaks the caption text rule: the field, the character and where,
 * so that a publisher can find it (at most 123 bytes, the limit of a close reason).
 */
function ruleReason(field: string, value: unknown): string | undefined {
  const fault = typeof value === 'string' ? captionTextFault(value) : undefined;
  if (!fault) return undefined;
  return `${field} has ${fault.codePoint} at ${fault.index}: control characters (but tab and line breaks), lone surrogates and noncharacters are refused`;
}

/** The 1008 refusal for the first of a frame's faults, in the order of `reasons`. */
function refusal(
  issues: readonly z.core.$ZodIssue[],
  reasons: Record<string, string>,
  value?: unknown,
): FrameError {
  const order = Object.keys(reasons);
  let first: { rank: number; slot: string; issue: z.core.$ZodIssue } | undefined;
  for (const issue of issues) {
    const field = issue.path[0];
    const slot = field !== undefined ? String(field) : issue.code === 'unrecognized_keys' ? UNKNOWN : FRAME;
    const rank = order.indexOf(slot);
    if (rank !== -1 && (!first || rank < first.rank)) first = { rank, slot, issue };
  }
  let reason = reasons[first?.slot ?? FRAME]!;
  if (first?.slot === UNKNOWN && first.issue.code === 'unrecognized_keys')
    reason += first.issue.keys[0]!.slice(0, 40);
  // A union (`id`) reports its members' faults as one: the rule is checked on the value itself.
  if (first && RULED.has(first.slot))
    reason = ruleReason(first.slot, (value as Record<string, unknown>)[first.slot]) ?? reason;
  return new FrameError(RelayCloseCode.policyViolation, reason);
}

/** Validates the first frame of a socket. */
export function parseJoin(value: unknown): RelayJoin {
  const result = relayJoinSchema.safeParse(value);
  if (!result.success) throw refusal(result.error.issues, JOIN_REASONS);
  return result.data;
}

/** A validated publish: its delivery identity and the caption's canonical JSON. */
export interface ParsedPublish {
  delivery: RelayDelivery;
  /** The caption fields as JSON in a fixed order: what readers get, minus `relay`; compared for duplicates. */
  body: string;
}

/** Validates a caption from a write socket. */
export function parsePublish(value: unknown): ParsedPublish {
  const result = relayPublishSchema.safeParse(value);
  if (!result.success) throw refusal(result.error.issues, PUBLISH_REASONS, value);
  const { msg, final, interm, id, label, ln, c, trimmed, delivery } = result.data;
  const caption =
    final !== undefined
      ? { msg, final, id, label, ln, c, trimmed }
      : { msg, interm, id, label, ln, c, trimmed };
  return { delivery, body: JSON.stringify(caption) };
}

/**
 * The frame readers get: the caption body with its room position and the time the relay took it
 * appended (`at`, ms since 1970), so that a reader that reads it late (after an outage, from the
 * history) still knows when it was said.
 */
export function captionFrame(body: string, epoch: string, sequence: number, at: number): string {
  return `${body.slice(0, -1)},"relay":{"epoch":${JSON.stringify(epoch)},"sequence":${sequence}},"at":${at}}`;
}

const RELAY_FIELD = Buffer.from(',"relay":');

/**
 * A retained caption's frame for a reader that asked for deliveries (`join.deliveries`): the
 * frame with the publish's identity (`client:sequence`) appended. Made per send, since only a
 * few readers (the outputs service) ask; the audience's frames stay the one shared encoding.
 */
export function frameWithDelivery(frame: Buffer, delivery: string): Buffer {
  const cut = delivery.lastIndexOf(':');
  const client = delivery.slice(0, cut);
  const sequence = Number(delivery.slice(cut + 1));
  // A cluster entry written otherwise (an older relay, by hand) may have none or a malformed one:
  // the frame goes as it is, since readers refuse a frame whose delivery breaks the schema.
  if (!RELAY_DELIVERY_CLIENT.test(client) || !Number.isSafeInteger(sequence) || sequence < 1) return frame;
  const field = `,"delivery":{"client":${JSON.stringify(client)},"sequence":${sequence}}}`;
  return Buffer.concat([frame.subarray(0, frame.length - 1), Buffer.from(field)]);
}

/**
 * Whether `frame` (a `captionFrame`) carries the caption body `body`: the body's bytes up to its
 * last brace, then the relay's own field (a publish cannot carry `relay`, so a body with fewer
 * fields than the frame's is no match).
 */
export function frameHasBody(frame: Buffer, body: string): boolean {
  const bytes = Buffer.from(body);
  const end = bytes.length - 1;
  return (
    frame.length >= end + RELAY_FIELD.length &&
    frame.compare(bytes, 0, end, 0, end) === 0 &&
    frame.compare(RELAY_FIELD, 0, RELAY_FIELD.length, end, end + RELAY_FIELD.length) === 0
  );
}
