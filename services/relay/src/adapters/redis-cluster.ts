import { randomBytes } from 'node:crypto';
import { FAIL_FAST, settleWithin, watchConnection } from '@live-captions/redis';
import type { Logger } from '@live-captions/runtime';
import { Redis } from 'ioredis';
import { parseEntry, type RoomSnapshot, roomKeys, type StoredCaption } from '../domain/cluster.js';
import type { RelayLimits } from '../domain/limits.js';
import type { Hub } from '../hub/hub.js';
import type { ClusterEngine, ClusterPublish } from '../hub/types.js';
import { parseFanoutMessage, readRoomStreams } from './cluster-fanout.js';
import { type ClusterCommands, PUBLISH, SNAPSHOT } from './cluster-scripts.js';

/** How captions reach every node: blocking reads of the room streams, or pub/sub. */
export type FanoutMode = 'stream' | 'pubsub';

export interface RedisClusterOptions {
  url: string;
  /** Key prefix (RELAY_REDIS_PREFIX). */
  prefix: string;
  fanout: FanoutMode;
  hub: Hub;
  /** The current limits (they change on reload). */
  limits: () => RelayLimits;
  logger: Logger;
}

/** Redis state for /health and /metrics. */
export type RedisState = 'up' | 'down';

const newEpoch = () => randomBytes(9).toString('base64url');

/**
 * The stream keeps this many times `replayMessages` (still at most `replayMs` old): a node that
 * falls behind for a moment (a long GC pause, a starved CPU) reads the captions it missed instead of
 * finding them trimmed and telling its readers a gap. What readers get is capped by each node's
 * history at `replayMessages`, as on a single relay.
 */
export const STREAM_SLACK = 4;

/**
 * The relay's cluster engine on Redis: per room the epoch and sequence, the history as a capped
 * stream, delivery identities with a TTL; every node reads every room's captions back (blocking
 * stream reads or pub/sub) into its own history, from which it serves its readers. While Redis is
 * away the node takes no sockets (the hub closes them with 1013); once it is back, every room's
 * state is read again and the node takes sockets again.
 */
export class RedisCluster implements ClusterEngine {
  /** Scripts and snapshots; fail fast so that a publish during an outage is refused at once. */
  private readonly commands: Redis & ClusterCommands;
  /** The fan-out: blocking XREAD, or the pub/sub subscription. */
  private readonly reader: Redis;
  private readonly channel: string;
  private readonly commandsLink;
  private readonly readerLink;
  private rooms: string[] = [];
  /** Stream: last entry id read per room (set once the room's snapshot is applied). */
  private readonly lastIds = new Map<string, string>();
  /** Epoch per room as last seen, to notice a Redis that lost its data. */
  private readonly epochs = new Map<string, string>();
  /** Pub/sub: captions that came while their room's snapshot was on its way. */
  private readonly held = new Map<string, StoredCaption[]>();
  private running = true;
  private synced = false;
  private everSynced = false;
  private syncing = false;
  /** Counts link losses: a sync that saw one happen meanwhile is not trusted. */
  private losses = 0;
  private watchdog?: NodeJS.Timeout;

  constructor(private readonly options: RedisClusterOptions) {
    const { url, logger } = options;
    this.channel = `${options.prefix}fanout`;
    this.commands = new Redis(url, { ...FAIL_FAST, lazyConnect: true }) as Redis & ClusterCommands;
    this.commands.defineCommand('relayPublish', { numberOfKeys: 5, lua: PUBLISH });
    this.commands.defineCommand('relaySnapshot', { numberOfKeys: 4, lua: SNAPSHOT });
    this.reader = new Redis(url, { ...FAIL_FAST, lazyConnect: true });
    const onChange = () => this.onLinkChange();
    this.commandsLink = watchConnection(this.commands, { logger, name: 'relay-commands', onChange });
    this.readerLink = watchConnection(this.reader, {
      logger,
      name: `relay-fanout-${options.fanout}`,
      onChange,
    });
    this.commands.on('ready', onChange);
    this.reader.on('ready', onChange);
  }

  get state(): RedisState {
    return this.synced && this.commandsLink.up && this.readerLink.up ? 'up' : 'down';
  }

  /** Connects and keeps going: an unreachable Redis at start is retried like an outage. */
  start(): void {
    this.commands.connect().catch(() => {});
    this.reader.connect().catch(() => {});
    if (this.options.fanout === 'pubsub') {
      this.reader.on('message', (_channel: string, message: string) => this.onMessage(message));
    } else {
      void readRoomStreams(this.reader, this.options.prefix, {
        running: () => this.running,
        rooms: () => (this.synced ? this.rooms : []),
        lastIds: this.lastIds,
        deliver: (room, captions) => this.deliver(room, captions),
      });
    }
    // Notices a Redis that lost its data while no caption was published (new epoch), and heals a
    // room whose snapshot failed.
    this.watchdog = setInterval(() => void this.checkEpochs(), 1000);
    this.watchdog.unref();
    // The connection watcher speaks from the first `ready` on; a Redis that is away from the
    // start gets this one line instead of silence.
    setTimeout(() => {
      if (this.running && !this.everSynced)
        this.options.logger.warn(
          { reason: this.commandsLink.reason ?? this.readerLink.reason ?? 'not connected yet' },
          'relay cluster waiting for redis; refusing sockets until it answers',
        );
    }, 3000).unref();
  }

  setRooms(rooms: readonly string[]): void {
    const known = new Set(rooms);
    for (const room of this.lastIds.keys()) if (!known.has(room)) this.lastIds.delete(room);
    for (const room of this.epochs.keys()) if (!known.has(room)) this.epochs.delete(room);
    const added = rooms.filter((room) => !this.epochs.has(room));
    this.rooms = [...rooms];
    if (this.synced) for (const room of added) void this.syncRoom(room).catch(() => {});
  }

  async publish(room: string, delivery: string, body: string): Promise<ClusterPublish> {
    const keys = roomKeys(this.options.prefix, room);
    const limits = this.options.limits();
    const [outcome, epoch, sequence] = await this.commands.relayPublish(
      keys.epoch,
      keys.sequence,
      keys.log,
      keys.bytes,
      keys.delivery(delivery),
      newEpoch(),
      body,
      String(limits.replayMessages * STREAM_SLACK),
      String(limits.replayMs),
      this.options.fanout === 'pubsub' ? this.channel : '',
      room,
      delivery,
      String(limits.replayRoomBytes),
    );
    if (outcome === 'conflict') return { outcome };
    return { outcome: outcome === 'duplicate' ? 'duplicate' : 'new', epoch, sequence: Number(sequence) };
  }

  async position(room: string): Promise<{ epoch: string; last: number }> {
    const keys = roomKeys(this.options.prefix, room);
    const [epoch, last] = await this.commands.mget(keys.epoch, keys.sequence);
    return { epoch: epoch ?? '', last: Number(last ?? 0) };
  }

  async close(): Promise<void> {
    this.running = false;
    clearInterval(this.watchdog);
    // The fan-out connection may sit in a blocking read: drop it rather than wait for the read.
    this.reader.disconnect();
    await settleWithin(this.commands.quit(), 1000);
    this.commands.disconnect();
  }

  private onLinkChange(): void {
    if (!this.running) return;
    if (!this.commandsLink.up || !this.readerLink.up) {
      if (this.synced || this.syncing) this.losses += 1;
      this.synced = false;
      this.options.hub.setAvailable(false);
      return;
    }
    void this.syncAll();
  }

  /** Reads every room's state again, then takes sockets again. Retried until it succeeds. */
  private async syncAll(): Promise<void> {
    if (this.syncing || this.synced) return;
    this.syncing = true;
    const losses = this.losses;
    try {
      if (this.options.fanout === 'pubsub') await this.reader.subscribe(this.channel);
      for (const room of this.rooms) await this.syncRoom(room);
      if (losses !== this.losses || !this.commandsLink.up || !this.readerLink.up)
        throw new Error('connection lost during the sync');
      this.synced = true;
      this.everSynced = true;
      this.options.hub.setAvailable(true);
      this.options.logger.info(
        { rooms: this.rooms.length, fanout: this.options.fanout },
        'relay cluster in sync',
      );
    } catch (error) {
      this.options.logger.debug({ err: (error as Error).message }, 'cluster sync failed; retrying');
      setTimeout(() => this.onLinkChange(), 250).unref();
    } finally {
      this.syncing = false;
    }
  }

  private async syncRoom(room: string): Promise<void> {
    const keys = roomKeys(this.options.prefix, room);
    this.held.set(room, []);
    try {
      const limits = this.options.limits();
      const [epoch, last, entries] = await this.commands.relaySnapshot(
        keys.epoch,
        keys.sequence,
        keys.log,
        keys.bytes,
        newEpoch(),
        String(limits.replayMs),
        String(limits.replayMessages * STREAM_SLACK),
        String(limits.replayRoomBytes),
      );
      const captions = entries.map(([id, fields]) => parseEntry(id, fields)).filter((c) => c !== undefined);
      const snapshot: RoomSnapshot = { epoch, last: Number(last), captions };
      if (!this.rooms.includes(room)) return;
      this.epochs.set(room, epoch);
      this.options.hub.applySnapshot(room, snapshot);
      const held = this.held.get(room) ?? [];
      if (held.length > 0) this.options.hub.ingest(room, held);
      this.lastIds.set(room, entries.at(-1)?.[0] ?? '0-0');
    } finally {
      this.held.delete(room);
    }
  }

  private async checkEpochs(): Promise<void> {
    if (!this.synced || this.syncing || this.rooms.length === 0) return;
    try {
      const rooms = this.rooms;
      const epochs = await this.commands.mget(
        ...rooms.map((room) => roomKeys(this.options.prefix, room).epoch),
      );
      for (const [i, room] of rooms.entries()) {
        if (epochs[i] !== this.epochs.get(room) && !this.held.has(room)) await this.syncRoom(room);
      }
    } catch {
      // The connection's state lines tell an outage; the next round tries again.
    }
  }

  private deliver(room: string, captions: StoredCaption[]): void {
    const held = this.held.get(room);
    if (held) {
      held.push(...captions);
      return;
    }
    const last = captions.at(-1);
    if (last) this.epochs.set(room, last.epoch);
    this.options.hub.ingest(room, captions);
  }

  private onMessage(message: string): void {
    const parsed = parseFanoutMessage(message);
    if (!parsed) return;
    const { room, caption } = parsed;
    if (!this.epochs.has(room) && !this.held.has(room)) return;
    this.deliver(room, [caption]);
  }
}
