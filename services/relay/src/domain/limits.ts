/**
 * Limits of the relay. The names are those of the reference relay so its config files keep working;
 * each can be overridden in the `limits` object of the config file.
 */
export interface RelayLimits {
  /** Open sockets in total. @defaultValue 512 */
  connections: number;
  /** Open sockets per client address (IPv6: per /64). @defaultValue 128 */
  perIp: number;
  /**
   * Sockets that have not joined yet, in total: unauthenticated sockets cannot fill the relay.
   * @defaultValue 64
   */
  pendingJoins: number;
  /** Sockets that have not joined yet, per client address (IPv6: per /64). @defaultValue 8 */
  pendingJoinsPerIp: number;
  /** Joined sockets per room. @defaultValue 256 */
  perRoom: number;
  /** Frames a socket may send per second, join included. @defaultValue 40 */
  messagesPerSecond: number;
  /** Largest frame in bytes. @defaultValue 8192 */
  payloadBytes: number;
  /** Bytes buffered towards one socket before the relay holds back. @defaultValue 65536 */
  bufferedBytes: number;
  /** Time a socket has to join. @defaultValue 10000 */
  joinMs: number;
  /** Ping interval; a socket that missed the previous pong is terminated. @defaultValue 30000 */
  heartbeatMs: number;
  /** Age of the oldest caption a room retains for replay. @defaultValue 120000 */
  replayMs: number;
  /** Captions retained per room. @defaultValue 256 */
  replayMessages: number;
  /** Captions retained across rooms. @defaultValue 8192 */
  replayTotalMessages: number;
  /** Bytes of retained captions across rooms. @defaultValue 16 MiB */
  replayBytes: number;
  /** Time a reader may stay blocked before it is closed as a slow consumer. @defaultValue 10000 */
  slowMs: number;
}

export const DEFAULT_LIMITS: Readonly<RelayLimits> = Object.freeze({
  connections: 512,
  perIp: 128,
  pendingJoins: 64,
  pendingJoinsPerIp: 8,
  perRoom: 256,
  messagesPerSecond: 40,
  payloadBytes: 8192,
  bufferedBytes: 65536,
  joinMs: 10_000,
  heartbeatMs: 30_000,
  replayMs: 120_000,
  replayMessages: 256,
  replayTotalMessages: 8192,
  replayBytes: 16 * 1024 * 1024,
  slowMs: 10_000,
});
