/**
 * The relay's caption rooms: the pairs of its configuration file and the rooms of its registry
 * (made through `/rooms`), and the one map of relay rooms and tokens they make together.
 */
import {
  type CaptionRoom,
  type CaptionRoomSchedule,
  type CaptionRoomTokens,
  outputRoomOf,
} from '@live-captions/protocol';
import type { RoomTokens } from './relay-config.js';

/** A caption room as the registry stores it. */
export interface StoredCaptionRoom {
  id: string;
  name: string;
  tokens: CaptionRoomTokens;
  createdAt: number;
  updatedAt: number;
}

/** The registry at one version: what every relay node applies and `GET /rooms` answers. */
export interface RegistrySnapshot {
  version: number;
  rooms: readonly StoredCaptionRoom[];
  /** Venue bindings by room id (a room of the file's included). */
  schedules: ReadonlyMap<string, CaptionRoomSchedule>;
}

const NO_SCHEDULES: ReadonlyMap<string, CaptionRoomSchedule> = new Map();

/**
 * The caption rooms of the file: each room `X` whose `X-output` is in the file too (what
 * `pnpm secrets:init` writes: `captions` and `captions-output`), named after `X`.
 */
export function fileCaptionRooms(
  file: ReadonlyMap<string, RoomTokens>,
  schedules: ReadonlyMap<string, CaptionRoomSchedule> = NO_SCHEDULES,
): CaptionRoom[] {
  const rooms: CaptionRoom[] = [];
  for (const [name, source] of file) {
    const output = file.get(outputRoomOf(name));
    if (!output) continue;
    rooms.push({
      id: name,
      name,
      sourceRoom: name,
      outputRoom: outputRoomOf(name),
      kind: 'file',
      tokens: {
        sourceRead: source.read,
        sourceWrite: source.write,
        outputRead: output.read,
        outputWrite: output.write,
      },
      createdAt: null,
      updatedAt: null,
      schedule: scheduleOf(schedules, name),
    });
  }
  return rooms;
}

const scheduleOf = (schedules: ReadonlyMap<string, CaptionRoomSchedule>, id: string) => {
  const schedule = schedules.get(id);
  return schedule ? { ...schedule } : null;
};

export function registryCaptionRoom(
  room: StoredCaptionRoom,
  schedules: ReadonlyMap<string, CaptionRoomSchedule> = NO_SCHEDULES,
): CaptionRoom {
  return {
    id: room.id,
    name: room.name,
    sourceRoom: room.id,
    outputRoom: outputRoomOf(room.id),
    kind: 'api',
    tokens: { ...room.tokens },
    createdAt: new Date(room.createdAt).toISOString(),
    updatedAt: new Date(room.updatedAt).toISOString(),
    schedule: scheduleOf(schedules, room.id),
  };
}

/** Every caption room, the file's first (in file order), then the registry's by creation. */
export function captionRooms(
  file: ReadonlyMap<string, RoomTokens>,
  registry: readonly StoredCaptionRoom[],
  schedules: ReadonlyMap<string, CaptionRoomSchedule> = NO_SCHEDULES,
): CaptionRoom[] {
  const fromFile = fileCaptionRooms(file, schedules);
  const taken = new Set(fromFile.map((room) => room.id));
  const made = [...registry]
    .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))
    .filter((room) => !taken.has(room.id) && !file.has(room.id) && !file.has(outputRoomOf(room.id)))
    .map((room) => registryCaptionRoom(room, schedules));
  return [...fromFile, ...made];
}

/**
 * The relay rooms served: the file's, and each registry room's source and output room. A name
 * the file already has stays the file's (the registry refuses such ids; this holds even if the
 * file gained one later).
 */
export function servedRooms(
  file: ReadonlyMap<string, RoomTokens>,
  registry: readonly StoredCaptionRoom[],
): Map<string, RoomTokens> {
  const rooms = new Map(file);
  for (const room of registry) {
    const output = outputRoomOf(room.id);
    if (rooms.has(room.id) || rooms.has(output)) continue;
    rooms.set(room.id, { read: room.tokens.sourceRead, write: room.tokens.sourceWrite });
    rooms.set(output, { read: room.tokens.outputRead, write: room.tokens.outputWrite });
  }
  return rooms;
}

/** Why a new room cannot take `id`, or undefined. */
export function idTaken(
  id: string,
  file: ReadonlyMap<string, RoomTokens>,
  registry: readonly StoredCaptionRoom[],
): string | undefined {
  if (registry.some((room) => room.id === id)) return `A room with id "${id}" exists`;
  if (file.has(id) || file.has(outputRoomOf(id)))
    return `The relay's configuration file already has a room "${file.has(id) ? id : outputRoomOf(id)}"`;
  return undefined;
}

/**
 * A free id for a name's slug: the slug itself, else the slug with `-2`, `-3`, ... (two rooms
 * called "Workshop" get `workshop` and `workshop-2`).
 */
export function freeId(
  slug: string,
  file: ReadonlyMap<string, RoomTokens>,
  registry: readonly StoredCaptionRoom[],
): string {
  if (!idTaken(slug, file, registry)) return slug;
  for (let n = 2; ; n += 1) {
    const suffix = `-${n}`;
    const candidate = `${slug.slice(0, 48 - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!idTaken(candidate, file, registry)) return candidate;
  }
}
