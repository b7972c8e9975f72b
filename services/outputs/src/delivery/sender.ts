/**
 * Delivers one YouTube or Zoom destination's outbox in order: the oldest fixed POST is sent
 * again as it is (same seq, same body) until the platform accepts it; otherwise the captions that
 * waited since the last POST are fixed into the next one, no sooner than the platform's pacing.
 * Before every POST the room's lease is checked: a replica that lost it stops first.
 */
import { randomUUID } from 'node:crypto';
import type { DestinationState } from '@live-captions/protocol';
import type { Leases } from '@live-captions/redis';
import type { Logger } from '@live-captions/runtime';
import type { DestinationRow, DestinationsRepo } from '../adapters/destinations-repo.js';
import type { OutputsMetrics } from '../adapters/metrics.js';
import type { OutboxRepo, Post } from '../adapters/outbox-repo.js';
import { PlatformUnreachable, platformRequest } from '../adapters/platform-http.js';
import { clockOffset, youtubeBody, zoomBody } from '../domain/platform-bodies.js';
import { appendQuery, zoomSeqUrl } from '../domain/request-urls.js';
import { backoffMs, type Outcome, outcomeOf } from '../domain/retry.js';

export interface SenderDeps {
  outbox: OutboxRepo;
  destinations: DestinationsRepo;
  leases: Leases;
  metrics: OutputsMetrics;
  log: Logger;
  intervalMs: { youtube: number; zoom: number };
  timeoutMs: number;
  failingRetryMs: number;
  retryMaxMs: number;
  /** A caption older than this (the relay's time) when its turn comes is not sent (archived only). */
  liveMaxAgeMs: number;
}

/** Captions per POST at most: a backlog after an outage goes out in bounded bodies. */
const MAX_CAPTIONS = 20;
const IDLE_POLL_MS = 1000;

export class Sender {
  state: DestinationState = 'starting';
  private stopped = false;
  private wakeUp?: () => void;
  private lastAttempt = 0;
  private attempt = 0;
  /** When the failed request may be tried again (fixed once per failure: the jitter is not re-rolled). */
  private retryAt = 0;
  private synced: boolean;
  private offsetMs: number;
  private readonly log: Logger;
  readonly done: Promise<void>;

  constructor(
    readonly destination: DestinationRow,
    private readonly deps: SenderDeps,
  ) {
    // Zoom: after every start, ask Zoom which seq it has before sending (restart, takeover).
    this.synced = destination.kind !== 'zoom';
    this.offsetMs = destination.clockOffsetMs;
    this.log = deps.log.child({
      destination: destination.id,
      kind: destination.kind,
      room: destination.room,
    });
    this.done = this.run();
  }

  wake(): void {
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.done;
    this.deps.metrics.behind.remove({ destination: this.destination.id, kind: this.destination.kind });
  }

  private get url(): string {
    return this.destination.url ?? '';
  }

  private async run(): Promise<void> {
    let paused = false;
    while (!this.stopped) {
      try {
        await this.step();
        if (paused) this.log.info('delivery resumed: database reachable');
        paused = false;
      } catch (error) {
        // PostgreSQL unreachable: nothing was marked, the same POST goes again later. One line per
        // outage; each further failed step at debug.
        const code = { code: (error as { code?: string }).code ?? 'unknown' };
        if (!paused) this.log.warn(code, 'delivery paused: database');
        else this.log.debug(code, 'delivery still paused: database');
        paused = true;
        await this.sleep(1000);
      }
    }
    this.setState('stopped');
  }

  private async step(): Promise<void> {
    const { room, id, kind } = this.destination;
    if (!this.deps.leases.valid(room)) return this.sleep(200);
    // A new caption wakes the sender; it does not shorten a backoff.
    if (this.attempt > 0 && this.retryAt > Date.now()) return this.sleep(this.retryAt - Date.now());
    if (!this.synced) {
      // Zoom is asked only once there is something to send: a destination added before the
      // meeting (or the event) starts stays quiet until its first caption.
      if (!(await this.deps.outbox.waiting(id))) return this.idle();
      return this.resync();
    }
    let post = await this.deps.outbox.pending(id);
    if (!post) {
      const waitMs =
        this.lastAttempt + this.deps.intervalMs[kind === 'zoom' ? 'zoom' : 'youtube'] - Date.now();
      if (waitMs > 0) return this.sleep(waitMs);
      const fixed = await this.deps.outbox.fix(
        id,
        MAX_CAPTIONS,
        (captions) => (kind === 'zoom' ? zoomBody(captions) : youtubeBody(captions, this.offsetMs)),
        Date.now() - this.deps.liveMaxAgeMs,
      );
      if (fixed.skipped > 0) {
        this.deps.metrics.skipped.inc({ kind }, fixed.skipped);
        this.log.warn(
          { captions: fixed.skipped, maxAgeMs: this.deps.liveMaxAgeMs },
          'captions too old for live; archived only',
        );
      }
      post = fixed.post;
      if (!post) return this.idle();
    }
    // Fencing: the lease may have lapsed while the body was fixed.
    if (!this.deps.leases.valid(room) || this.stopped) return;
    await this.send(post);
  }

  private idle(): Promise<void> {
    if (this.state === 'starting') this.setState('sending');
    return this.sleep(IDLE_POLL_MS);
  }

  private async send(post: Post): Promise<void> {
    const { id, kind } = this.destination;
    const params: Record<string, string | number> =
      kind === 'zoom' ? { seq: post.seq, lang: this.destination.lang ?? 'en-US' } : { seq: post.seq };
    const delivery = randomUUID();
    this.lastAttempt = Date.now();
    const sentAt = Date.now();
    const outcome = await this.request('POST', appendQuery(this.url, params), post.body);
    if (outcome.ok) {
      const answeredAt = Date.now();
      const captions = await this.deps.outbox.delivered(id, post.seq);
      this.deps.metrics.sent.inc({ kind }, captions);
      if (kind === 'youtube') await this.measureClock(outcome.body, sentAt, answeredAt);
      if (this.attempt > 0 || this.state !== 'sending')
        this.log.info({ delivery, seq: post.seq, captions }, 'destination sending');
      this.attempt = 0;
      this.setState('sending');
      return;
    }
    this.deps.metrics.failed.inc({ kind });
    await this.failed(outcome, { delivery, seq: post.seq });
  }

  private async resync(): Promise<void> {
    this.lastAttempt = Date.now();
    const outcome = await this.request('GET', zoomSeqUrl(this.url));
    const accepted = outcome.ok ? Number.parseInt(outcome.body.trim(), 10) : Number.NaN;
    if (outcome.ok && Number.isSafeInteger(accepted) && accepted >= 0) {
      const captions = await this.deps.outbox.resync(this.destination.id, accepted);
      if (captions > 0) this.deps.metrics.sent.inc({ kind: 'zoom' }, captions);
      this.log.info({ accepted, captions }, 'zoom seq resynced');
      this.synced = true;
      this.attempt = 0;
      return;
    }
    await this.failed(
      outcome.ok ? { ok: false, failing: true, message: 'seq answer unreadable' } : outcome,
      {},
    );
  }

  private async failed(outcome: Outcome & { ok: false }, fields: Record<string, unknown>): Promise<void> {
    this.attempt += 1;
    await this.deps.destinations.recordError(this.destination.id, outcome.message, outcome.failing);
    const state = outcome.failing ? 'failing' : 'waiting';
    this.retryAt =
      Date.now() +
      (outcome.failing ? this.deps.failingRetryMs : backoffMs(this.attempt, this.deps.retryMaxMs));
    // One warning per change of state; every further failed attempt at debug level.
    const fieldsOf = { ...fields, error: outcome.message, attempt: this.attempt };
    if (state !== this.state || this.attempt === 1) this.log.warn(fieldsOf, `destination ${state}`);
    else this.log.debug(fieldsOf, 'destination retry failed');
    this.setState(state);
  }

  private async request(
    method: 'GET' | 'POST',
    url: string,
    body?: string,
  ): Promise<(Outcome & { ok: false }) | { ok: true; body: string }> {
    try {
      // Both platforms: plain text in UTF-8 (Zoom: not form-encoded).
      const contentType = 'text/plain; charset=utf-8';
      const answer = await platformRequest(method, url, {
        timeoutMs: this.deps.timeoutMs,
        ...(body === undefined ? {} : { body, contentType }),
      });
      const outcome = outcomeOf(answer.status);
      return outcome.ok ? { ok: true, body: answer.body } : outcome;
    } catch (error) {
      if (error instanceof PlatformUnreachable) return { ok: false, failing: false, message: error.message };
      throw error;
    }
  }

  private async measureClock(answer: string, sentAt: number, answeredAt: number): Promise<void> {
    const offset = clockOffset(answer, sentAt, answeredAt);
    if (offset === undefined || Math.abs(offset - this.offsetMs) < 100) return;
    this.offsetMs = offset;
    await this.deps.destinations.setClockOffset(this.destination.id, offset);
    this.log.info({ offsetMs: offset }, 'youtube clock offset');
  }

  private setState(state: DestinationState): void {
    this.state = state;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }
}
