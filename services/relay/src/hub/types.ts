import type { RelayRole } from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import type { WebSocket } from 'ws';
import type { Retention, RoomLog } from '../domain/history.js';
import type { RelayLimits } from '../domain/limits.js';
import type { RateLimiter } from '../domain/rate.js';
import type { RoomTokens } from '../domain/relay-config.js';

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

export interface Room {
  readonly name: string;
  tokens: RoomTokens;
  /** Replaced when the room's epoch changes (cluster: Redis lost its data). */
  log: RoomLog;
  /** Cluster: false until the room's state came from Redis; joins wait for it. */
  ready: boolean;
  readonly readers: Set<Connection>;
  readonly writers: Set<Connection>;
}

export interface Connection {
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
  /** Its join asked for beat frames. */
  beat: boolean;
  /** Reader: its join asked for each caption's delivery identity. */
  deliveries?: boolean;
  /** Reader: `lastSent` at the last beat tick; moved since means captions went out, no beat needed. */
  beatMark: number;
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

/**
 * The hub's state, shared by its modules (hub.ts, protocol.ts, delivery.ts, cluster-sync.ts);
 * the hub alone replaces `limits`, `cluster` and `available`.
 */
export interface HubState {
  readonly stats: RelayStats;
  readonly retention: Retention;
  readonly rooms: Map<string, Room>;
  limits: RelayLimits;
  cluster?: ClusterEngine;
  /** Cluster: false while Redis is away (joins refused, sockets closed). */
  available: boolean;
  readonly now: () => number;
}

/** Closes a socket once, with a close frame (the hub's `close`). */
export type CloseConnection = (connection: Connection, code: number, reason: string) => void;
