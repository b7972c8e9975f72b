import { readFileSync } from 'node:fs';
import { parseRelayRooms, type RelayRoomTokens } from '@live-captions/protocol';

/**
 * Reads the relay's private configuration (`relay.private.json`) for its rooms and tokens: what
 * a service that joins rooms by itself (outputs, stream sources) needs. Node only.
 */
export function readRelayRooms(path: string): Map<string, RelayRoomTokens> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new Error(
      `${path}: cannot read it (${code}; run \`pnpm secrets:init\`, or set CAPTION_RELAY_CONFIG)`,
    );
  }
  return parseRelayRooms(text, path);
}
