import { randomBytes } from 'node:crypto';
import { RelayCloseCode } from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import type { WebSocket } from 'ws';
import { type RoomActivity, roomActivity } from '../domain/activity.js';
import { ConnectionCaps } from '../domain/caps.js';
import type { RoomSnapshot, StoredCaption } from '../domain/cluster.js';
import { Retention, RoomLog } from '../domain/history.js';
import { RateLimiter } from '../domain/rate.js';
import type { RelayConfig, RoomTokens } from '../domain/relay-config.js';
import { beatAll, startPings } from './beats.js';
import { ClusterSync } from './cluster-sync.js';
import { Delivery } from './delivery.js';
import { Protocol } from './protocol.js';
import type { ClusterEngine, Connection, HubState, RelayStats } from './types.js';

/** A random id of this room's stream in this process: a reader's cursor with another epoch predates a restart. */
const newEpoch = () => randomBytes(9).toString('base64url');

/**
 * Rooms, sockets and delivery. Takes sockets that passed the upgrade checks and runs the protocol:
 * join, publish/ack/duplicates (protocol.ts), fan-out with replay and backpressure (delivery.ts),
 * heartbeat, rate limits, and in cluster mode the rooms' state from Redis (cluster-sync.ts).
 */
export class Hub {
  readonly stats: RelayStats;
  readonly retention: Retention;
  private readonly state: HubState;
  private readonly connections = new Set<Connection>();
  private readonly caps: ConnectionCaps;
  private readonly delivery: Delivery;
  private readonly protocol: Protocol;
  private readonly clusterSync: ClusterSync;
  private heartbeat: NodeJS.Timeout;
  private beats: NodeJS.Timeout;

  constructor(
    config: RelayConfig,
    private readonly log: Logger,
    now: () => number = Date.now,
  ) {
    this.stats = {
      accepted: 0,
      rejected: 0,
      published: 0,
      delivered: 0,
      slowConsumers: 0,
      duplicates: 0,
      replayed: 0,
      gaps: 0,
    };
    this.retention = new Retention(config.limits);
    this.state = {
      stats: this.stats,
      retention: this.retention,
      rooms: new Map(),
      limits: config.limits,
      available: true,
      now,
    };
    this.caps = new ConnectionCaps(config.limits);
    const close = (connection: Connection, code: number, reason: string) =>
      this.close(connection, code, reason);
    this.delivery = new Delivery(this.state, close);
    this.protocol = new Protocol(this.state, this.delivery, close, (connection) => this.joined(connection));
    this.clusterSync = new ClusterSync(this.state, this.delivery);
    this.applyRooms(config.rooms);
    this.heartbeat = this.startHeartbeat();
    this.beats = this.startBeats();
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  get roomCount(): number {
    return this.state.rooms.size;
  }

  /** Whether new sockets are taken (cluster: only while Redis is reachable). */
  get accepting(): boolean {
    return this.state.available;
  }

  /** Cluster mode: publishes go through `engine`; rooms wait for their state from it. */
  attachCluster(engine: ClusterEngine): void {
    this.state.cluster = engine;
    this.state.available = false;
    for (const room of this.state.rooms.values()) room.ready = false;
    engine.setRooms([...this.state.rooms.keys()]);
  }

  /**
   * Cluster: Redis came back (true) or went away (false). Away, every socket is closed with 1013
   * so that clients go to another node, and upgrades are refused until it is back.
   */
  setAvailable(available: boolean): void {
    if (this.state.available === available) return;
    this.state.available = available;
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
    this.clusterSync.applySnapshot(name, snapshot);
  }

  /**
   * Cluster: captions of a room in sequence order, from the fan-out (any node's publishes). Ones
   * already held are skipped; a jump (this node missed some) restarts the history there, and the
   * readers that needed the missing ones get a `history-expired` gap from `pump`.
   */
  ingest(name: string, captions: readonly StoredCaption[]): void {
    this.clusterSync.ingest(name, captions);
  }

  /** A room's last caption and languages (the public rooms list); undefined for no such room. */
  activity(name: string): (RoomActivity & { writers: number; readers: number }) | undefined {
    const room = this.state.rooms.get(name);
    if (!room) return undefined;
    return {
      ...roomActivity(room.log.entries, this.state.now()),
      writers: room.writers.size,
      readers: room.readers.size,
    };
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
    return this.delivery.blockedReaders;
  }

  /** Drops expired captions everywhere (health and metrics read the totals). */
  expireAll(): void {
    const now = this.state.now();
    for (const room of this.state.rooms.values()) this.retention.expire(room.log, now);
  }

  /** Takes a socket that passed the upgrade checks; `log` has the connection's correlation id. */
  accept(ws: WebSocket, ip: string, logger: Logger = this.log): void {
    const limits = this.state.limits;
    const connection: Connection = {
      ws,
      ip,
      logger,
      rate: new RateLimiter(limits.messagesPerSecond, this.state.now()),
      alive: true,
      closing: false,
      pending: true,
      lastSent: 0,
      blockedSince: 0,
      beat: false,
      beatMark: 0,
    };
    this.connections.add(connection);
    this.caps.opened(ip);
    this.stats.accepted += 1;
    connection.joinTimer = setTimeout(
      () => this.close(connection, RelayCloseCode.policyViolation, 'Join timeout'),
      limits.joinMs,
    );
    ws.on('message', (data, isBinary) => this.protocol.onFrame(connection, data as Buffer, isBinary));
    ws.on('pong', () => {
      connection.alive = true;
    });
    ws.on('error', (error) => logger.debug({ err: error.message, ip }, 'socket error'));
    ws.on('close', () => this.forget(connection));
  }

  /** Applies a new configuration: limits, new rooms, removed rooms and changed tokens. */
  reload(config: RelayConfig): void {
    const heartbeatChanged = config.limits.heartbeatMs !== this.state.limits.heartbeatMs;
    const beatChanged = config.limits.beatMs !== this.state.limits.beatMs;
    this.state.limits = config.limits;
    this.caps.setLimits(config.limits);
    this.retention.setLimits(config.limits);
    this.applyRooms(config.rooms);
    this.state.cluster?.setRooms([...this.state.rooms.keys()]);
    if (heartbeatChanged) {
      clearInterval(this.heartbeat);
      this.heartbeat = this.startHeartbeat();
    }
    if (beatChanged) {
      clearInterval(this.beats);
      this.beats = this.startBeats();
    }
  }

  /** Closes every socket with 1001 and stops the timers; resolves once they are gone (or terminated). */
  async shutdown(graceMs = 1000): Promise<void> {
    clearInterval(this.heartbeat);
    clearInterval(this.beats);
    this.delivery.stop();
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
    for (const [name, room] of this.state.rooms) {
      const tokens = rooms.get(name);
      if (!tokens) {
        for (const c of [...room.readers, ...room.writers])
          this.close(c, RelayCloseCode.policyViolation, 'Room removed');
        this.retention.clear(room.log);
        this.state.rooms.delete(name);
        continue;
      }
      room.tokens = tokens;
      for (const c of [...room.readers, ...room.writers]) {
        if (c.token !== tokens[c.role!]) this.close(c, RelayCloseCode.policyViolation, 'Token changed');
      }
    }
    for (const [name, tokens] of rooms) {
      if (!this.state.rooms.has(name)) {
        this.state.rooms.set(name, {
          name,
          tokens,
          log: new RoomLog(newEpoch()),
          ready: !this.state.cluster,
          readers: new Set(),
          writers: new Set(),
        });
      }
    }
  }

  private startHeartbeat(): NodeJS.Timeout {
    return startPings(this.connections, this.state.limits.heartbeatMs);
  }

  /** One beat tick (beats.ts): a beat frame to each socket that asked and got nothing since. */
  beat(): void {
    beatAll([...this.connections]);
  }

  private startBeats(): NodeJS.Timeout {
    const timer = setInterval(() => this.beat(), this.state.limits.beatMs);
    timer.unref();
    return timer;
  }

  private close(connection: Connection, code: number, reason: string): void {
    if (connection.closing) return;
    connection.closing = true;
    clearTimeout(connection.joinTimer);
    this.delivery.unblock(connection);
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
    this.delivery.unblock(connection);
    this.caps.closed(connection.ip, connection.pending);
    connection.pending = false;
    connection.room?.readers.delete(connection);
    connection.room?.writers.delete(connection);
  }
}
