import type { RoomSnapshot, StoredCaption } from '../domain/cluster.js';
import { captionFrame } from '../domain/frames.js';
import { RoomLog } from '../domain/history.js';
import type { Delivery } from './delivery.js';
import type { HubState, Room } from './types.js';

/**
 * Cluster mode: takes rooms' captions as the cluster engine reads them from Redis (snapshots and
 * the fan-out) into this node's histories, and delivers them to its readers.
 */
export class ClusterSync {
  constructor(
    private readonly state: HubState,
    private readonly delivery: Delivery,
  ) {}

  /** See `Hub.applySnapshot`. */
  applySnapshot(name: string, snapshot: RoomSnapshot): void {
    const room = this.state.rooms.get(name);
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

  /** See `Hub.ingest`. */
  ingest(name: string, captions: readonly StoredCaption[]): void {
    const room = this.state.rooms.get(name);
    if (!room?.ready) return;
    // A node that was stalled reads a long batch at once: its live readers get each part before
    // the history moves past it, as they would have, had the captions come one by one.
    const part = Math.max(1, Math.floor(this.state.limits.replayMessages / 2));
    for (let i = 0; i < captions.length; i += part) {
      this.catchUp(room, this.absorb(room, captions.slice(i, i + part)));
    }
  }

  /** Adds captions to a room's history; true when they came with another epoch (log replaced). */
  private absorb(room: Room, captions: readonly StoredCaption[], last?: number): boolean {
    const retention = this.state.retention;
    let restarted = false;
    for (const caption of captions) {
      if (caption.epoch !== room.log.epoch) {
        this.resetLog(room, caption.epoch, caption.sequence);
        restarted = true;
      }
      const log = room.log;
      if (caption.sequence < log.next) continue;
      if (caption.sequence > log.next) {
        retention.clear(log);
        log.next = caption.sequence;
      }
      retention.append(log, {
        at: caption.at,
        frame: Buffer.from(captionFrame(caption.body, log.epoch, caption.sequence, caption.at)),
        delivery: caption.delivery,
      });
    }
    // Sequences given out that the stream no longer holds (trimmed): the history restarts after them.
    if (last !== undefined && last >= room.log.next) {
      retention.clear(room.log);
      room.log.next = last + 1;
    }
    return restarted;
  }

  /** After new captions: a `relay-restarted` gap first when the epoch changed, then the replay. */
  private catchUp(room: Room, restarted: boolean): void {
    if (restarted)
      for (const reader of room.readers) this.delivery.gap(reader, 'relay-restarted', room.log.oldest);
    for (const reader of room.readers) this.delivery.pump(reader);
  }

  private resetLog(room: Room, epoch: string, next: number): void {
    this.state.retention.clear(room.log);
    room.log = new RoomLog(epoch);
    room.log.next = next;
  }
}
