/**
 * Reads one output room from the relay as a reader with a durable cursor: each final caption is
 * accepted in one transaction (cursor + outbox rows of its track + archive + the translation
 * targets' queue rows for an original). When PostgreSQL is unreachable, the reader is closed and
 * reopened from the stored cursor, so that nothing read is lost; when PostgreSQL refuses a
 * caption's values (a data error), that caption is skipped at once (counted, logged, shown as the
 * destinations' `lastError`) and the room goes on.
 */
import { cleanCaptionText, type RelayCaption, type RelayGap } from '@live-captions/protocol';
import { createReader, type RelayReader } from '@live-captions/relay-client/node';
import type { Logger } from '@live-captions/runtime';
import { isDataError, sqlState } from '@live-captions/sql';
import type { Accepted, IngestRepo } from '../adapters/ingest-repo.js';
import type { OutputsMetrics } from '../adapters/metrics.js';
import { DeliveryRuns, gapMessage } from '../domain/gaps.js';
import { ORIGINAL, trackOf } from '../domain/tracks.js';

export interface RoomReaderDeps {
  relayUrl: string;
  ingest: IngestRepo;
  metrics: OutputsMetrics;
  log: Logger;
  /** Called after a caption was accepted for the room's destinations and translation targets. */
  onAccepted: (accepted: Accepted) => void;
}

const REOPEN_MS = 2000;

export class RoomReader {
  private reader?: RelayReader;
  private chain: Promise<void> = Promise.resolve();
  /** Bumped on every (re)open: work queued for an earlier reader is dropped. */
  private generation = 0;
  private stopped = false;
  private timer?: NodeJS.Timeout;
  /** The database failed and has not answered since: one log line per outage, not per reopen. */
  private unreachable = false;
  /** The publishers' delivery sequences seen (domain/gaps.ts), through reopens. */
  private readonly runs = new DeliveryRuns();
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
    if (this.unreachable) {
      this.unreachable = false;
      this.deps.log.info({ room: this.room }, 'database reachable again; reading from the stored cursor');
    }
    if (this.stopped || generation !== this.generation) return;
    this.reader = createReader({
      url: this.deps.relayUrl,
      room: this.room,
      token: this.token,
      ...(cursor ? { cursor } : {}),
      // Each caption's publisher and sequence: how a loss is told from a lossless relay restart.
      deliveries: true,
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
    // Every frame counts towards its publisher's run, also one that needs no write below.
    const delivery = caption.delivery && this.runs.see(caption.delivery);
    const track = trackOf(caption);
    if (track === undefined) return;
    const clear = caption.c === true;
    // The relay refuses what breaks the caption text rule; one of an older version may not have.
    const text = cleanCaptionText(caption.final ?? '');
    // Interim captions go nowhere, nor empty finals, nor a translation's clear (the stage made
    // it); their positions need no write (a replay skips them). An original's clear reaches the
    // translation targets, which clear their tracks.
    if (clear ? track !== ORIGINAL : caption.final === undefined || text.trim() === '') return;
    let accepted: Accepted | undefined;
    try {
      accepted = await this.deps.ingest.accept(this.room, {
        cursor: caption.relay,
        id: typeof caption.id === 'string' ? cleanCaptionText(caption.id) : caption.id,
        text,
        // The relay's time (when it took the caption), so that captions replayed after an outage
        // keep their own place in the archive and on YouTube's timeline; a relay of an older
        // version sends none.
        at: caption.at ?? Date.now(),
        track,
        clear,
        ...(delivery ? { delivery } : {}),
      });
    } catch (error) {
      if (!isDataError(error)) throw error;
      await this.refused(caption, error);
      return;
    }
    if (!accepted) return;
    if (accepted.missed) {
      this.deps.metrics.gaps.inc();
      const { epoch, sequence } = caption.relay;
      this.deps.log.warn({ room: this.room, epoch, sequence, missed: accepted.missed }, 'captions missed');
    }
    if (accepted.archived) this.deps.metrics.sent.inc({ kind: 'archive' });
    this.deps.onAccepted(accepted);
  }

  /**
   * PostgreSQL refused the caption's values: retrying cannot help, and rereading it from the relay
   * would stall the room on it. The cursor moves past it at once; the skip is counted, logged and
   * shown on the room's destinations. (An outage meanwhile throws: the reader reopens as usual.)
   */
  private async refused(caption: RelayCaption, error: unknown): Promise<void> {
    const code = sqlState(error) ?? 'unknown';
    const { epoch, sequence } = caption.relay;
    this.deps.metrics.refused.inc();
    // The code and position only: a driver's message may quote the caption.
    this.deps.log.warn(
      { room: this.room, epoch, sequence, code },
      'caption refused by the database; skipped',
    );
    const message = `caption ${sequence} not stored: the database refused it (SQLSTATE ${code})`;
    try {
      await this.deps.ingest.refused(this.room, caption.relay, message, Date.now());
    } catch (again) {
      if (!isDataError(again)) throw again;
      // Not even the cursor can be stored: go on; a restart reads the caption again and skips it again.
      this.deps.log.warn(
        { room: this.room, code: sqlState(again) ?? 'unknown' },
        'cursor refused by the database',
      );
    }
  }

  /**
   * The relay's history no longer held what was missed: a gap, marked. The relay restarted: only
   * the cursor moves; whether captions went with it, the publishers' next captions tell (`accept`).
   */
  private async gap(gap: RelayGap): Promise<void> {
    this.deps.log.warn({ room: this.room, gap: gap.gap, epoch: gap.epoch, next: gap.next }, 'relay gap');
    const cursor = { epoch: gap.epoch, sequence: gap.next - 1 };
    if (gap.gap !== 'history-expired') {
      await this.deps.ingest.gap(this.room, cursor, Date.now());
      return;
    }
    this.deps.metrics.gaps.inc();
    await this.deps.ingest.gap(
      this.room,
      cursor,
      Date.now(),
      gapMessage({ kind: 'history-expired', next: gap.next }),
    );
  }

  private retry(error: unknown): void {
    // The code only: a driver's message may quote the statement. One line per outage.
    const fields = {
      room: this.room,
      code: sqlState(error) ?? (error as { code?: string }).code ?? 'unknown',
    };
    if (!this.unreachable)
      this.deps.log.warn(fields, 'database write failed; rereading from the stored cursor');
    else this.deps.log.debug(fields, 'database still unreachable');
    this.unreachable = true;
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
