/**
 * Runs what this replica is responsible for: for every room with destinations whose lease it
 * holds, a relay reader and a sender per platform destination. Checked every quarter of the
 * lease time, and at once when the API adds or removes a destination.
 */
import type { Logger } from '@live-captions/runtime';
import type { DestinationRow, DestinationsRepo } from '../adapters/destinations-repo.js';
import type { IngestRepo } from '../adapters/ingest-repo.js';
import type { OutputsMetrics } from '../adapters/metrics.js';
import type { RoomTokens } from '../domain/rooms.js';
import { RoomReader } from './room-reader.js';
import { Sender, type SenderDeps } from './sender.js';

export interface SupervisorDeps extends SenderDeps {
  destinationsRepo: DestinationsRepo;
  ingest: IngestRepo;
  relayUrl: string;
  rooms: () => Map<string, RoomTokens>;
  tickMs: number;
  log: Logger;
  metrics: OutputsMetrics;
}

interface RunningRoom {
  reader: RoomReader;
  senders: Map<string, Sender>;
}

export class Supervisor {
  private readonly running = new Map<string, RunningRoom>();
  private timer?: NodeJS.Timeout;
  private ticking: Promise<void> = Promise.resolve();
  private stopped = false;
  /** False while PostgreSQL cannot be read (health). */
  dbOk = true;

  constructor(private readonly deps: SupervisorDeps) {}

  start(): void {
    const loop = () => {
      this.timer = setTimeout(() => {
        void this.check().finally(() => {
          if (!this.stopped) loop();
        });
      }, this.deps.tickMs);
    };
    void this.check();
    loop();
  }

  /** Runs a check now (after the API changed a room's destinations); resolves when it is done. */
  check(): Promise<void> {
    this.ticking = this.ticking.then(() => this.tick()).catch(() => undefined);
    return this.ticking;
  }

  /** The sender of a destination when this replica runs it. */
  sender(id: string): Sender | undefined {
    for (const room of this.running.values()) {
      const sender = room.senders.get(id);
      if (sender) return sender;
    }
    return undefined;
  }

  /** Whether this replica reads `room` and its reader is joined. */
  roomState(room: string): 'joined' | 'connecting' | 'elsewhere' {
    const running = this.running.get(room);
    // Without Redis this replica runs every room: one not running yet is about to start.
    if (!running) return this.deps.leases.kind === 'local' ? 'connecting' : 'elsewhere';
    return running.reader.joined ? 'joined' : 'connecting';
  }

  relayState(): 'connected' | 'connecting' {
    return [...this.running.values()].every((room) => room.reader.joined) ? 'connected' : 'connecting';
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    for (const room of [...this.running.keys()]) await this.stopRoom(room);
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    let destinations: DestinationRow[];
    try {
      destinations = await this.deps.destinationsRepo.list();
      this.dbOk = true;
    } catch {
      this.dbOk = false;
      return;
    }
    const byRoom = new Map<string, DestinationRow[]>();
    for (const destination of destinations) {
      const list = byRoom.get(destination.room) ?? [];
      list.push(destination);
      byRoom.set(destination.room, list);
    }
    const tokens = this.deps.rooms();
    for (const [room, list] of byRoom) {
      const token = tokens.get(room)?.read;
      if (!token) {
        await this.stopRoom(room);
        continue;
      }
      if (await this.deps.leases.hold(room)) {
        this.runRoom(room, token, list);
        for (const d of list)
          if (d.kind !== 'archive')
            this.deps.metrics.behind.set({ destination: d.id, kind: d.kind }, d.behind);
      } else await this.stopRoom(room, false);
    }
    for (const room of [...this.running.keys()]) if (!byRoom.has(room)) await this.stopRoom(room);
    this.deps.metrics.leases.set(this.deps.leases.held());
    const joined = [...this.running.values()].filter((r) => r.reader.joined).length;
    this.deps.metrics.relay.set({ state: 'joined' }, joined);
    this.deps.metrics.relay.set({ state: 'connecting' }, this.running.size - joined);
  }

  private runRoom(room: string, token: string, destinations: DestinationRow[]): void {
    let running = this.running.get(room);
    if (!running) {
      const senders = new Map<string, Sender>();
      const reader = new RoomReader(room, token, {
        relayUrl: this.deps.relayUrl,
        ingest: this.deps.ingest,
        metrics: this.deps.metrics,
        log: this.deps.log,
        onAccepted: () => {
          for (const sender of senders.values()) sender.wake();
        },
      });
      running = { reader, senders };
      this.running.set(room, running);
      this.deps.log.info({ room }, 'room lease held; reading');
      void reader.start();
    } else running.reader.retoken(token);
    const wanted = new Set(destinations.map((d) => d.id));
    for (const [id, sender] of running.senders)
      if (!wanted.has(id)) {
        running.senders.delete(id);
        void sender.stop();
      }
    for (const destination of destinations) {
      if (destination.kind === 'archive' || running.senders.has(destination.id)) continue;
      running.senders.set(destination.id, new Sender(destination, this.deps));
    }
  }

  private async stopRoom(room: string, release = true): Promise<void> {
    const running = this.running.get(room);
    if (!running) return;
    this.running.delete(room);
    await Promise.all([running.reader.stop(), ...[...running.senders.values()].map((s) => s.stop())]);
    if (release) await this.deps.leases.release(room);
    this.deps.log.info({ room }, release ? 'room released' : 'room lease lost; stopped');
  }
}
