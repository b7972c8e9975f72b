/**
 * Runs what this replica is responsible for: for every room with destinations or translation
 * targets whose lease it holds, a relay reader, a sender per platform destination and a
 * translator per target language. Checked every quarter of the lease time, and at once when the
 * API adds or removes a destination or a target.
 */
import { type Logger, Supervision } from '@live-captions/runtime';
import type { DestinationRow, DestinationsRepo } from '../adapters/destinations-repo.js';
import type { IngestRepo } from '../adapters/ingest-repo.js';
import type { OutputsMetrics } from '../adapters/metrics.js';
import type { TranslationRow } from '../adapters/translations-repo.js';
import type { RoomTokens } from '../domain/rooms.js';
import { RoomReader } from './room-reader.js';
import { Sender, type SenderDeps } from './sender.js';
import { Translator, type TranslatorDeps } from './translator.js';

export interface SupervisorDeps extends SenderDeps, TranslatorDeps {
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
  translators: Map<string, Translator>;
}

export class Supervisor extends Supervision {
  private readonly running = new Map<string, RunningRoom>();

  constructor(private readonly deps: SupervisorDeps) {
    super(deps.tickMs);
  }

  /** The sender of a destination when this replica runs it. */
  sender(id: string): Sender | undefined {
    for (const room of this.running.values()) {
      const sender = room.senders.get(id);
      if (sender) return sender;
    }
    return undefined;
  }

  /** The translator of a target when this replica runs it. */
  translator(id: string): Translator | undefined {
    for (const room of this.running.values()) {
      const translator = room.translators.get(id);
      if (translator) return translator;
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

  protected async stopAll(): Promise<void> {
    for (const room of [...this.running.keys()]) await this.stopRoom(room);
  }

  protected async tick(): Promise<void> {
    const wanted = await this.read(async () => ({
      destinations: await this.deps.destinationsRepo.list(),
      targets: await this.deps.translations.list(),
    }));
    if (!wanted) return;
    const { destinations, targets } = wanted;
    const byRoom = new Map<string, { destinations: DestinationRow[]; targets: TranslationRow[] }>();
    const work = (room: string) => {
      const entry = byRoom.get(room) ?? { destinations: [], targets: [] };
      byRoom.set(room, entry);
      return entry;
    };
    for (const destination of destinations) work(destination.room).destinations.push(destination);
    for (const target of targets) work(target.room).targets.push(target);
    const tokens = this.deps.rooms();
    for (const [room, entry] of byRoom) {
      const token = tokens.get(room);
      if (!token) {
        await this.stopRoom(room);
        continue;
      }
      if (await this.deps.leases.hold(room)) {
        this.runRoom(room, token, entry.destinations, entry.targets);
        for (const d of entry.destinations)
          if (d.kind !== 'archive')
            this.deps.metrics.behind.set({ destination: d.id, kind: d.kind }, d.behind);
        for (const t of entry.targets)
          this.deps.metrics.translationBehind.set({ translation: t.id, target: t.target }, t.behind);
      } else await this.stopRoom(room, false);
    }
    for (const room of [...this.running.keys()]) if (!byRoom.has(room)) await this.stopRoom(room);
    this.deps.metrics.leases.set(this.deps.leases.held());
    const joined = [...this.running.values()].filter((r) => r.reader.joined).length;
    this.deps.metrics.relay.set({ state: 'joined' }, joined);
    this.deps.metrics.relay.set({ state: 'connecting' }, this.running.size - joined);
  }

  private runRoom(
    room: string,
    tokens: RoomTokens,
    destinations: DestinationRow[],
    targets: TranslationRow[],
  ): void {
    const token = tokens.read;
    let running = this.running.get(room);
    if (!running) {
      const senders = new Map<string, Sender>();
      const translators = new Map<string, Translator>();
      const reader = new RoomReader(room, token, {
        relayUrl: this.deps.relayUrl,
        ingest: this.deps.ingest,
        metrics: this.deps.metrics,
        log: this.deps.log,
        onAccepted: (accepted) => {
          if (accepted.sent) for (const sender of senders.values()) sender.wake();
          if (accepted.queued) for (const translator of translators.values()) translator.wake();
        },
      });
      running = { reader, senders, translators };
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
    // A translator publishes with the room's write token: a new token (SIGHUP) starts it again.
    const translating = new Set(targets.map((t) => t.id));
    for (const [id, translator] of running.translators)
      if (!translating.has(id) || translator.token !== tokens.write) {
        running.translators.delete(id);
        void translator.stop();
      }
    for (const target of targets) {
      if (running.translators.has(target.id)) continue;
      running.translators.set(target.id, new Translator(target, tokens.write, this.deps));
    }
  }

  private async stopRoom(room: string, release = true): Promise<void> {
    const running = this.running.get(room);
    if (!running) return;
    this.running.delete(room);
    await Promise.all([
      running.reader.stop(),
      ...[...running.senders.values()].map((s) => s.stop()),
      ...[...running.translators.values()].map((t) => t.stop()),
    ]);
    if (release) await this.deps.leases.release(room);
    this.deps.log.info({ room }, release ? 'room released' : 'room lease lost; stopped');
  }
}
