import { randomBytes } from 'node:crypto';
import { tokensEqual } from '@live-captions/http';
import {
  RELAY_PROTOCOL,
  type RelayAck,
  RelayCloseCode,
  type RelayCursor,
  type RelayDelivery,
  type RelayGap,
  type RelayGapReason,
  type RelayJoin,
  type RelayJoined,
  type RelayRole,
} from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import type { WebSocket } from 'ws';
import { ConnectionCaps } from './domain/caps.js';
import type { RoomSnapshot, StoredCaption } from './domain/cluster.js';
import { captionFrame, FrameError, parseJoin, parseJson, parsePublish } from './domain/frames.js';
import { Retention, RoomLog } from './domain/history.js';
import type { RelayLimits } from './domain/limits.js';
import { RateLimiter } from './domain/rate.js';
import type { RelayConfig, RoomTokens } from './domain/relay-config.js';

/** Counters of `GET /health` and `/metrics`. */
export interface RelayStats {
  accepted: number;
  rejected: number;
  published: number;
  delivered: number;
  slowConsumers: number;
  duplicates: number;
  replayed: number;
  gaps: number;
}

interface Room {
  readonly name: string;
  tokens: RoomTokens;
  /** Replaced when the room's epoch changes (cluster: Redis lost its data). */
  log: RoomLog;
  /** Cluster: false until the room's state came from Redis; joins wait for it. */
  ready: boolean;
  readonly readers: Set<Connection>;
  readonly writers: Set<Connection>;
}

interface Connection {
  readonly ws: WebSocket;
  readonly ip: string;
  /** The hub's logger with the connection's correlation id bound. */
  readonly logger: Logger;
  readonly rate: RateLimiter;
  room?: Room;
  role?: RelayRole;
  /** Cluster: its join waits for Redis (cursor ahead of this node); frames are ignored meanwhile. */
  joining?: boolean;
  /** Counted in the pending-join caps until it joins or goes. */
  pending: boolean;
  /** Token the socket joined with: a reload that changes it closes the socket. */
  token?: string;
  joinTimer?: NodeJS.Timeout;
  alive: boolean;
  closing: boolean;
  /** Reader: room sequence of the last caption written to the socket. */
  lastSent: number;
  /** Reader: when the socket's buffer went over `bufferedBytes` (0 when it is not blocked). */
  blockedSince: number;
}

/** The outcome of a publish sequenced by the cluster. */
export type ClusterPublish =
  | { outcome: 'new' | 'duplicate'; epoch: string; sequence: number }
  | { outcome: 'conflict' };

/**
 * Where captions are sequenced and shared in cluster mode (adapters/redis-cluster.ts): the hub
 * hands it publishes and gets every room's captions back through `applySnapshot` and `ingest`.
 */
export interface ClusterEngine {
  publish(room: string, delivery: string, body: string): Promise<ClusterPublish>;
  /** The room's epoch and last sequence given out, as Redis has them now. */
  position(room: string): Promise<{ epoch: string; last: number }>;
  /** The configured rooms changed (reload): new ones need their state. */
  setRooms(rooms: readonly string[]): void;
}

/** A random id of this room's stream in this process: a reader's cursor with another epoch predates a restart. */
const newEpoch = () => randomBytes(9).toString('base64url');

/**
 * Rooms, sockets and delivery. Takes sockets that passed the upgrade checks and runs the protocol:
 * join, publish/ack/duplicates, fan-out with replay, backpressure, heartbeat, rate limits.
 */
export class Hub {
  readonly stats: RelayStats = {
    accepted: 0,
    rejected: 0,
    published: 0,
    delivered: 0,
    slowConsumers: 0,
    duplicates: 0,
    replayed: 0,
    gaps: 0,
  };
  readonly retention: Retention;
  private readonly rooms = new Map<string, Room>();
  private readonly connections = new Set<Connection>();
  private readonly caps: ConnectionCaps;
  private readonly blocked = new Set<Connection>();
  private limits: RelayLimits;
  private heartbeat: NodeJS.Timeout;
  private sweeper?: NodeJS.Timeout;
  private cluster?: ClusterEngine;
  /** Cluster: false while Redis is away (joins refused, sockets closed). */
  private available = true;

  constructor(
    config: RelayConfig,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.limits = config.limits;
    this.caps = new ConnectionCaps(config.limits);
    this.retention = new Retention(config.limits);
    this.applyRooms(config.rooms);
    this.heartbeat = this.startHeartbeat();
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  get roomCount(): number {
    return this.rooms.size;
  }

  /** Whether new sockets are taken (cluster: only while Redis is reachable). */
  get accepting(): boolean {
    return this.available;
  }

  /** Cluster mode: publishes go through `engine`; rooms wait for their state from it. */
  attachCluster(engine: ClusterEngine): void {
    this.cluster = engine;
    this.available = false;
    for (const room of this.rooms.values()) room.ready = false;
    engine.setRooms([...this.rooms.keys()]);
  }

  /**
   * Cluster: Redis came back (true) or went away (false). Away, every socket is closed with 1013
   * so that clients go to another node, and upgrades are refused until it is back.
   */
  setAvailable(available: boolean): void {
    if (this.available === available) return;
    this.available = available;
    if (available) return;
    for (const connection of this.connections)
      this.close(connection, RelayCloseCode.tryAgainLater, 'Relay unavailable');
  }

  /**
   * Cluster: a room's state as Redis holds it (at start, after an outage, or when its epoch
   * changed). Another epoch than the one served means Redis lost the room: its readers get a
   * `relay-restarted` gap, then what is held.
   */
  applySnapshot(name: string, snapshot: RoomSnapshot): void {
    const room = this.rooms.get(name);
    if (!room) return;
    let restarted = false;
    if (!room.ready || room.log.epoch !== snapshot.epoch) {
      restarted = room.ready;
      this.resetLog(room, snapshot.epoch, snapshot.captions[0]?.sequence ?? snapshot.last + 1);
      room.ready = true;
    }
    restarted = this.absorb(room, snapshot.captions, snapshot.last) || restarted;
    this.catchUp(room, restarted);
  }

  /**
   * Cluster: captions of a room in sequence order, from the fan-out (any node's publishes). Ones
   * already held are skipped; a jump (this node missed some) restarts the history there, and the
   * readers that needed the missing ones get a `history-expired` gap from `pump`.
   */
  ingest(name: string, captions: readonly StoredCaption[]): void {
    const room = this.rooms.get(name);
    if (!room?.ready) return;
    // A node that was stalled reads a long batch at once: its live readers get each part before
    // the history moves past it, as they would have, had the captions come one by one.
    const part = Math.max(1, Math.floor(this.limits.replayMessages / 2));
    for (let i = 0; i < captions.length; i += part) {
      this.catchUp(room, this.absorb(room, captions.slice(i, i + part)));
    }
  }

  /** Adds captions to a room's history; true when they came with another epoch (log replaced). */
  private absorb(room: Room, captions: readonly StoredCaption[], last?: number): boolean {
    let restarted = false;
    for (const caption of captions) {
      if (caption.epoch !== room.log.epoch) {
        this.resetLog(room, caption.epoch, caption.sequence);
        restarted = true;
      }
      const log = room.log;
      if (caption.sequence < log.next) continue;
      if (caption.sequence > log.next) {
        this.retention.clear(log);
        log.next = caption.sequence;
      }
      this.retention.append(log, {
        at: caption.at,
        frame: Buffer.from(captionFrame(caption.body, log.epoch, caption.sequence)),
        delivery: caption.delivery,
        body: caption.body,
      });
    }
    // Sequences given out that the stream no longer holds (trimmed): the history restarts after them.
    if (last !== undefined && last >= room.log.next) {
      this.retention.clear(room.log);
      room.log.next = last + 1;
    }
    return restarted;
  }

  /** After new captions: a `relay-restarted` gap first when the epoch changed, then the replay. */
  private catchUp(room: Room, restarted: boolean): void {
    if (restarted) for (const reader of room.readers) this.gap(reader, 'relay-restarted', room.log.oldest);
    for (const reader of room.readers) this.pump(reader);
  }

  /** Whether a socket from `ip` (an address key) would exceed a connection cap. */
  full(ip: string): boolean {
    return this.caps.full(ip);
  }

  /** Sockets that have not joined yet. */
  get pendingJoins(): number {
    return this.caps.pending;
  }

  /** Readers held back by a full socket buffer. */
  get blockedReaders(): number {
    return this.blocked.size;
  }

  /** Drops expired captions everywhere (health and metrics read the totals). */
  expireAll(): void {
    const now = this.now();
    for (const room of this.rooms.values()) this.retention.expire(room.log, now);
  }

  /** Takes a socket that passed the upgrade checks; `log` has the connection's correlation id. */
  accept(ws: WebSocket, ip: string, logger: Logger = this.log): void {
    const connection: Connection = {
      ws,
      ip,
      logger,
      rate: new RateLimiter(this.limits.messagesPerSecond, this.now()),
      alive: true,
      closing: false,
      pending: true,
      lastSent: 0,
      blockedSince: 0,
    };
    this.connections.add(connection);
    this.caps.opened(ip);
    this.stats.accepted += 1;
    connection.joinTimer = setTimeout(
      () => this.close(connection, RelayCloseCode.policyViolation, 'Join timeout'),
      this.limits.joinMs,
    );
    ws.on('message', (data, isBinary) => this.onFrame(connection, data as Buffer, isBinary));
    ws.on('pong', () => {
      connection.alive = true;
    });
    ws.on('error', (error) => logger.debug({ err: error.message, ip }, 'socket error'));
    ws.on('close', () => this.forget(connection));
  }

  /** Applies a new configuration: limits, new rooms, removed rooms and changed tokens. */
  reload(config: RelayConfig): void {
    const heartbeatChanged = config.limits.heartbeatMs !== this.limits.heartbeatMs;
    this.limits = config.limits;
    this.caps.setLimits(config.limits);
    this.retention.setLimits(config.limits);
    this.applyRooms(config.rooms);
    this.cluster?.setRooms([...this.rooms.keys()]);
    if (heartbeatChanged) {
      clearInterval(this.heartbeat);
      this.heartbeat = this.startHeartbeat();
    }
  }

  /** Closes every socket with 1001 and stops the timers; resolves once they are gone (or terminated). */
  async shutdown(graceMs = 1000): Promise<void> {
    clearInterval(this.heartbeat);
    if (this.sweeper) clearInterval(this.sweeper);
    const open = [...this.connections];
    const closed = open.map((c) => new Promise<void>((resolve) => c.ws.once('close', () => resolve())));
    for (const connection of open) this.close(connection, RelayCloseCode.goingAway, 'Relay shutting down');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(closed),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    for (const connection of this.connections) connection.ws.terminate();
  }

  private resetLog(room: Room, epoch: string, next: number): void {
    this.retention.clear(room.log);
    room.log = new RoomLog(epoch);
    room.log.next = next;
  }

  private applyRooms(rooms: ReadonlyMap<string, RoomTokens>): void {
    for (const [name, room] of this.rooms) {
      const tokens = rooms.get(name);
      if (!tokens) {
        for (const c of [...room.readers, ...room.writers])
          this.close(c, RelayCloseCode.policyViolation, 'Room removed');
        this.retention.clear(room.log);
        this.rooms.delete(name);
        continue;
      }
      room.tokens = tokens;
      for (const c of [...room.readers, ...room.writers]) {
        if (c.token !== tokens[c.role!]) this.close(c, RelayCloseCode.policyViolation, 'Token changed');
      }
    }
    for (const [name, tokens] of rooms) {
      if (!this.rooms.has(name)) {
        this.rooms.set(name, {
          name,
          tokens,
          log: new RoomLog(newEpoch()),
          ready: !this.cluster,
          readers: new Set(),
          writers: new Set(),
        });
      }
    }
  }

  private startHeartbeat(): NodeJS.Timeout {
    const timer = setInterval(() => {
      for (const connection of this.connections) {
        if (!connection.alive) {
          connection.ws.terminate();
          continue;
        }
        connection.alive = false;
        connection.ws.ping();
      }
    }, this.limits.heartbeatMs);
    timer.unref();
    return timer;
  }

  private onFrame(connection: Connection, data: Buffer, isBinary: boolean): void {
    if (connection.closing || connection.joining) return;
    try {
      if (!connection.rate.take(this.now()))
        throw new FrameError(RelayCloseCode.policyViolation, 'Rate limit');
      if (isBinary) throw new FrameError(RelayCloseCode.unsupportedData, 'Text frames only');
      const value = parseJson(data.toString('utf8'));
      if (!connection.room) this.join(connection, parseJoin(value));
      else if (connection.role === 'read')
        throw new FrameError(RelayCloseCode.policyViolation, 'Read sockets cannot publish');
      else this.publish(connection, connection.room, value);
    } catch (error) {
      if (!(error instanceof FrameError)) {
        connection.logger.error({ err: (error as Error).message }, 'frame handling failed');
        this.close(connection, 1011, 'Internal error');
        return;
      }
      if (!connection.room) this.stats.rejected += 1;
      this.close(connection, error.code, error.reason);
    }
  }

  private join(connection: Connection, join: RelayJoin): void {
    const room = this.rooms.get(join.join);
    // Compare even for an unknown room so that the answer takes the same time.
    const expected = room?.tokens[join.role] ?? '-'.repeat(32);
    if (!tokensEqual(join.token, expected) || !room) {
      throw new FrameError(RelayCloseCode.policyViolation, 'Invalid room or token');
    }
    if (room.readers.size + room.writers.size >= this.limits.perRoom) {
      throw new FrameError(RelayCloseCode.tryAgainLater, 'Room full');
    }
    if (!room.ready || !this.available)
      throw new FrameError(RelayCloseCode.tryAgainLater, 'Relay unavailable');
    const log = room.log;
    this.retention.expire(log, this.now());
    let gap: false | RelayGapReason = false;
    let from = log.next - 1;
    if (join.role === 'read' && join.cursor) {
      const { epoch, sequence } = join.cursor;
      if (epoch !== log.epoch) {
        gap = 'relay-restarted';
        from = log.oldest - 1;
      } else if (sequence > log.next - 1) {
        if (!this.cluster) throw new FrameError(RelayCloseCode.policyViolation, 'Invalid cursor');
        this.joinAhead(connection, room, join, join.cursor);
        return;
      } else if (sequence < log.oldest - 1) {
        gap = 'history-expired';
        from = log.oldest - 1;
      } else {
        from = sequence;
      }
    }
    this.admit(connection, room, join, from, gap);
  }

  /**
   * Cluster: a cursor past what this node holds may come from a node that is ahead (its
   * captions are on their way here). Redis tells whether the room got that far: then the reader
   * waits here for them; else the cursor is invalid.
   */
  private joinAhead(connection: Connection, room: Room, join: RelayJoin, cursor: RelayCursor): void {
    connection.joining = true;
    this.cluster!.position(room.name).then(
      (position) => {
        connection.joining = false;
        if (connection.closing) return;
        if (position.epoch === cursor.epoch && cursor.sequence > position.last) {
          this.stats.rejected += 1;
          this.close(connection, RelayCloseCode.policyViolation, 'Invalid cursor');
          return;
        }
        // Another epoch in Redis: this node learns of it shortly and tells the reader with a gap.
        this.admit(connection, room, join, cursor.sequence, false);
      },
      () => {
        connection.joining = false;
        this.close(connection, RelayCloseCode.tryAgainLater, 'Relay unavailable');
      },
    );
  }

  private admit(
    connection: Connection,
    room: Room,
    join: RelayJoin,
    from: number,
    gap: false | RelayGapReason,
  ): void {
    const log = room.log;
    clearTimeout(connection.joinTimer);
    this.joined(connection);
    connection.room = room;
    connection.role = join.role;
    connection.token = join.token;
    connection.lastSent = from;
    (join.role === 'read' ? room.readers : room.writers).add(connection);
    if (gap) this.stats.gaps += 1;
    this.stats.replayed += Math.max(0, log.next - 1 - from);
    const joined: RelayJoined = {
      joined: room.name,
      role: join.role,
      protocol: RELAY_PROTOCOL,
      epoch: log.epoch,
      // The first caption this socket will get: cursor + 1, the oldest retained after a gap, or
      // the room's next sequence for a fresh join (and for writers).
      next: from + 1,
      gap,
      retentionMs: this.limits.replayMs,
    };
    connection.ws.send(JSON.stringify(joined));
    connection.logger.debug({ room: room.name, role: join.role, ip: connection.ip, gap }, 'joined');
    if (join.role === 'read') this.pump(connection);
  }

  private publish(connection: Connection, room: Room, value: unknown): void {
    const { delivery, body } = parsePublish(value);
    if (this.cluster) {
      this.publishClustered(connection, room, delivery, body);
      return;
    }
    const now = this.now();
    const log = room.log;
    this.retention.expire(log, now);
    const key = `${delivery.client}:${delivery.sequence}`;
    let entry = log.byDelivery(key);
    if (entry) {
      if (entry.body !== body) throw new FrameError(RelayCloseCode.policyViolation, 'Delivery conflict');
      this.stats.duplicates += 1;
    } else {
      entry = this.retention.append(log, {
        at: now,
        frame: Buffer.from(captionFrame(body, log.epoch, log.next)),
        delivery: key,
        body,
      });
      this.stats.published += 1;
      for (const reader of room.readers) this.pump(reader);
    }
    const ack: RelayAck = { ack: delivery, epoch: log.epoch, sequence: entry.sequence };
    connection.ws.send(JSON.stringify(ack));
  }

  /**
   * Cluster: Redis gives the sequence (and tells duplicates and conflicts); the caption reaches
   * this node's readers through the fan-out like any other node's. Acks leave in the order the
   * publishes came: Redis answers one connection's commands in order.
   */
  private publishClustered(connection: Connection, room: Room, delivery: RelayDelivery, body: string): void {
    this.cluster!.publish(room.name, `${delivery.client}:${delivery.sequence}`, body).then(
      (result) => {
        if (connection.closing) return;
        if (result.outcome === 'conflict') {
          this.close(connection, RelayCloseCode.policyViolation, 'Delivery conflict');
          return;
        }
        if (result.outcome === 'duplicate') this.stats.duplicates += 1;
        else this.stats.published += 1;
        const ack: RelayAck = { ack: delivery, epoch: result.epoch, sequence: result.sequence };
        connection.ws.send(JSON.stringify(ack));
      },
      (error: Error) => {
        if (connection.closing) return;
        connection.logger.debug({ err: error.message, room: room.name }, 'clustered publish failed');
        this.close(connection, RelayCloseCode.tryAgainLater, 'Relay unavailable');
      },
    );
  }

  /** Writes the captions a reader has not had yet while its buffer has room. */
  private pump(reader: Connection): void {
    const log = reader.room!.log;
    const ws = reader.ws;
    while (reader.lastSent < log.next - 1) {
      if (reader.closing || ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount >= this.limits.bufferedBytes) {
        if (reader.blockedSince === 0) {
          reader.blockedSince = this.now();
          this.blocked.add(reader);
          this.sweeper ??= setInterval(
            () => this.sweep(),
            Math.max(10, Math.min(250, this.limits.slowMs / 4)),
          );
        }
        return;
      }
      const entry = log.get(reader.lastSent + 1);
      if (!entry) {
        // What it still needs left the history while it was held back: tell it so with a gap,
        // then replay everything still held and go live, as a join with an old cursor does.
        this.gap(reader, 'history-expired', log.oldest);
        continue;
      }
      ws.send(entry.frame, { binary: false });
      reader.lastSent = entry.sequence;
      this.stats.delivered += 1;
    }
    this.unblock(reader);
  }

  /** Sends a gap frame mid-stream; the reader continues with `next`. */
  private gap(reader: Connection, reason: RelayGapReason, next: number): void {
    const log = reader.room!.log;
    const frame: RelayGap = { gap: reason, epoch: log.epoch, next };
    reader.ws.send(JSON.stringify(frame));
    reader.lastSent = next - 1;
    this.stats.gaps += 1;
    reader.logger.debug({ room: reader.room?.name, ip: reader.ip, gap: reason, next }, 'gap sent');
  }

  private sweep(): void {
    const now = this.now();
    for (const reader of this.blocked) {
      if (now - reader.blockedSince >= this.limits.slowMs) this.slow(reader);
      else if (reader.ws.bufferedAmount < this.limits.bufferedBytes) this.pump(reader);
    }
  }

  private unblock(reader: Connection): void {
    if (reader.blockedSince === 0) return;
    reader.blockedSince = 0;
    this.blocked.delete(reader);
    if (this.blocked.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  private slow(reader: Connection): void {
    this.stats.slowConsumers += 1;
    reader.logger.info({ room: reader.room?.name, ip: reader.ip }, 'slow consumer closed');
    this.close(reader, RelayCloseCode.tryAgainLater, 'Slow consumer');
    // A close frame queued behind a full buffer may never get through.
    if (reader.ws.bufferedAmount >= this.limits.bufferedBytes) reader.ws.terminate();
  }

  private close(connection: Connection, code: number, reason: string): void {
    if (connection.closing) return;
    connection.closing = true;
    clearTimeout(connection.joinTimer);
    this.unblock(connection);
    connection.ws.close(code, reason);
  }

  /** Takes a socket that joined out of the pending-join caps (once). */
  private joined(connection: Connection): void {
    if (!connection.pending) return;
    connection.pending = false;
    this.caps.joined(connection.ip);
  }

  private forget(connection: Connection): void {
    if (!this.connections.delete(connection)) return;
    connection.closing = true;
    clearTimeout(connection.joinTimer);
    this.unblock(connection);
    this.caps.closed(connection.ip, connection.pending);
    connection.pending = false;
    connection.room?.readers.delete(connection);
    connection.room?.writers.delete(connection);
  }
}
