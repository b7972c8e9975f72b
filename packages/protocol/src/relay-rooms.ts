/**
 * The rooms and tokens of the relay's private configuration (`relay.private.json`), read by the
 * services that join rooms on their own (outputs, stream sources): only the fields they need, so
 * that the relay's own settings (limits, origins) never stop them.
 */
import { z } from 'zod';
import { RELAY_ROOM_NAME, RELAY_TOKEN } from './relay.js';

export interface RelayRoomTokens {
  read: string;
  write: string;
}

const fileSchema = z.object({
  rooms: z.record(
    z.string().regex(RELAY_ROOM_NAME, { message: 'room names must be 1-128 characters of A-Z a-z 0-9 _ -' }),
    z.object({ read: z.string().regex(RELAY_TOKEN), write: z.string().regex(RELAY_TOKEN) }),
  ),
});

/** Parses the file's JSON text; throws an Error naming the file and the field (never a token). */
export function parseRelayRooms(text: string, source: string): Map<string, RelayRoomTokens> {
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    throw new Error(`${source}: not valid JSON`);
  }
  const result = fileSchema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new Error(`${source}: ${issue?.path.join('.') || '(file)'}: ${issue?.message ?? 'invalid'}`);
  }
  return new Map(Object.entries(result.data.rooms));
}
