/**
 * Client events of OpenAI's Realtime API that a transcription session takes, read and checked
 * into typed values, and the server's `error` events (OpenAI's error object: type, code,
 * message, param, event_id). Every problem with an event is answered, never a silent drop.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { issueWording } from './issue-wording.js';
import { betaSession, gaSession } from './settings.js';

export type ClientEvent =
  | { type: 'session.update'; eventId: string | null; session: z.infer<typeof gaSession> }
  | { type: 'transcription_session.update'; eventId: string | null; session: z.infer<typeof betaSession> }
  | { type: 'input_audio_buffer.append'; eventId: string | null; audio: Buffer }
  | { type: 'input_audio_buffer.commit'; eventId: string | null }
  | { type: 'input_audio_buffer.clear'; eventId: string | null };

export interface RealtimeProblem {
  type: 'invalid_request_error' | 'server_error' | 'rate_limit_error';
  code: string;
  message: string;
  param: string | null;
  eventId: string | null;
}

export const problem = (
  code: string,
  message: string,
  options: { param?: string | null; eventId?: string | null; type?: RealtimeProblem['type'] } = {},
): RealtimeProblem => ({
  type: options.type ?? 'invalid_request_error',
  code,
  message,
  param: options.param ?? null,
  eventId: options.eventId ?? null,
});

/** OpenAI-style ids: a prefix and random characters. */
export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url')}`;

/** Strict base64 (the alphabet, padding at the end only): anything else is refused, not guessed. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const eventId = z.string().max(512).optional();
const envelope = z.looseObject({ type: z.string(), event_id: eventId });
const schemas = {
  'session.update': z.looseObject({ event_id: eventId, session: gaSession }),
  'transcription_session.update': z.looseObject({ event_id: eventId, session: betaSession }),
  'input_audio_buffer.append': z.looseObject({ event_id: eventId, audio: z.string() }),
  'input_audio_buffer.commit': z.looseObject({ event_id: eventId }),
  'input_audio_buffer.clear': z.looseObject({ event_id: eventId }),
} as const;

type KnownType = keyof typeof schemas;
const isKnown = (type: string): type is KnownType => Object.hasOwn(schemas, type);

function describe(issue: z.core.$ZodIssue): { param: string; message: string } {
  const param = issue.path.map(String).join('.');
  return { param, message: `Invalid value for '${param}': ${issue.message}` };
}

/** One WebSocket text message to an event, or the problem to answer with. */
export function parseClientEvent(text: string): ClientEvent | RealtimeProblem {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return problem('invalid_json', 'The event is not valid JSON');
  }
  const head = envelope.safeParse(raw);
  if (!head.success) {
    return problem('invalid_event', "The event must be a JSON object with a string 'type'", {
      param: 'type',
    });
  }
  const id = head.data.event_id ?? null;
  const type = head.data.type;
  if (!isKnown(type)) {
    return problem('unknown_event', `Unsupported event type '${type}' on a transcription session`, {
      param: 'type',
      eventId: id,
    });
  }
  const parsed = schemas[type].safeParse(raw, { error: issueWording });
  if (!parsed.success) {
    const first = describe(parsed.error.issues[0]!);
    return problem('invalid_value', first.message, { param: first.param, eventId: id });
  }
  const data = parsed.data as Record<string, unknown>;
  if (type === 'input_audio_buffer.append') {
    const audio = data.audio as string;
    if (!BASE64.test(audio)) {
      return problem('invalid_audio', 'audio must be base64-encoded', { param: 'audio', eventId: id });
    }
    return { type, eventId: id, audio: Buffer.from(audio, 'base64') };
  }
  if (type === 'session.update' || type === 'transcription_session.update') {
    return { type, eventId: id, session: data.session } as ClientEvent;
  }
  return { type, eventId: id };
}

export const isProblem = (value: ClientEvent | RealtimeProblem): value is RealtimeProblem => 'code' in value;

/** The `error` server event. */
export const errorEvent = (value: RealtimeProblem) => ({
  type: 'error',
  error: {
    type: value.type,
    code: value.code,
    message: value.message,
    param: value.param,
    event_id: value.eventId,
  },
});
