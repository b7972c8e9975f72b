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
  /**
   * Largest frame in bytes. The default carries any caption the text rule allows: 4,000 characters
   * of CJK are 12,000 bytes of UTF-8 (8 KiB refused them, 1009, and stopped their publisher).
   * @defaultValue 16384
   */
  payloadBytes: number;
  /** Bytes buffered towards one socket before the relay holds back. @defaultValue 65536 */
  bufferedBytes: number;
  /** Time a socket has to join. @defaultValue 10000 */
  joinMs: number;
  /** Ping interval; a socket that missed the previous pong is terminated. @defaultValue 30000 */
  heartbeatMs: number;
  /**
   * Beats: a socket whose join asked for them gets a beat frame when nothing else went to it for
   * this long, so that a browser (which never sees pings) notices a silent relay within about two
   * of these. One shared frame, skipped for readers that just got captions: 5,000 idle readers
   * cost about 3,300 small sends a second. @defaultValue 1500
   */
  beatMs: number;
  /**
   * Age of the oldest caption a room retains for replay: 30 minutes, so that a reader with a
   * durable cursor (the outputs service) that was down for as long loses nothing. @defaultValue 1800000
   */
  replayMs: number;
  /** Captions retained per room. @defaultValue 8192 */
  replayMessages: number;
  /**
   * Bytes of retained caption frames per room: 30 minutes of a busy room fit (about 0.5 MiB of
   * reviewed captions, 2 MiB of a source room's interim stream at 4 frames/s). @defaultValue 4 MiB
   */
  replayRoomBytes: number;
  /** Captions retained across rooms. @defaultValue 65536 */
  replayTotalMessages: number;
  /** Bytes of retained caption frames across rooms. @defaultValue 64 MiB */
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
  payloadBytes: 16_384,
  bufferedBytes: 65536,
  joinMs: 10_000,
  heartbeatMs: 30_000,
  beatMs: 1500,
  replayMs: 1_800_000,
  replayMessages: 8192,
  replayRoomBytes: 4 * 1024 * 1024,
  replayTotalMessages: 65_536,
  replayBytes: 64 * 1024 * 1024,
  slowMs: 10_000,
});
