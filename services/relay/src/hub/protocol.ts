import { tokensEqual } from '@live-captions/http';
import {
  RELAY_PROTOCOL,
  type RelayAck,
  RelayCloseCode,
  type RelayCursor,
  type RelayDelivery,
  type RelayGapReason,
  type RelayJoin,
  type RelayJoined,
} from '@live-captions/protocol';
import {
  captionFrame,
  FrameError,
  frameHasBody,
  parseJoin,
  parseJson,
  parsePublish,
} from '../domain/frames.js';
import type { Delivery } from './delivery.js';
import type { CloseConnection, Connection, HubState, Room } from './types.js';

/**
 * One socket's side of the protocol: its frames (rate limit, text only), its join (token, room
 * cap, cursor and replay position) and its publishes (sequence, ack, duplicates, conflicts),
 * in memory or through the cluster.
 */
export class Protocol {
  constructor(
    private readonly state: HubState,
    private readonly delivery: Delivery,
    private readonly close: CloseConnection,
    /** Takes a socket that joined out of the pending-join caps. */
    private readonly joined: (connection: Connection) => void,
  ) {}

  onFrame(connection: Connection, data: Buffer, isBinary: boolean): void {
    if (connection.closing || connection.joining) return;
    try {
      if (!connection.rate.take(this.state.now()))
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
      if (!connection.room) this.state.stats.rejected += 1;
      this.close(connection, error.code, error.reason);
    }
  }

  private join(connection: Connection, join: RelayJoin): void {
    const room = this.state.rooms.get(join.join);
    // Compare even for an unknown room so that the answer takes the same time.
    const expected = room?.tokens[join.role] ?? '-'.repeat(32);
    if (!tokensEqual(join.token, expected) || !room) {
      throw new FrameError(RelayCloseCode.policyViolation, 'Invalid room or token');
    }
    if (room.readers.size + room.writers.size >= this.state.limits.perRoom) {
      throw new FrameError(RelayCloseCode.tryAgainLater, 'Room full');
    }
    if (!room.ready || !this.state.available)
      throw new FrameError(RelayCloseCode.tryAgainLater, 'Relay unavailable');
    const log = room.log;
    this.state.retention.expire(log, this.state.now());
    let gap: false | RelayGapReason = false;
    let from = log.next - 1;
    if (join.role === 'read' && join.cursor) {
      const { epoch, sequence } = join.cursor;
      if (epoch !== log.epoch) {
        gap = 'relay-restarted';
        from = log.oldest - 1;
      } else if (sequence > log.next - 1) {
        if (!this.state.cluster) throw new FrameError(RelayCloseCode.policyViolation, 'Invalid cursor');
        this.joinAhead(connection, room, join, join.cursor);
        return;
      } else if (sequence < log.oldest - 1) {
        gap = 'history-expired';
        from = log.oldest - 1;
      } else {
        from = sequence;
      }
    }
    if (join.role === 'read' && join.replayMs !== undefined) {
      // The reader bounds its replay in time (an audience page: the last minutes, not the room's
      // whole history): a fresh join starts there; a cursor older than that skips to there, told as
      // a gap since captions it asked for will not come.
      const recent = log.firstAfter(this.state.now() - join.replayMs) - 1;
      if (!join.cursor) from = recent;
      else if (from < recent) {
        from = recent;
        gap ||= 'history-expired';
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
    this.state.cluster!.position(room.name).then(
      (position) => {
        connection.joining = false;
        if (connection.closing) return;
        if (position.epoch === cursor.epoch && cursor.sequence > position.last) {
          this.state.stats.rejected += 1;
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
    connection.beat = join.beat === true;
    connection.deliveries = join.role === 'read' && join.deliveries === true;
    connection.beatMark = from;
    (join.role === 'read' ? room.readers : room.writers).add(connection);
    if (gap) this.state.stats.gaps += 1;
    this.state.stats.replayed += Math.max(0, log.next - 1 - from);
    const joined: RelayJoined = {
      joined: room.name,
      role: join.role,
      protocol: RELAY_PROTOCOL,
      epoch: log.epoch,
      // The first caption this socket will get: cursor + 1, the oldest retained after a gap, or
      // the room's next sequence for a fresh join (and for writers).
      next: from + 1,
      gap,
      retentionMs: this.state.limits.replayMs,
      ...(join.beat ? { beatMs: this.state.limits.beatMs } : {}),
      // A publisher learns it shares the room (its captions interleave with another's).
      ...(join.role === 'write' ? { writers: room.writers.size } : {}),
    };
    connection.ws.send(JSON.stringify(joined));
    connection.logger.debug({ room: room.name, role: join.role, ip: connection.ip, gap }, 'joined');
    if (join.role === 'read') this.delivery.pump(connection);
  }

  private publish(connection: Connection, room: Room, value: unknown): void {
    const { delivery, body } = parsePublish(value);
    if (this.state.cluster) {
      this.publishClustered(connection, room, delivery, body);
      return;
    }
    const now = this.state.now();
    const log = room.log;
    this.state.retention.expire(log, now);
    const key = `${delivery.client}:${delivery.sequence}`;
    let entry = log.byDelivery(key);
    if (entry) {
      if (!frameHasBody(entry.frame, body))
        throw new FrameError(RelayCloseCode.policyViolation, 'Delivery conflict');
      this.state.stats.duplicates += 1;
    } else {
      entry = this.state.retention.append(log, {
        at: now,
        frame: Buffer.from(captionFrame(body, log.epoch, log.next, now)),
        delivery: key,
      });
      this.state.stats.published += 1;
      this.delivery.fanOut(room.readers, entry);
    }
    const ack: RelayAck = {
      ack: delivery,
      epoch: log.epoch,
      sequence: entry.sequence,
      writers: room.writers.size,
    };
    connection.ws.send(JSON.stringify(ack));
  }

  /**
   * Cluster: Redis gives the sequence (and tells duplicates and conflicts); the caption reaches
   * this node's readers through the fan-out like any other node's. Acks leave in the order the
   * publishes came: Redis answers one connection's commands in order.
   */
  private publishClustered(connection: Connection, room: Room, delivery: RelayDelivery, body: string): void {
    this.state.cluster!.publish(room.name, `${delivery.client}:${delivery.sequence}`, body).then(
      (result) => {
        if (connection.closing) return;
        if (result.outcome === 'conflict') {
          this.close(connection, RelayCloseCode.policyViolation, 'Delivery conflict');
          return;
        }
        if (result.outcome === 'duplicate') this.state.stats.duplicates += 1;
        else this.state.stats.published += 1;
        const ack: RelayAck = {
          ack: delivery,
          epoch: result.epoch,
          sequence: result.sequence,
          writers: room.writers.size,
        };
        connection.ws.send(JSON.stringify(ack));
      },
      (error: Error) => {
        if (connection.closing) return;
        connection.logger.debug({ err: error.message, room: room.name }, 'clustered publish failed');
        this.close(connection, RelayCloseCode.tryAgainLater, 'Relay unavailable');
      },
    );
  }
}
