import { randomBytes } from 'node:crypto';
import {
  RELAY_PROTOCOL,
  type RelayAck,
  RelayCloseCode,
  type RelayGap,
  type RelayGapReason,
  type RelayJoin,
  type RelayJoined,
  type RelayRole,
} from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import type { WebSocket } from 'ws';
import { captionFrame, FrameError, parseJoin, parseJson, parsePublish } from './domain/frames.js';
import { Retention, RoomLog } from './domain/history.js';
import type { RelayLimits } from './domain/limits.js';
import { RateLimiter } from './domain/rate.js';
import type { RelayConfig, RoomTokens } from './domain/relay-config.js';
import { tokenMatches } from './domain/tokens.js';

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
  readonly log: RoomLog;
  readonly readers: Set<Connection>;
  readonly writers: Set<Connection>;
}

interface Connection {
  readonly ws: WebSocket;
  readonly ip: string;
  readonly rate: RateLimiter;
  room?: Room;
  role?: RelayRole;
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

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function decrement(counts: Map<string, number>, key: string): void {
  const count = (counts.get(key) ?? 1) - 1;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
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
  private readonly perIp = new Map<string, number>();
  /** Sockets that have not joined yet, per address key; their total is `pendingCount`. */
  private readonly pendingPerIp = new Map<string, number>();
  private pendingCount = 0;
  private readonly blocked = new Set<Connection>();
  private limits: RelayLimits;
  private heartbeat: NodeJS.Timeout;
  private sweeper?: NodeJS.Timeout;

  constructor(
    config: RelayConfig,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.limits = config.limits;
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

  /**
   * Whether a socket from `ip` would exceed a connection cap. Sockets that have not joined yet
   * have caps of their own, far below the others, so that unauthenticated sockets held open until
   * the join deadline cannot take the places of real clients.
   */
  full(ip: string): boolean {
    return (
      this.connections.size >= this.limits.connections ||
      (this.perIp.get(ip) ?? 0) >= this.limits.perIp ||
      this.pendingCount >= this.limits.pendingJoins ||
      (this.pendingPerIp.get(ip) ?? 0) >= this.limits.pendingJoinsPerIp
    );
  }

  /** Sockets that have not joined yet. */
  get pendingJoins(): number {
    return this.pendingCount;
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

  /** Takes a socket that passed the upgrade checks. */
  accept(ws: WebSocket, ip: string): void {
    const connection: Connection = {
      ws,
      ip,
      rate: new RateLimiter(this.limits.messagesPerSecond, this.now()),
      alive: true,
      closing: false,
      pending: true,
      lastSent: 0,
      blockedSince: 0,
    };
    this.connections.add(connection);
    increment(this.perIp, ip);
    increment(this.pendingPerIp, ip);
    this.pendingCount += 1;
    this.stats.accepted += 1;
    connection.joinTimer = setTimeout(
      () => this.close(connection, RelayCloseCode.policyViolation, 'Join timeout'),
      this.limits.joinMs,
    );
    ws.on('message', (data, isBinary) => this.onFrame(connection, data as Buffer, isBinary));
    ws.on('pong', () => {
      connection.alive = true;
    });
    ws.on('error', (error) => this.log.debug({ err: error.message, ip }, 'socket error'));
    ws.on('close', () => this.forget(connection));
  }

  /** Applies a new configuration: limits, new rooms, removed rooms and changed tokens. */
  reload(config: RelayConfig): void {
    const heartbeatChanged = config.limits.heartbeatMs !== this.limits.heartbeatMs;
    this.limits = config.limits;
    this.retention.setLimits(config.limits);
    this.applyRooms(config.rooms);
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
    if (connection.closing) return;
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
        this.log.error({ err: (error as Error).message }, 'frame handling failed');
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
    if (!tokenMatches(join.token, expected) || !room) {
      throw new FrameError(RelayCloseCode.policyViolation, 'Invalid room or token');
    }
    if (room.readers.size + room.writers.size >= this.limits.perRoom) {
      throw new FrameError(RelayCloseCode.tryAgainLater, 'Room full');
    }
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
        throw new FrameError(RelayCloseCode.policyViolation, 'Invalid cursor');
      } else if (sequence < log.oldest - 1) {
        gap = 'history-expired';
        from = log.oldest - 1;
      } else {
        from = sequence;
      }
    }
    clearTimeout(connection.joinTimer);
    this.joinedOrGone(connection);
    connection.room = room;
    connection.role = join.role;
    connection.token = join.token;
    connection.lastSent = from;
    (join.role === 'read' ? room.readers : room.writers).add(connection);
    if (gap) this.stats.gaps += 1;
    this.stats.replayed += log.next - 1 - from;
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
    this.log.debug({ room: room.name, role: join.role, ip: connection.ip, gap }, 'joined');
    if (join.role === 'read') this.pump(connection);
  }

  private publish(connection: Connection, room: Room, value: unknown): void {
    const { delivery, body } = parsePublish(value);
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
    this.log.debug({ room: reader.room?.name, ip: reader.ip, gap: reason, next }, 'gap sent');
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
    this.log.info({ room: reader.room?.name, ip: reader.ip }, 'slow consumer closed');
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

  /** Takes a socket out of the pending-join caps (once). */
  private joinedOrGone(connection: Connection): void {
    if (!connection.pending) return;
    connection.pending = false;
    this.pendingCount -= 1;
    decrement(this.pendingPerIp, connection.ip);
  }

  private forget(connection: Connection): void {
    if (!this.connections.delete(connection)) return;
    connection.closing = true;
    clearTimeout(connection.joinTimer);
    this.unblock(connection);
    this.joinedOrGone(connection);
    decrement(this.perIp, connection.ip);
    connection.room?.readers.delete(connection);
    connection.room?.writers.delete(connection);
  }
}
