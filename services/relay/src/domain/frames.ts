import {
  RELAY_DELIVERY_CLIENT,
  RELAY_ID_MAX,
  RELAY_LABEL_MAX,
  RELAY_LN_MAX,
  RELAY_PROTOCOL,
  RELAY_TEXT_MAX,
  type RelayCaptionFields,
  RelayCloseCode,
  type RelayCursor,
  type RelayDelivery,
  type RelayJoin,
} from '@live-captions/protocol';

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

const policy = (reason: string) => new FrameError(RelayCloseCode.policyViolation, reason);

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKeys(value: Json, allowed: ReadonlySet<string>, what: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) throw policy(`Unknown ${what} field: ${key.slice(0, 40)}`);
  }
}

const isCount = (value: unknown, min: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min;

/** Parses a JSON frame into text -> value; throws 1007 for anything that is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new FrameError(RelayCloseCode.invalidPayload, 'Invalid JSON');
  }
}

const JOIN_KEYS = new Set(['protocol', 'join', 'role', 'token', 'cursor']);

/** Validates the first frame of a socket. */
export function parseJoin(value: unknown): RelayJoin {
  if (!isObject(value) || typeof value.join !== 'string') throw policy('Join first');
  onlyKeys(value, JOIN_KEYS, 'join');
  if (value.protocol !== RELAY_PROTOCOL) throw policy(`Unsupported protocol (expected ${RELAY_PROTOCOL})`);
  if (value.role !== 'read' && value.role !== 'write') throw policy('role must be "read" or "write"');
  if (typeof value.token !== 'string') throw policy('token must be a string');
  const join: RelayJoin = {
    protocol: RELAY_PROTOCOL,
    join: value.join,
    role: value.role,
    token: value.token,
  };
  if (value.cursor !== undefined) join.cursor = parseCursor(value.cursor);
  return join;
}

function parseCursor(value: unknown): RelayCursor {
  if (
    !isObject(value) ||
    Object.keys(value).length !== 2 ||
    typeof value.epoch !== 'string' ||
    value.epoch.length > 64 ||
    !isCount(value.sequence, 0)
  ) {
    throw policy('cursor must be {epoch, sequence}');
  }
  return { epoch: value.epoch, sequence: value.sequence };
}

const PUBLISH_KEYS = new Set(['msg', 'final', 'interm', 'id', 'label', 'ln', 'c', 'delivery']);

/** A validated publish: its delivery identity and the caption's canonical JSON. */
export interface ParsedPublish {
  delivery: RelayDelivery;
  /** The caption fields as JSON in a fixed order: what readers get, minus `relay`; compared for duplicates. */
  body: string;
}

function optionalText(value: Json, key: string, max: number): string | undefined {
  const field = value[key];
  if (field === undefined) return undefined;
  if (typeof field !== 'string' || field.length > max)
    throw policy(`${key} must be a string of at most ${max}`);
  return field;
}

/** Validates a caption from a write socket. */
export function parsePublish(value: unknown): ParsedPublish {
  if (!isObject(value)) throw policy('Expected a caption object');
  onlyKeys(value, PUBLISH_KEYS, 'caption');
  if (value.msg !== true) throw policy('msg must be true');
  const hasFinal = value.final !== undefined;
  if (hasFinal === (value.interm !== undefined)) throw policy('Exactly one of final or interm');
  const textKey = hasFinal ? 'final' : 'interm';
  const text = optionalText(value, textKey, RELAY_TEXT_MAX)!;
  const id = value.id;
  if (!(Number.isSafeInteger(id) || (typeof id === 'string' && id.length <= RELAY_ID_MAX))) {
    throw policy(`id must be an integer or a string of at most ${RELAY_ID_MAX}`);
  }
  const label = optionalText(value, 'label', RELAY_LABEL_MAX);
  const ln = optionalText(value, 'ln', RELAY_LN_MAX);
  if (value.c !== undefined && typeof value.c !== 'boolean') throw policy('c must be true or false');
  const delivery = value.delivery;
  if (
    !isObject(delivery) ||
    Object.keys(delivery).length !== 2 ||
    typeof delivery.client !== 'string' ||
    !RELAY_DELIVERY_CLIENT.test(delivery.client) ||
    !isCount(delivery.sequence, 1)
  ) {
    throw policy('delivery must be {client: [A-Za-z0-9_-]{16,128}, sequence >= 1}');
  }
  const caption = {
    msg: true,
    [textKey]: text,
    id: id as number | string,
    label,
    ln,
    c: value.c as boolean | undefined,
  } as RelayCaptionFields;
  return {
    delivery: { client: delivery.client, sequence: delivery.sequence },
    body: JSON.stringify(caption),
  };
}

/** The frame readers get: the caption body with its room position appended. */
export function captionFrame(body: string, epoch: string, sequence: number): string {
  return `${body.slice(0, -1)},"relay":{"epoch":${JSON.stringify(epoch)},"sequence":${sequence}}}`;
}
