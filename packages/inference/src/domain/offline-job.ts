/**
 * Offline `/v1` decodes: a whole uploaded clip, cut at its pauses by voice activity detection
 * (when the engine has a VAD model), each speech region decoded on its own and reported as soon
 * as it is decoded. Non-speech is never decoded, so silence and noise answer "" instead of a
 * hallucination, and no segment spans a pause.
 */
import { SAMPLE_RATE } from '@live-captions/audio';
import type { InferenceProgress, InferenceRequest, ResultSegment } from '@live-captions/protocol';
import type { Transcription } from '@live-captions/whisper';
import type { DecodeSlot } from './decode-slot.js';
import {
  DEFAULT_GUARDS,
  emptyReport,
  type GuardReport,
  type GuardSettings,
  guardSegments,
} from './guards/index.js';
import { isSilent, sliceSeconds } from './pcm.js';
import { round3 } from './word-cut.js';

export interface SpeechRegion {
  start: number;
  end: number;
}

/** Audio kept around each VAD region when decoding: Whisper mishears words cut at their edge. */
export const REGION_MARGIN_SECONDS = 0.2;
/** Earlier text primes the next region (as Whisper conditions on its previous window); its tail only. */
const PROMPT_TAIL_CHARS = 200;

/** VAD regions widened by `margin`, clamped to the clip, merged where they then overlap. */
export function decodeRegions(
  speech: readonly SpeechRegion[],
  duration: number,
  margin = REGION_MARGIN_SECONDS,
): SpeechRegion[] {
  const out: SpeechRegion[] = [];
  for (const region of [...speech].sort((a, b) => a.start - b.start)) {
    const start = Math.max(0, region.start - margin);
    const end = Math.min(duration, region.end + margin);
    if (end <= start) continue;
    const last = out.at(-1);
    if (last && start <= last.end) last.end = Math.max(last.end, end);
    else out.push({ start, end });
  }
  return out;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/**
 * Segments of one region's decode in clip time: shifted by the region's start and kept inside
 * the region, so times are monotonic across regions and never leave the clip.
 */
export function regionSegments(
  decoded: Pick<Transcription, 'segments'>,
  region: SpeechRegion,
  temperature: number,
): ResultSegment[] {
  const at = (t: number) => round3(clamp(region.start + t, region.start, region.end));
  return decoded.segments
    .filter((segment) => segment.text.trim() !== '')
    .map((segment) => ({
      start: at(segment.t0),
      end: Math.max(at(segment.t0), at(segment.t1)),
      text: segment.text,
      tokens: segment.tokens.map((token) => ({
        id: token.id,
        text: token.text,
        start: at(token.t0),
        end: Math.max(at(token.t0), at(token.t1)),
        logprob: token.logprob,
      })),
      temperature,
      noSpeechProbability: segment.noSpeechProbability,
    }));
}

export interface OfflineOutcome {
  language: string | null;
  text: string;
  segments: ResultSegment[];
  report: GuardReport;
}

/** Seconds of speech in VAD regions (clamped to the clip, overlaps counted once). */
export function speechSeconds(speech: readonly SpeechRegion[], duration: number): number {
  return decodeRegions(speech, duration, 0).reduce((sum, region) => sum + (region.end - region.start), 0);
}

/** Decodes `request` (which has `offline` set) region by region. */
export async function runOfflineDecode(
  slot: DecodeSlot,
  request: InferenceRequest,
  audio: Float32Array,
  onProgress?: (progress: InferenceProgress) => void,
  guards: GuardSettings = DEFAULT_GUARDS,
): Promise<OfflineOutcome> {
  const offline = request.offline ?? { temperature: 0 };
  const duration = audio.length / SAMPLE_RATE;
  const report = emptyReport();
  let regions: SpeechRegion[] = [];
  // Speech share of the whole clip: a known non-speech phrase is dropped from a clip with little speech.
  let speechRatio: number | undefined;
  if (!isSilent(audio)) {
    if (slot.detectSpeech) {
      const speech = await slot.detectSpeech(audio);
      regions = decodeRegions(speech, duration);
      speechRatio = duration > 0 ? speechSeconds(speech, duration) / duration : 0;
    } else {
      regions = [{ start: 0, end: duration }];
    }
  }
  report.nonSpeechSeconds = duration - regions.reduce((sum, region) => sum + (region.end - region.start), 0);
  let language: string | null = request.language === 'auto' ? null : request.language;
  const segments: ResultSegment[] = [];
  let text = '';
  // The stream's text just before this clip (a realtime session's last turn) is the first "previous".
  let lastText = request.previousText ?? '';
  for (const region of regions) {
    if (region.end - region.start < 0.1) continue;
    const prompt = [request.prompt, text.slice(-PROMPT_TAIL_CHARS).trim()].filter(Boolean).join(' ');
    const decoded = await slot.decode(sliceSeconds(audio, region.start, region.end), {
      // The first region detects the language; the others are decoded in it.
      language: language ?? 'auto',
      task: request.mode === 'translate' ? 'translate' : 'transcribe',
      singleSegment: false,
      initialPrompt: prompt,
      temperature: offline.temperature,
      temperatureFallback: true,
    });
    language ??= decoded.language;
    // Guarded text only primes the next region: a loop is never fed back into the decoder.
    const guarded = guardSegments(decoded.segments, {
      settings: guards,
      language: decoded.language,
      speechRatio,
      previous: lastText,
    });
    report.phrasesDropped += guarded.report.phrasesDropped;
    report.loopsCut += guarded.report.loopsCut;
    report.unsureDropped += guarded.report.unsureDropped;
    const found = regionSegments(guarded, region, offline.temperature);
    if (found.length === 0) continue;
    onProgress?.({ offset: segments.length, segments: found });
    segments.push(...found);
    lastText = found.map((segment) => segment.text).join('');
    text += lastText;
  }
  return { language, text: text.trim(), segments, report };
}
