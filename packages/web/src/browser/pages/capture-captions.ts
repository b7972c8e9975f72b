/// <reference lib="dom" />
/**
 * The capture page's captions, whichever the transport: each final is shown (last lines), kept
 * for the transcript download and published to the relay's source room, one caption id per
 * window or utterance; the realtime transport's partial text is shown under them until its
 * final arrives.
 */

import {
  captionFrames,
  type FinalCaption,
  formatSeconds,
  GapMarks,
  type GapReason,
  gapText,
  hasText,
  windowCaption,
  withWords,
} from '@live-captions/capture';
import type { TaskMode, TranscribeResponse } from '@live-captions/protocol';
import type { RelayPublisher } from '@live-captions/relay-client';
import type { RealtimeFinal } from '../lib/realtime-transcripts.js';
import type { Transcript } from '../lib/transcript.js';

const SHOWN_LINES = 8;

export interface CaptionElements {
  captions: HTMLOListElement;
  empty: HTMLElement;
  partial: HTMLElement;
  download: HTMLButtonElement;
  stats: HTMLElement;
}

export class CaptionBoard {
  private count = 0;
  private readonly gaps = new GapMarks();

  constructor(
    private readonly ui: CaptionElements,
    private readonly transcript: Transcript,
    /** Caption ids are `<prefix>-<n>`. */
    private readonly prefix: string,
    private readonly publisher: () => RelayPublisher | undefined,
    /** The operator's word rules (capture-words.ts), applied here, before anything is published. */
    private readonly words: (text: string) => string = (text) => text,
  ) {}

  /** A rolling window's answer. */
  addWindow(result: TranscribeResponse, mode: TaskMode): void {
    this.ui.stats.textContent = `Last window: ${formatSeconds(result.audio_seconds)} audio, queue ${result.queue_seconds.toFixed(2)} s, inference ${result.inference_seconds.toFixed(2)} s`;
    this.add(windowCaption(result, mode));
  }

  /** A realtime utterance's final text; `language` is the text's (`en` when translating) or `auto`. */
  addUtterance(final: RealtimeFinal, language: string): void {
    if (final.audioStartMs !== undefined && final.audioEndMs !== undefined)
      this.ui.stats.textContent = `Last utterance: ${formatSeconds((final.audioEndMs - final.audioStartMs) / 1000)} audio`;
    this.add({
      text: final.text,
      ...(language !== 'auto' ? { ln: language } : {}),
      ...(final.trimmed ? { trimmed: true as const } : {}),
    });
  }

  /**
   * Audio that will never be captioned: skipped by the lag watchdog to catch up with the live
   * edge, or dropped because the buffer was full through a long outage. A visible marker in the
   * list, a gap mark in the transcript, and a gap caption in the source room (label `gap`, as a
   * stream source publishes one), so that the editor, the output room, the audience and the
   * archive show it too; never silently.
   */
  addGap(seconds: number, reason: GapReason): void {
    const text = (total: number) => gapText(total, reason);
    this.transcript.add({ at: new Date(), text: text(seconds) });
    this.publisher()?.publish(this.gaps.add(seconds, reason, () => `${this.prefix}-${++this.count}`));
    const last = this.ui.captions.lastElementChild as HTMLElement | null;
    // Consecutive gaps of one kind make one marker that grows.
    if (last?.dataset.gap && last.dataset.reason === reason) {
      const total = Number(last.dataset.gap) + seconds;
      last.dataset.gap = String(total);
      last.textContent = text(total);
      return;
    }
    const item = document.createElement('li');
    item.className = 'caption-gap';
    item.dataset.gap = String(seconds);
    item.dataset.reason = reason;
    item.textContent = text(seconds);
    this.ui.captions.append(item);
    this.ui.empty.hidden = true;
  }

  showPartial(text: string): void {
    this.ui.partial.textContent = text;
    this.ui.partial.hidden = text === '';
    if (text) this.ui.empty.hidden = true;
  }

  private add(given: FinalCaption): void {
    const caption = withWords(given, this.words);
    if (!hasText(caption)) return;
    const { text, translation } = caption;
    this.transcript.add({
      at: new Date(),
      text: text || translation!,
      ...(translation && text ? { translation } : {}),
    });
    this.show(text || translation!, text ? translation : undefined);
    this.count += 1;
    this.gaps.captioned();
    const publisher = this.publisher();
    for (const frame of captionFrames(caption, `${this.prefix}-${this.count}`)) publisher?.publish(frame);
  }

  private show(text: string, translation?: string): void {
    const item = document.createElement('li');
    const line = document.createElement('span');
    line.className = 'caption-text';
    line.textContent = text;
    item.append(line);
    if (translation) {
      const second = document.createElement('span');
      second.className = 'caption-translation';
      second.lang = 'en';
      second.textContent = translation;
      item.append(second);
    }
    this.ui.captions.append(item);
    while (this.ui.captions.children.length > SHOWN_LINES) this.ui.captions.firstElementChild?.remove();
    this.ui.empty.hidden = true;
    this.ui.download.disabled = false;
  }
}
