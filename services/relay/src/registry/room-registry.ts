import { createHash, randomBytes } from 'node:crypto';
import {
  CAPTION_ROOMS_MAX,
  type CaptionRoom,
  type CaptionRoomPatch,
  type CaptionRoomTokens,
  captionRoomIdFrom,
} from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import type { RoomsStore } from '../adapters/rooms-store.js';
import {
  captionRooms,
  freeId,
  idTaken,
  type RegistrySnapshot,
  type StoredCaptionRoom,
  servedRooms,
} from '../domain/caption-rooms.js';
import type { RelayConfig } from '../domain/relay-config.js';

/** 256 bits each, URL-safe (the relay's token rule: 32-128 of A-Z a-z 0-9 _ -). */
const newToken = () => randomBytes(32).toString('base64url');
const newTokens = (): CaptionRoomTokens => ({
  sourceRead: newToken(),
  sourceWrite: newToken(),
  outputRead: newToken(),
  outputWrite: newToken(),
});

/** Why a registry call was refused: the HTTP status and a message for the operator. */
export class RoomsError extends Error {
  constructor(
    readonly status: 404 | 409 | 503,
    message: string,
  ) {
    super(message);
    this.name = 'RoomsError';
  }
}

export interface RoomRegistryOptions {
  store: RoomsStore;
  /** The file's configuration (origins, limits, its rooms); replaced on SIGHUP with `setFile`. */
  file: RelayConfig;
  /** Applies the relay rooms served (the file's and the registry's) to this node. */
  apply: (config: RelayConfig) => void;
  logger: Logger;
  /** How often this node reads the registry's version: other nodes' changes arrive within it. */
  pollMs?: number;
  now?: () => number;
}

/**
 * The caption rooms of this relay node: the registry's rooms (durable, shared by every node
 * through the store) beside the file's. A change made here is applied at once; another node's
 * within a poll. While the store is unreachable the node keeps serving the rooms it has and the
 * API answers 503; nothing is lost, since a change is only acknowledged once stored.
 */
export class RoomRegistry {
  private snapshot: RegistrySnapshot = { version: -1, rooms: [], schedules: new Map() };
  private file: RelayConfig;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private reachable = true;
  /** What `list()` and `etag()` answer, made once per change: every service polls them each second. */
  private answer: { rooms: CaptionRoom[]; etag: string } | undefined;
  private readonly pollMs: number;
  private readonly now: () => number;
  private readonly log: Logger;

  constructor(private readonly options: RoomRegistryOptions) {
    this.file = options.file;
    this.pollMs = options.pollMs ?? 1000;
    this.now = options.now ?? Date.now;
    this.log = options.logger;
  }

  /** Reads the registry once (a failure is logged and retried by the poll), then polls. */
  async start(): Promise<void> {
    await this.refresh(true);
    this.timer = setInterval(() => {
      this.polling ??= this.refresh(false).finally(() => {
        this.polling = undefined;
      });
    }, this.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.polling;
  }

  /** The configuration file was read again (SIGHUP). */
  setFile(file: RelayConfig): void {
    this.file = file;
    this.applyServed();
  }

  /** Every caption room, the file's first. */
  list(): readonly CaptionRoom[] {
    return this.current().rooms;
  }

  get(id: string): CaptionRoom | undefined {
    return this.list().find((room) => room.id === id);
  }

  /** A version of what `list()` answers, the same on every node that holds the same rooms. */
  etag(): string {
    return this.current().etag;
  }

  private current(): { rooms: CaptionRoom[]; etag: string } {
    if (!this.answer) {
      const rooms = captionRooms(this.file.rooms, this.snapshot.rooms, this.snapshot.schedules);
      const digest = createHash('sha256').update(JSON.stringify(rooms)).digest('base64url');
      this.answer = { rooms, etag: `"${digest.slice(0, 27)}"` };
    }
    return this.answer;
  }

  get storeReachable(): boolean {
    return this.reachable;
  }

  async create(name: string, id: string | undefined): Promise<CaptionRoom> {
    await this.requireFresh();
    if (this.snapshot.rooms.length >= CAPTION_ROOMS_MAX)
      throw new RoomsError(409, `At most ${CAPTION_ROOMS_MAX} rooms: remove one first`);
    let chosen: string;
    if (id !== undefined) {
      const taken = idTaken(id, this.file.rooms, this.snapshot.rooms);
      if (taken) throw new RoomsError(409, taken);
      chosen = id;
    } else {
      chosen = freeId(captionRoomIdFrom(name), this.file.rooms, this.snapshot.rooms);
    }
    const at = this.now();
    const room: StoredCaptionRoom = { id: chosen, name, tokens: newTokens(), createdAt: at, updatedAt: at };
    const created = await this.write(() => this.options.store.create(room));
    if (!created) throw new RoomsError(409, `A room with id "${chosen}" exists`);
    this.log.info({ room: chosen }, 'caption room created');
    return this.get(chosen)!;
  }

  /**
   * A `PATCH /rooms/:id`: the name (rooms of the API only), then the venue binding, then the hold
   * (which needs a binding: it is the hand over the schedule). Each part is stored on its own, in
   * that order, so a refused hold leaves an accepted name stored.
   */
  async patch(id: string, patch: CaptionRoomPatch): Promise<CaptionRoom> {
    if (patch.name !== undefined) await this.rename(id, patch.name);
    const room = this.get(id);
    if (!room) throw new RoomsError(404, `No room "${id}"`);
    const at = this.now();
    if (patch.schedule !== undefined) {
      const schedule = patch.schedule;
      await this.write(() => this.options.store.bind(id, schedule, at));
      this.log.info(
        { room: id, venue: schedule?.venue ?? null },
        schedule ? 'caption room bound to a venue' : 'caption room unbound',
      );
    }
    if (patch.hold !== undefined) {
      if (!this.get(id)?.schedule)
        throw new RoomsError(409, `Room "${id}" has no venue: bind it to one (schedule) before holding it`);
      const hold = patch.hold;
      if (!(await this.write(() => this.options.store.hold(id, hold, at))))
        throw new RoomsError(409, `Room "${id}" has no venue: bind it to one (schedule) before holding it`);
      this.log.info({ room: id, hold }, hold ? `caption room held ${hold}` : 'caption room hold released');
    }
    return this.get(id)!;
  }

  async rename(id: string, name: string): Promise<CaptionRoom> {
    this.requireRegistryRoom(id);
    if (!(await this.write(() => this.options.store.rename(id, name, this.now()))))
      throw new RoomsError(404, `No room "${id}"`);
    this.log.info({ room: id }, 'caption room renamed');
    return this.get(id)!;
  }

  /** New tokens for all four roles: sockets holding an old one are closed `Token changed`. */
  async rotate(id: string): Promise<CaptionRoom> {
    this.requireRegistryRoom(id);
    if (!(await this.write(() => this.options.store.rotate(id, newTokens(), this.now()))))
      throw new RoomsError(404, `No room "${id}"`);
    this.log.info({ room: id }, 'caption room tokens rotated');
    return this.get(id)!;
  }

  /** Removes a room: its sockets are closed `Room removed`, its relay history dropped. */
  async remove(id: string): Promise<void> {
    this.requireRegistryRoom(id);
    if (!(await this.write(() => this.options.store.remove(id))))
      throw new RoomsError(404, `No room "${id}"`);
    this.log.info({ room: id }, 'caption room removed');
  }

  private requireRegistryRoom(id: string): void {
    const room = this.get(id);
    if (!room) throw new RoomsError(404, `No room "${id}"`);
    if (room.kind === 'file')
      throw new RoomsError(
        409,
        `Room "${id}" is defined in the relay's configuration file: change it there and send the relay SIGHUP`,
      );
  }

  /** Before a check against the rooms held (a free id, the cap): read them again if they moved. */
  private async requireFresh(): Promise<void> {
    await this.write(async () => true);
  }

  /** Runs a store call, then applies what the store holds now; an outage is a 503. */
  private async write<T>(call: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await call();
      await this.refresh(false, true);
    } catch (error) {
      if (error instanceof RoomsError) throw error;
      this.markReachable(false, error);
      throw new RoomsError(503, 'Room storage unavailable, try again');
    }
    return result;
  }

  /** Reads the version, and the rooms when it moved; applies them. `rethrow` for API calls. */
  private async refresh(first: boolean, rethrow = false): Promise<void> {
    try {
      const store = this.options.store;
      if (!first && (await store.version()) === this.snapshot.version) {
        this.markReachable(true);
        return;
      }
      const next = await store.snapshot();
      this.markReachable(true);
      if (next.version === this.snapshot.version) return;
      this.snapshot = next;
      this.applyServed();
    } catch (error) {
      this.markReachable(false, error);
      if (first) this.applyServed();
      if (rethrow) throw error;
    }
  }

  private applyServed(): void {
    this.answer = undefined;
    this.options.apply({ ...this.file, rooms: servedRooms(this.file.rooms, this.snapshot.rooms) });
  }

  /** One log line per change of reachability, not per failed poll. */
  private markReachable(reachable: boolean, error?: unknown): void {
    if (this.reachable === reachable) return;
    this.reachable = reachable;
    if (reachable) this.log.info({ rooms: this.snapshot.rooms.length }, 'room storage reachable again');
    else
      this.log.warn(
        {
          code: (error as { code?: string } | undefined)?.code ?? 'unknown',
          rooms: this.snapshot.rooms.length,
        },
        'room storage unreachable: serving the rooms held',
      );
  }
}
