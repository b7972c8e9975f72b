/**
 * Limits of the relay. The names are those of the reference relay so its config files keep working;
 * each can be overridden in the `limits` object of the config file.
 *
 * The connection defaults are sized for an audience: a room's read link is public once it is
 * shared, and thousands of phones may read one room from one venue's NAT address. So the joined
 * side is generous (`connections`, `perIp`, `perRoom`), while sockets that have not joined yet
 * (no valid token shown) stay bounded in total (`pendingJoins`, a fifth of `connections`, each
 * gone after `joinMs`) and per address (`pendingJoinsPerIp`, half of `pendingJoins`: a NAT's
 * burst fits, yet one address cannot take every pending place from the others).
 */
export interface RelayLimits {
  /** Open sockets in total. @defaultValue 10000 */
  connections: number;
  /** Open sockets per client address (IPv6: per /64); a venue's NAT is one address. @defaultValue 5000 */
  perIp: number;
  /**
   * Sockets that have not joined yet, in total: unauthenticated sockets cannot fill the relay.
   * @defaultValue 2048
   */
  pendingJoins: number;
  /** Sockets that have not joined yet, per client address (IPv6: per /64). @defaultValue 1024 */
  pendingJoinsPerIp: number;
  /** Joined sockets per room (an audience reads one output room). @defaultValue 10000 */
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
  connections: 10_000,
  perIp: 5000,
  pendingJoins: 2048,
  pendingJoinsPerIp: 1024,
  perRoom: 10_000,
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
