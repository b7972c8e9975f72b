// Kept apart from caption-rooms.ts (its zod schemas): the hub's pages use this mapping, and a
// browser bundle must not pull in zod's classic API (see relay-frames.ts).
import type { CaptionRoom } from './caption-rooms.js';

/**
 * A caption room's relay rooms and tokens under the names the pages' links and `RelaySettings`
 * use: one mapping for the gateway's `/relay-config?room=` and the hub's room links.
 */
export function roomPairOf(room: Pick<CaptionRoom, 'sourceRoom' | 'outputRoom' | 'tokens'>): {
  sourceRoom: string;
  outputRoom: string;
  sourceReadToken: string;
  sourceWriteToken: string;
  outputReadToken: string;
  outputWriteToken: string;
} {
  return {
    sourceRoom: room.sourceRoom,
    outputRoom: room.outputRoom,
    sourceReadToken: room.tokens.sourceRead,
    sourceWriteToken: room.tokens.sourceWrite,
    outputReadToken: room.tokens.outputRead,
    outputWriteToken: room.tokens.outputWrite,
  };
}
