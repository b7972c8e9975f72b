/**
 * Where a running source's captions go: its source room on the relay, one publisher per runner.
 * A window's answer becomes a caption with the operator's word rules applied, a gap marker says
 * what will never be captioned; each gets an id of `CaptionIds`. The relay's acks count the
 * captions sent (a translation under the same id and a gap marker are not captions of their own).
 */
import {
  applyWordRules,
  type CaptionFrame,
  captionFrames,
  type GapReason,
  gapFrame,
  hasText,
  sleepOf,
  windowCaption,
  withWords,
} from '@live-captions/capture';
import type { TaskMode } from '@live-captions/protocol';
import { createPublisher, type RelayPublisher } from '@live-captions/relay-client/node';
import type { Logger } from '@live-captions/runtime';
import type { SourcesMetrics } from '../adapters/metrics.js';
import type { SourcesRepo } from '../adapters/sources-repo.js';
import type { SourceSettings } from '../domain/source.js';
import { CaptionIds } from './caption-ids.js';

export interface SourceCaptionsDeps {
  repo: SourcesRepo;
  relayUrl: string;
  /** The source room's write token, or undefined when the relay config has no such room. */
  writeToken: (room: string) => string | undefined;
  log: Logger;
  metrics: SourcesMetrics;
}

export class SourceCaptions {
  private readonly publisher: RelayPublisher | undefined;
  /** Per frame published, in order: whether its ack counts as a caption sent (not a translation). */
  private readonly counted: boolean[] = [];
  private readonly ids: CaptionIds;
  /** The room's write sockets, this one included, as the relay last said (none heard yet). */
  writers: number | undefined;

  constructor(
    private readonly source: { id: string; room: string },
    /** The word rules of now (the operator may change them while it runs). */
    private readonly settings: () => SourceSettings,
    private readonly deps: SourceCaptionsDeps,
  ) {
    const token = deps.writeToken(source.room);
    this.publisher = token
      ? createPublisher({
          url: deps.relayUrl,
          room: source.room,
          token,
          onAck: () => this.sent(this.counted.shift() ?? false),
          onWriters: (writers) => {
            this.writers = writers;
          },
        })
      : undefined;
    this.ids = new CaptionIds(source.id, () => deps.repo.nextRun(source.id));
  }

  async window(result: Parameters<typeof windowCaption>[0], mode: TaskMode): Promise<void> {
    const { replacements, maskProfanity } = this.settings();
    const words = (text: string) => applyWordRules(text, { replacements, maskProfanity });
    const caption = withWords(windowCaption(result, mode), words);
    if (!hasText(caption)) return;
    const id = await this.ids.next();
    for (const frame of captionFrames(caption, id)) this.publish(frame, frame.label === undefined);
  }

  async gap(seconds: number, reason: GapReason): Promise<void> {
    if (seconds <= 0) return;
    this.deps.log.info({ source: this.source.id, seconds: Number(seconds.toFixed(1)), reason }, 'gap marked');
    this.publish(gapFrame(seconds, reason, await this.ids.next()), false);
  }

  /** Gives the relay a moment to ack the last captions, then closes the connection. */
  async close(): Promise<void> {
    for (let i = 0; i < 20 && (this.publisher?.queued ?? 0) > 0; i++) await sleepOf()(100);
    this.publisher?.close();
  }

  private publish(frame: CaptionFrame, counts: boolean): void {
    if (this.publisher?.publish(frame)) this.counted.push(counts);
    else if (this.publisher)
      this.deps.log.warn({ source: this.source.id }, 'relay queue full; caption not sent');
  }

  private sent(counts: boolean): void {
    if (!counts) return;
    this.deps.metrics.captions.inc();
    void this.deps.repo.countSent(this.source.id, 1).catch(() => undefined);
  }
}
