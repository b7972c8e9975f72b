/**
 * How each node reads back every room's captions (the fan-out of the cluster engine in
 * redis-cluster.ts): with stream fan-out, one blocking XREAD over all the room streams; with
 * pub/sub, the messages the publish script sends (see cluster-scripts.ts).
 */
import type { Redis } from 'ioredis';
import { compareIds, parseEntry, roomKeys, type StoredCaption } from '../domain/cluster.js';
import type { StreamEntry } from './cluster-scripts.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The cluster's side of the stream fan-out: which rooms to read, from where, and where captions go. */
export interface RoomStreams {
  /** False once the cluster closes: the reads stop. */
  running(): boolean;
  /** The rooms to read now; none while the node is out of sync with Redis. */
  rooms(): readonly string[];
  /** Last entry id read per room, set once the room's snapshot is applied; the reads move it on. */
  readonly lastIds: Map<string, string>;
  deliver(room: string, captions: StoredCaption[]): void;
}

/** Stream fan-out: one blocking XREAD over every room's stream, from the last id read of each. */
export async function readRoomStreams(reader: Redis, prefix: string, streams: RoomStreams): Promise<void> {
  const { lastIds } = streams;
  const keyRoom = new Map<string, string>();
  while (streams.running()) {
    const rooms = streams.rooms().filter((room) => lastIds.has(room));
    if (rooms.length === 0) {
      await sleep(50);
      continue;
    }
    const keys = rooms.map((room) => {
      const key = roomKeys(prefix, room).log;
      keyRoom.set(key, room);
      return key;
    });
    try {
      const reply = (await reader.xread(
        'COUNT',
        1000,
        'BLOCK',
        1000,
        'STREAMS',
        ...keys,
        ...rooms.map((room) => lastIds.get(room)!),
      )) as [string, StreamEntry[]][] | null;
      for (const [key, entries] of reply ?? []) {
        const room = keyRoom.get(key);
        const lastId = entries.at(-1)?.[0];
        if (!room || !lastId) continue;
        const known = lastIds.get(room);
        // A snapshot taken meanwhile may already be further on.
        if (known !== undefined && compareIds(lastId, known) <= 0) continue;
        lastIds.set(room, lastId);
        const captions = entries.map(([id, fields]) => parseEntry(id, fields)).filter((c) => c !== undefined);
        streams.deliver(room, captions);
      }
    } catch {
      if (streams.running()) await sleep(100);
    }
  }
}

/** A pub/sub fan-out message, as the publish script sends it (cjson). */
type FanoutMessage = [
  room: string,
  epoch: string,
  sequence: number,
  id: string,
  delivery: string,
  body: string,
];

const FIELD_TYPES = ['string', 'string', 'number', 'string', 'string', 'string'] as const;

// A message handler that threw would take the node down: every field is checked, not assumed.
const isFanoutMessage = (value: unknown): value is FanoutMessage =>
  Array.isArray(value) &&
  value.length === FIELD_TYPES.length &&
  value.every((field, i) => typeof field === FIELD_TYPES[i]);

/** Pub/sub fan-out: the room and caption of one message; undefined when the message is not one. */
export function parseFanoutMessage(message: string): { room: string; caption: StoredCaption } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (!isFanoutMessage(parsed)) return undefined;
  const [room, epoch, sequence, id, delivery, body] = parsed;
  return { room, caption: { epoch, sequence, at: Number(id.split('-', 1)[0]), delivery, body } };
}
