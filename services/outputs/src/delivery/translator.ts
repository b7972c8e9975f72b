/**
 * The translator of one target language of a room this replica holds: it takes the room's
 * original captions (and clears) from the target's queue, which the room reader's transaction
 * fills, translates them sentence-aware (`translateStep` of @live-captions/translation) with the
 * room's vocabulary, stores each step's frames with their relay delivery identities before the
 * first attempt (`fix`), and publishes them into the same output room with its own publisher. The
 * original is never delayed: this runs beside the reader, never on its path; a slow or failing
 * engine costs only this track, which says so (state, last error, behind). Beside it: its waits
 * (`waits.ts`), its frames' acks (`translation-acks.ts`), what an engine failure means
 * (`domain/engine-failures.ts`).
 */
import type { TranslationState } from '@live-captions/protocol';
import { createPublisher, type RelayPublisher } from '@live-captions/relay-client/node';
import type { Logger } from '@live-captions/runtime';
import {
  clearTrackState,
  type TrackState,
  type TranslationEngine,
  translateStep,
} from '@live-captions/translation';
import type { OutputsMetrics } from '../adapters/metrics.js';
import type { TranslationEngines } from '../adapters/translation-engines.js';
import type { QueuedCaption, TranslationRow, TranslationsRepo } from '../adapters/translations-repo.js';
import type { VocabularyRepo } from '../adapters/vocabulary-repo.js';
import { engineFailure } from '../domain/engine-failures.js';
import { backoffMs } from '../domain/retry.js';
import { clearFrame, translationFrame } from '../domain/translation-frames.js';
import { TranslationAcks } from './translation-acks.js';
import { Waits } from './waits.js';

export interface TranslatorDeps {
  translations: TranslationsRepo;
  vocabulary: VocabularyRepo;
  engines: TranslationEngines;
  relayUrl: string;
  metrics: OutputsMetrics;
  log: Logger;
  /** Retry interval while the engine refuses the requests (key, quota, pair). */
  failingRetryMs: number;
  /** Longest wait between two retries of an engine that failed in a way worth retrying soon. */
  retryMaxMs: number;
}

/** Nothing to do: wait for a wake (a caption queued, an ack), or poll after this long. */
const IDLE_POLL_MS = 1000;
/** Frames handed to the publisher at once (it keeps them, unacked, through reconnects). */
const PUBLISH_BATCH = 50;
/** The relay closes a socket over 40 frames a second: a backlog after an outage stays under. */
const MAX_PER_SECOND = 30;
/** How long the room's vocabulary is reused before it is read again. */
const VOCABULARY_MS = 5000;

export class Translator {
  state: TranslationState = 'starting';
  private stopped = false;
  private readonly waits = new Waits();
  private readonly publisher: RelayPublisher;
  private readonly acks: TranslationAcks;
  /** Consecutive failed attempts (engine or database): the backoff's exponent. */
  private attempt = 0;
  /** The database failed and has not answered since. */
  private databaseDown = false;
  private engine?: TranslationEngine;
  private vocabulary?: { until: number; terms: string[] };
  private readonly done: Promise<void>;

  constructor(
    private readonly row: TranslationRow,
    /** The room's write token: the publisher publishes into the room. */
    readonly token: string,
    private readonly deps: TranslatorDeps,
  ) {
    this.acks = new TranslationAcks(row, deps, () => this.wake());
    this.publisher = createPublisher({
      url: deps.relayUrl,
      room: row.room,
      token,
      clientId: row.deliveryClient,
      maxQueue: PUBLISH_BATCH,
      maxPerSecond: MAX_PER_SECOND,
      onAck: (ack) => this.acks.acked(ack.ack.sequence),
      onState: ({ state, code }) => {
        if (state === 'joined' && this.state === 'starting') this.setState('translating');
        else if (state === 'waiting')
          this.deps.log.info(this.fields({ relay: state, code }), 'translation publisher disconnected');
      },
    });
    this.done = this.loop();
  }

  get id(): string {
    return this.row.id;
  }

  /** Work may be waiting (a caption was queued). */
  wake(): void {
    this.waits.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.waits.stop();
    await this.done;
    await this.acks.settled();
    this.publisher.close();
  }

  private fields(extra: Record<string, unknown> = {}) {
    return { room: this.row.room, translation: this.row.id, target: this.row.target, ...extra };
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let delay: { ms: number; wakeable: boolean };
      try {
        delay = await this.step();
      } catch (error) {
        // PostgreSQL: nothing was stored, so the step is simply done again later.
        this.attempt += 1;
        if (!this.databaseDown)
          this.deps.log.warn(
            this.fields({ code: (error as { code?: string }).code ?? 'unknown' }),
            'translation paused: the database failed',
          );
        this.databaseDown = true;
        this.setState('waiting');
        delay = { ms: backoffMs(this.attempt, this.deps.retryMaxMs), wakeable: false };
      }
      if (this.stopped) break;
      if (delay.ms > 0) await this.waits.sleep(delay.ms, delay.wakeable);
    }
  }

  /**
   * One round: hand what is fixed to the publisher, then translate the next caption while those
   * frames wait for their acks (an ack only marks a frame done; the publisher keeps the order).
   * A full publisher waits for acks. The wait that follows.
   */
  private async step(): Promise<{ ms: number; wakeable: boolean }> {
    const idle = { ms: IDLE_POLL_MS, wakeable: true };
    const pending = await this.deps.translations.pendingFrames(this.row.id, PUBLISH_BATCH);
    if (this.databaseDown) {
      this.databaseDown = false;
      this.attempt = 0;
      this.deps.log.info(this.fields(), 'translation resumed: the database answers again');
      this.setState('translating');
    }
    for (const frame of pending) {
      if (this.acks.has(frame.sequence)) continue;
      const delivery = { client: this.row.deliveryClient, sequence: frame.sequence };
      // An ack wakes the loop; the poll is a safety net.
      if (!this.publisher.publish(JSON.parse(frame.frame), delivery)) return idle;
      this.acks.add(frame.sequence, { own: frame.own, at: frame.at });
    }
    const next = await this.deps.translations.next(this.row.id);
    if (!next) return idle;
    const state = JSON.parse(next.trackState) as TrackState;
    if (next.clear) {
      const frame = JSON.stringify(clearFrame(next.captionId, this.row.target));
      await this.deps.translations.fix(this.row.id, {
        queueId: next.queueId,
        steps: next.steps,
        trackState: JSON.stringify(clearTrackState(state)),
        frames: [{ frame, own: false }],
      });
      return { ms: 0, wakeable: true };
    }
    return this.translate(next, state);
  }

  private async translate(
    next: QueuedCaption,
    state: TrackState,
  ): Promise<{ ms: number; wakeable: boolean }> {
    const keep = await this.terms();
    let result: Awaited<ReturnType<typeof translateStep>>;
    try {
      const engine = this.engineNow();
      const { source, target } = this.row;
      result = await translateStep(
        state,
        { id: next.captionId, text: next.text },
        (texts, context) =>
          engine.translate(
            { source, target, texts, ...(context === undefined ? {} : { context }) },
            this.waits.signal,
          ),
        { keep },
      );
    } catch (error) {
      return this.engineFailed(error, next);
    }
    const frames = result.publications
      // A piece whose words the earlier pieces already show has nothing of its own to show.
      .filter((publication) => publication.text.trim() !== '')
      .map((publication) => ({
        frame: JSON.stringify(translationFrame(publication.id, publication.text, this.row.target)),
        own: publication.id === next.captionId && !publication.correction,
      }));
    await this.deps.translations.fix(this.row.id, {
      queueId: next.queueId,
      steps: next.steps,
      trackState: JSON.stringify(result.state),
      frames,
    });
    if (this.attempt > 0 || this.state !== 'translating') {
      if (this.state === 'failing') await this.deps.translations.clearFailing(this.row.id);
      this.attempt = 0;
      this.setState('translating');
    }
    return { ms: 0, wakeable: true };
  }

  private engineNow(): TranslationEngine {
    if (!this.engine) {
      const { engine, url, key } = this.row;
      this.engine = this.deps.engines.engine({
        kind: engine,
        ...(url === null ? {} : { url }),
        ...(key === null ? {} : { key }),
      });
    }
    return this.engine;
  }

  /**
   * What an engine failure costs (`engineFailure`): `retry` -> `waiting` with backoff; `refused`
   * -> `failing`, retried slowly; `skip` -> the caption is skipped, counted, and the track goes on.
   * The error is recorded once per state change.
   */
  private async engineFailed(
    error: unknown,
    next: QueuedCaption,
  ): Promise<{ ms: number; wakeable: boolean }> {
    if (this.stopped) return { ms: 0, wakeable: false };
    const { action, code, message, retryAfterMs } = engineFailure(error);
    this.deps.metrics.engineErrors.inc({ engine: this.row.engine, code });
    if (action === 'retry') {
      this.attempt += 1;
      await this.enter('waiting', message, code, false);
      const wait = Math.max(backoffMs(this.attempt, this.deps.retryMaxMs), retryAfterMs ?? 0);
      return { ms: Math.min(wait, this.deps.failingRetryMs), wakeable: false };
    }
    if (action === 'refused') {
      this.attempt += 1;
      // The settings may have been refused because of them: built again on the next attempt.
      this.engine = undefined;
      await this.enter('failing', message, code, true);
      return { ms: this.deps.failingRetryMs, wakeable: false };
    }
    await this.deps.translations.fix(this.row.id, {
      queueId: next.queueId,
      steps: next.steps,
      trackState: next.trackState,
      frames: [],
      skipped: `caption skipped: ${message}`,
    });
    this.deps.log.warn(this.fields({ code }), 'caption skipped: the engine refused its text');
    return { ms: 0, wakeable: true };
  }

  private async enter(
    state: TranslationState,
    message: string,
    code: string,
    failing: boolean,
  ): Promise<void> {
    if (this.state === state) return;
    this.setState(state, { code });
    await this.deps.translations.recordError(this.row.id, message, failing);
  }

  private setState(state: TranslationState, extra: Record<string, unknown> = {}): void {
    if (state === this.state) return;
    this.state = state;
    this.deps.log.info(this.fields({ engine: this.row.engine, state, ...extra }), 'translation state');
  }

  private async terms(): Promise<string[]> {
    const now = Date.now();
    if (this.vocabulary && this.vocabulary.until > now) return this.vocabulary.terms;
    const terms = await this.deps.vocabulary.get(this.row.room);
    this.vocabulary = { until: now + VOCABULARY_MS, terms };
    return terms;
  }
}

export type { TranslationRow };
