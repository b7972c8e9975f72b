/**
 * What a capture publishes (pure): a rolling window's answer as one final caption (transcript,
 * or the translation in mode `translate`; in mode `both` the transcript with its translation),
 * the operator's word rules applied to it, the relay frames it becomes (one caption id per
 * window, the translation under the same id with `label: "translation"`), and the gap marker
 * written where audio will never be captioned. The capture page and the stream sources service
 * both publish through these, so a caption from a stream looks exactly like one from a microphone.
 */
import type { TaskMode, TranscribeResponse } from '@live-captions/protocol';

/** A final caption. */
export interface FinalCaption {
  /** The transcript (or the translation in mode `translate`). */
  text: string;
  ln?: string;
  /** Mode `both`: the English translation, published with the same id. */
  translation?: string;
  /** A guard removed hallucinated or repeated text: the editor marks it. */
  trimmed?: true;
}

/** One caption frame for the relay (`@live-captions/relay-client`'s publish input). */
export interface CaptionFrame {
  final: string;
  id: string;
  ln?: string;
  label?: string;
  trimmed?: boolean;
}

/** The label of a translation published beside its transcript. */
export const TRANSLATION_LABEL = 'translation';
/** The label of a gap marker in a source room (audio that will never be captioned). */
export const GAP_LABEL = 'gap';

export const formatSeconds = (seconds: number): string => `${seconds.toFixed(1)} s`;

/** A rolling window's answer as a caption (its text may be empty: nothing to publish). */
export function windowCaption(result: TranscribeResponse, mode: TaskMode): FinalCaption {
  const language = result.language ?? undefined;
  const trimmed = result.trimmed ? { trimmed: true as const } : {};
  if (mode === 'both') {
    const translation = result.translation.trim();
    return {
      text: result.transcript.trim(),
      ...(language ? { ln: language } : {}),
      ...(translation ? { translation } : {}),
      ...trimmed,
    };
  }
  const ln = result.output_language ?? language;
  return { text: result.text.trim(), ...(ln ? { ln } : {}), ...trimmed };
}

/** The caption with the operator's word rules applied to its text and translation. */
export function withWords(caption: FinalCaption, words: (text: string) => string): FinalCaption {
  return {
    ...caption,
    text: caption.text && words(caption.text),
    ...(caption.translation ? { translation: words(caption.translation) } : {}),
  };
}

/** Whether the caption says anything (an empty window publishes nothing). */
export const hasText = (caption: FinalCaption): boolean => Boolean(caption.text || caption.translation);

/** The relay frames of a caption under `id`: the transcript, then its translation. */
export function captionFrames(caption: FinalCaption, id: string): CaptionFrame[] {
  const trimmed = caption.trimmed ? { trimmed: true } : {};
  const frames: CaptionFrame[] = [];
  if (caption.text)
    frames.push({ final: caption.text, id, ...(caption.ln ? { ln: caption.ln } : {}), ...trimmed });
  if (caption.translation)
    frames.push({ final: caption.translation, id, ln: 'en', label: TRANSLATION_LABEL, ...trimmed });
  return frames;
}

/**
 * Why audio will never be captioned: `skipped` by the lag watchdog to catch up with the live
 * edge, `dropped` beyond the kept-audio bound through a long gateway outage, `interrupted` while a
 * stream source was disconnected.
 */
export type GapReason = 'skipped' | 'dropped' | 'interrupted';

/** The gap marker's words (the page's list and transcript, a source room's `gap` caption). */
export function gapText(seconds: number, reason: GapReason): string {
  const length = formatSeconds(seconds);
  switch (reason) {
    case 'skipped':
      return `[gap: ${length} skipped to catch up with the live edge]`;
    case 'dropped':
      return `[gap: ${length} of audio dropped; the speech service was away too long]`;
    case 'interrupted':
      return `[gap: ${length} without sound; the stream was interrupted]`;
  }
}

/** The relay frame of a gap marker under `id` (its own caption number, so nothing is replaced). */
export function gapFrame(seconds: number, reason: GapReason, id: string): CaptionFrame {
  return { final: gapText(seconds, reason), id, label: GAP_LABEL };
}

/**
 * Gap markers as a capture publishes them: consecutive gaps of one kind (a lag watchdog skipping
 * again and again under load) are one marker that grows, republished under its caption id with
 * the new total (a correction, as the editor makes one), so the room holds one marker per stretch
 * and never a line per skip. A caption in between ends the stretch.
 */
export class GapMarks {
  private last?: { id: string; reason: GapReason; seconds: number };

  /** A caption went out: the next gap is a marker of its own. */
  captioned(): void {
    this.last = undefined;
  }

  /** The frame to publish for `seconds` more of `reason`; `newId` gives a new marker its id. */
  add(seconds: number, reason: GapReason, newId: () => string): CaptionFrame {
    const last = this.last;
    this.last =
      last && last.reason === reason
        ? { ...last, seconds: last.seconds + seconds }
        : { id: newId(), reason, seconds };
    return gapFrame(this.last.seconds, reason, this.last.id);
  }
}
