import {
  type RelayServerFrame,
  relayAckSchema,
  relayBeatSchema,
  relayCaptionSchema,
  relayGapSchema,
  relayJoinedSchema,
} from '@live-captions/protocol';

/**
 * Each server frame's schema, under the key that tells it apart (checked in this order: a
 * `joined` frame has a `gap` field too).
 */
const KINDS = [
  ['joined', relayJoinedSchema],
  ['ack', relayAckSchema],
  ['msg', relayCaptionSchema],
  ['gap', relayGapSchema],
  ['beat', relayBeatSchema],
] as const;

/** Frame kinds as the fault messages name them. */
const NAMES = { joined: 'joined', ack: 'ack', msg: 'caption', gap: 'gap', beat: 'beat' } as const;

export type ServerFrameCheck = { ok: true; frame: RelayServerFrame } | { ok: false; fault: string };

/**
 * Checks a frame from the relay against protocol 2's schemas (the ones the relay's own tests hold
 * its frames to). A frame of another shape means the relay misbehaves (another version, a fault
 * in the path): the fault names the frame and its first bad field, for the client's state event.
 */
export function checkServerFrame(data: unknown): ServerFrameCheck {
  if (typeof data !== 'string') return { ok: false, fault: 'Binary frame from the relay' };
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return { ok: false, fault: 'Relay frame is not JSON' };
  }
  const found = typeof value === 'object' && value !== null && KINDS.find(([key]) => key in value);
  if (!found) return { ok: false, fault: 'Unknown relay frame' };
  const [key, schema] = found;
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const where =
      issue.path.length > 0
        ? issue.path.join('.')
        : issue.code === 'unrecognized_keys'
          ? `unknown field ${issue.keys.join(', ')}`
          : 'the frame';
    return { ok: false, fault: `Malformed ${NAMES[key]} frame from the relay: ${where.slice(0, 80)}` };
  }
  // The caption schema's refinement is exactly RelayCaption's one of final or interm.
  return { ok: true, frame: result.data as RelayServerFrame };
}
