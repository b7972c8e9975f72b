/**
 * The decodes of a realtime session's turns: one final decode per committed turn, in commit
 * order, for its `completed` (or `failed`) event; and re-decodes of the open turn for `delta`
 * events, never while another decode of the session is queued or running. The lag watchdog: when
 * the audio of turns waiting for their decode passes the bound, the oldest waiting turns are
 * skipped (a `failed` event with code `live_edge_skipped`, never silently) so captions catch up
 * with the live edge instead of falling further behind.
 */
import type { ResultToken } from '@live-captions/protocol';
import { logprobs as tokenLogprobs, usage } from '../transcript.js';
import { isProblem, problem, type RealtimeProblem } from './events.js';
import type { PartialText } from './partial.js';
import type { SessionSettings } from './settings.js';

export interface Decoded {
  text: string;
  tokens: ResultToken[];
  audioSeconds: number;
  /** A guard cut text from the turn (a phrase, a loop, an unsure segment): `completed` says so. */
  trimmed?: boolean;
}

/** A turn (conversation item) being spoken or decoded. */
export interface OpenItem {
  id: string;
  partial: PartialText;
  /** Where the last re-decode ended (16 kHz sample position). */
  lastPartialAt: number;
}

export interface DecodePorts {
  /**
   * Rejects with a {@link RealtimeProblem}. `partial`: a re-decode of an open turn. `previous`:
   * the last turn's text ("" none); a turn saying it again is a loop.
   */
  decode(
    audio: Float32Array,
    settings: SessionSettings,
    partial: boolean,
    previous: string,
  ): Promise<Decoded>;
  /** One line per turn or failure; never text or audio. */
  log(fields: Record<string, unknown>, message: string): void;
  /** Backlog past which waiting turns are skipped (seconds). */
  lagBoundSeconds: number;
  /** The session's backlog changed (seconds of committed audio not yet captioned). */
  backlog(seconds: number): void;
  /** Turns were skipped to reach the live edge. */
  skipped(seconds: number): void;
}

const DELTA = 'conversation.item.input_audio_transcription.delta';
const ms = (samples: number) => Math.round(samples / 16);

export class TurnDecodes {
  private finals: Promise<void> = Promise.resolve();
  private pendingFinals = 0;
  /** Samples of committed turns queued or decoding. */
  private backlogSamples = 0;
  private partialRunning = false;
  /** The last turn's final text that said something (finals complete in commit order). */
  private previous = '';

  constructor(
    private readonly ports: DecodePorts,
    private readonly emit: (type: string, fields: Record<string, unknown>) => void,
    private readonly closed: () => boolean,
  ) {}

  /** A decode of this session is queued or running. */
  get busy(): boolean {
    return this.partialRunning || this.pendingFinals > 0;
  }

  /** Queues the committed turn's decode behind the session's earlier ones. */
  final(item: OpenItem, audio: Float32Array, settings: SessionSettings): void {
    this.pendingFinals += 1;
    this.queued(audio.length);
    this.finals = this.finals
      .then(async () => {
        if (this.closed()) return;
        // A later turn is waiting and there is more audio behind than the bound: skip to it.
        if (this.pendingFinals > 1 && this.backlogSamples / 16000 > this.ports.lagBoundSeconds) {
          this.skip(item, audio);
          return;
        }
        const started = performance.now();
        try {
          const result = await this.ports.decode(audio, settings, false, this.previous);
          this.completed(item, result, settings);
          const decodeMs = Math.round(performance.now() - started);
          this.ports.log(
            { item: item.id, audioMs: ms(audio.length), decodeMs },
            'realtime utterance transcribed',
          );
        } catch (error) {
          const failure = isProblem(error as RealtimeProblem)
            ? (error as RealtimeProblem)
            : problem('transcription_failed', 'Transcription failed', { type: 'server_error' });
          this.emit('conversation.item.input_audio_transcription.failed', {
            item_id: item.id,
            content_index: 0,
            error: { type: failure.type, code: failure.code, message: failure.message, param: failure.param },
          });
          this.ports.log(
            { item: item.id, audioMs: ms(audio.length), code: failure.code },
            'realtime utterance failed',
          );
        }
      })
      .finally(() => {
        this.pendingFinals -= 1;
        this.queued(-audio.length);
      });
  }

  private queued(samples: number): void {
    this.backlogSamples += samples;
    this.ports.backlog(this.backlogSamples / 16000);
  }

  private skip(item: OpenItem, audio: Float32Array): void {
    const seconds = Math.round(audio.length / 16) / 1000;
    this.emit('conversation.item.input_audio_transcription.failed', {
      item_id: item.id,
      content_index: 0,
      error: {
        type: 'server_error',
        code: 'live_edge_skipped',
        message: `Skipped ${seconds} s of audio to catch up with the live edge`,
        param: null,
      },
    });
    this.ports.skipped(seconds);
    this.ports.log(
      { item: item.id, audioMs: ms(audio.length) },
      'realtime utterance skipped to the live edge',
    );
  }

  /** Re-decodes the open turn; `current()` says whether it is still open when the text is back. */
  partial(item: OpenItem, audio: Float32Array, settings: SessionSettings, current: () => boolean): void {
    this.partialRunning = true;
    this.ports
      .decode(audio, settings, true, this.previous)
      .then(
        (result) => {
          if (!current()) return;
          const delta = item.partial.update(result.text);
          if (delta !== '') this.emit(DELTA, { item_id: item.id, content_index: 0, delta });
        },
        // A skipped or failed re-decode only means fewer deltas; the final decode decides.
        () => undefined,
      )
      .finally(() => {
        this.partialRunning = false;
      });
  }

  private completed(item: OpenItem, result: Decoded, settings: SessionSettings): void {
    const transcript = result.text.trim();
    if (transcript) this.previous = transcript;
    const rest = item.partial.finish(transcript);
    if (rest !== '') this.emit(DELTA, { item_id: item.id, content_index: 0, delta: rest });
    this.emit('conversation.item.input_audio_transcription.completed', {
      item_id: item.id,
      content_index: 0,
      transcript,
      ...(settings.logprobs ? { logprobs: tokenLogprobs(result.tokens) } : {}),
      usage: usage(result),
      // Our extension, as the native route's `trimmed`: OpenAI's clients ignore unknown fields.
      ...(result.trimmed ? { trimmed: true } : {}),
    });
  }
}
