/**
 * Reads one output room from the relay as a reader with a durable cursor: each final caption is
 * accepted in one transaction (cursor + outbox rows + archive). When PostgreSQL refuses a write,
 * the reader is closed and reopened from the stored cursor, so that nothing read is lost.
 */
import type { RelayCaption, RelayGap } from '@live-captions/protocol';
import { createReader, type RelayReader } from '@live-captions/relay-client/node';
import type { Logger } from '@live-captions/runtime';
import type { IngestRepo } from '../adapters/ingest-repo.js';
import type { OutputsMetrics } from '../adapters/metrics.js';

export interface RoomReaderDeps {
  relayUrl: string;
  ingest: IngestRepo;
  metrics: OutputsMetrics;
  log: Logger;
  /** Called after a caption was accepted for the room's destinations. */
  onAccepted: () => void;
}

const REOPEN_MS = 2000;
const TRANSLATION_LABEL = 'translation';

export class RoomReader {
  private reader?: RelayReader;
  private chain: Promise<void> = Promise.resolve();
  /** Bumped on every (re)open: work queued for an earlier reader is dropped. */
  private generation = 0;
  private stopped = false;
  private timer?: NodeJS.Timeout;
  joined = false;

  constructor(
    readonly room: string,
    private token: string,
    private readonly deps: RoomReaderDeps,
  ) {}

  async start(): Promise<void> {
    const generation = ++this.generation;
    let cursor: Awaited<ReturnType<IngestRepo['cursor']>>;
    try {
      cursor = await this.deps.ingest.cursor(this.room);
    } catch (error) {
      this.retry(error);
      return;
    }
    if (this.stopped || generation !== this.generation) return;
    this.reader = createReader({
      url: this.deps.relayUrl,
      room: this.room,
      token: this.token,
      ...(cursor ? { cursor } : {}),
      onCaption: (caption) => this.queue(generation, () => this.caption(caption)),
      onGap: (gap) => this.queue(generation, () => this.gap(gap)),
      onState: ({ state, code }) => {
        const joined = state === 'joined';
        if (joined !== this.joined) this.deps.log.info({ room: this.room, state, code }, 'relay state');
        this.joined = joined;
      },
    });
  }

  /** The token changed (SIGHUP): reopen with it. */
  retoken(token: string): void {
    if (token === this.token) return;
    this.token = token;
    this.reopen();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.generation += 1;
    clearTimeout(this.timer);
    this.reader?.close();
    this.joined = false;
    await this.chain;
  }

  private queue(generation: number, work: () => Promise<void>): void {
    this.chain = this.chain.then(async () => {
      if (generation !== this.generation || this.stopped) return;
      try {
        await work();
      } catch (error) {
        if (generation === this.generation) this.retry(error);
      }
    });
  }

  private async caption(caption: RelayCaption): Promise<void> {
    const text = caption.final;
    // Interim captions and clears go nowhere; their positions need no write (a replay skips them).
    if (text === undefined || caption.c || text.trim() === '') return;
    // A room carrying both transcript and translation: destinations take the primary stream
    // (the capture page labels the second one `translation`, with the same id).
    if (caption.label === TRANSLATION_LABEL) return;
    const accepted = await this.deps.ingest.accept(this.room, {
      cursor: caption.relay,
      key: String(caption.id),
      text,
      at: Date.now(),
    });
    if (!accepted) return;
    if (accepted.archived) this.deps.metrics.sent.inc({ kind: 'archive' });
    this.deps.onAccepted();
  }

  private async gap(gap: RelayGap): Promise<void> {
    this.deps.metrics.gaps.inc();
    this.deps.log.warn({ room: this.room, gap: gap.gap, epoch: gap.epoch, next: gap.next }, 'relay gap');
    await this.deps.ingest.gap(this.room, { epoch: gap.epoch, sequence: gap.next - 1 }, Date.now());
  }

  private retry(error: unknown): void {
    this.deps.log.warn(
      // The code only: a driver's message may quote the statement.
      { room: this.room, code: (error as { code?: string }).code ?? 'unknown' },
      'database write failed; rereading from the stored cursor',
    );
    this.reopen(REOPEN_MS);
  }

  private reopen(delayMs = 0): void {
    this.generation += 1;
    this.reader?.close();
    this.reader = undefined;
    this.joined = false;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (!this.stopped) void this.start();
    }, delayMs);
  }
}
