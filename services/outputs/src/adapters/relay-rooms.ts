import { readFileSync } from 'node:fs';
import { parseRooms, type RoomTokens } from '../domain/rooms.js';

/** Reads the relay's private configuration for its rooms and tokens (SIGHUP reads it again). */
export function readRooms(path: string): Map<string, RoomTokens> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new Error(
      `${path}: cannot read it (${code}; run \`pnpm secrets:init\`, or set CAPTION_RELAY_CONFIG)`,
    );
  }
  return parseRooms(text, path);
}
