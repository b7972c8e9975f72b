import type { RelayBeat } from '@live-captions/protocol';
import type { Connection } from './types.js';

/**
 * WebSocket pings every `ms`: a socket that did not answer the last one is terminated (a dead
 * peer or NAT mapping that TCP alone would notice only after minutes).
 */
export function startPings(connections: ReadonlySet<Connection>, ms: number): NodeJS.Timeout {
  const timer = setInterval(() => {
    for (const connection of connections) {
      if (!connection.alive) {
        connection.ws.terminate();
        continue;
      }
      connection.alive = false;
      connection.ws.ping();
    }
  }, ms);
  timer.unref();
  return timer;
}

/** The beat frame, encoded once for every socket. */
const BEAT_FRAME = Buffer.from(JSON.stringify({ beat: true } satisfies RelayBeat));
const TEXT_FRAME = Object.freeze({ binary: false });
/** Sockets beaten per turn of the event loop. */
const BEAT_SLICE = 1000;

/**
 * One beat tick (every `beatMs`): a beat frame to each joined socket that asked for one and got
 * nothing since the last tick (a reader whose `lastSent` moved got captions; writers always get
 * one). A blocked reader is skipped: its buffer is full and it is receiving. So at most about
 * two `beatMs` pass between two frames to a served socket.
 */
export function beatAll(sockets: readonly Connection[]): void {
  // In slices, so that a node with thousands of idle readers never holds a caption back for
  // the whole round (about 11 µs a socket: 1,000 take about 11 ms).
  const slice = (from: number) => {
    const end = Math.min(sockets.length, from + BEAT_SLICE);
    for (let index = from; index < end; index += 1) beatOne(sockets[index]!);
    if (end < sockets.length) setImmediate(() => slice(end));
  };
  slice(0);
}

function beatOne(connection: Connection): void {
  if (!connection.beat || connection.closing || connection.blockedSince !== 0) return;
  if (connection.role === 'read' && connection.lastSent !== connection.beatMark) {
    connection.beatMark = connection.lastSent;
    return;
  }
  const ws = connection.ws;
  if (ws.readyState === ws.OPEN) ws.send(BEAT_FRAME, TEXT_FRAME);
}
