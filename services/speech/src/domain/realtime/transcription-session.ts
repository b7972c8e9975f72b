/**
 * One realtime transcription session: client events in, server events out. Audio is turned into
 * 16 kHz samples, cut into utterances by the server VAD (or by the client's commits), and each
 * committed utterance is decoded once for its `completed` event; while an utterance is open it is
 * re-decoded after every second of new audio for `delta` events. Side effects (sending, decoding,
 * the VAD network) come in as {@link SessionPorts}, so the protocol is testable on its own.
 */
import { SAMPLE_RATE, StreamResampler } from '@live-captions/audio';
import { bytesPerSample, decodeSamples, FORMAT_RATE } from './audio-input.js';
import { type DecodePorts, type OpenItem, TurnDecodes } from './decodes.js';
import { ClientEventQueue, type SessionUpdate } from './event-queue.js';
import { errorEvent, newId, parseClientEvent, problem, type RealtimeProblem } from './events.js';
import { PartialText } from './partial.js';
import { SampleBuffer } from './sample-buffer.js';
import {
  applyBetaUpdate,
  applyGaUpdate,
  DEFAULT_SETTINGS,
  type SessionSettings,
  sessionView,
} from './settings.js';
import { FRAME_SAMPLES, TurnDetector, type TurnEvent } from './turns.js';
import { type StreamingVad, VadFeed } from './vad-feed.js';

/** OpenAI refuses to commit less than 100 ms of audio. */
const MIN_COMMIT_SAMPLES = SAMPLE_RATE / 10;

export interface SessionPorts extends DecodePorts {
  /** Sends one server event (already carrying its `event_id`). */
  send(event: Record<string, unknown>): void;
  /** What the loaded model cannot do with these settings (language, translation), if anything. */
  checkSettings(settings: SessionSettings): RealtimeProblem | undefined;
}

export interface SessionLimits {
  /** Uncommitted audio beyond which the session ends (manual commits). */
  maxBufferSamples: number;
  /** The decode limit: longer utterances are cut. */
  maxUtteranceSamples: number;
  /** New audio between two re-decodes of an open utterance. */
  partialIntervalSamples: number;
}

const ms = (samples: number) => Math.round((samples * 1000) / SAMPLE_RATE);

export class TranscriptionSession {
  readonly id = newId('sess');
  settings: SessionSettings = DEFAULT_SETTINGS;
  /** Set when the session must end (a limit): the caller sends it and closes. */
  onFatal: (value: RealtimeProblem) => void = () => undefined;
  private resampler = new StreamResampler(FORMAT_RATE.pcm16, SAMPLE_RATE);
  private readonly buffer = new SampleBuffer();
  private detector: TurnDetector | undefined;
  private item: OpenItem | undefined;
  private previousItem: string | null = null;
  private readonly feed: VadFeed;
  /** Client events, handled in arrival order behind the VAD. */
  private readonly events: ClientEventQueue;
  private closed = false;
  private readonly decodes: TurnDecodes;

  constructor(
    private readonly ports: SessionPorts,
    vad: StreamingVad,
    private readonly limits: SessionLimits,
    /** Beta clients (`OpenAI-Beta: realtime=v1`) get `transcription_session.*` events. */
    private readonly beta: boolean,
  ) {
    this.detector = this.newDetector();
    this.feed = new VadFeed(vad, {
      scored: (from, probabilities) => this.scored(from, probabilities),
      failed: (error) => {
        this.ports.log({ err: error }, 'realtime VAD failed');
        this.onFatal(problem('vad_failed', 'Voice activity detection failed', { type: 'server_error' }));
      },
      settled: () => this.events.drain(),
    });
    this.events = new ClientEventQueue(() => this.feed.caughtUp, {
      update: (event) => this.update(event),
      append: (audio, eventId) => this.append(audio, eventId),
      commit: (eventId) => this.commit(eventId),
      clear: (eventId) => this.clear(eventId),
      fail: (value) => this.fail(value),
    });
    this.decodes = new TurnDecodes(
      ports,
      (type, fields) => this.emit(type, fields),
      () => this.closed,
    );
  }

  start(): void {
    this.emit(this.beta ? 'transcription_session.created' : 'session.created', {
      session: sessionView(this.id, this.settings, this.beta),
    });
  }

  /** One text message from the client. */
  handle(text: string): void {
    this.events.push(parseClientEvent(text));
  }

  fail(value: RealtimeProblem): void {
    this.emit('error', errorEvent(value));
  }

  /** The client is gone: nothing more is sent or decoded; resolves once the VAD is idle. */
  async close(): Promise<void> {
    this.closed = true;
    this.events.stop();
    await this.feed.stop();
  }

  /**
   * Turns start again at `floor` (the VAD is caught up). Its unscored rest, under a frame, is
   * dropped with the audio before the floor: a frame of it would carry committed or cleared
   * speech into the next turn, and the frames that follow line up with the floor.
   */
  private restartTurns(floor: number): void {
    if (!this.detector) return;
    this.detector.reset(floor);
    this.feed.restart(floor);
  }

  private emit(type: string, fields: Record<string, unknown>): void {
    if (this.closed) return;
    this.ports.send({ ...fields, type, event_id: newId('event') });
  }

  private update(event: SessionUpdate) {
    const next =
      event.type === 'session.update'
        ? applyGaUpdate(this.settings, event.session)
        : applyBetaUpdate(this.settings, event.session);
    const refused = this.ports.checkSettings(next);
    if (refused) {
      this.fail({ ...refused, eventId: event.eventId });
      return;
    }
    const previous = this.settings;
    this.settings = next;
    if (next.format !== previous.format)
      this.resampler = new StreamResampler(FORMAT_RATE[next.format], SAMPLE_RATE);
    if (JSON.stringify(next.turnDetection) !== JSON.stringify(previous.turnDetection)) {
      // A new turn detector starts from the audio to come; an open utterance is dropped, and
      // the VAD's position restarts there (manual mode does not feed it).
      this.item = undefined;
      this.feed.restart(this.buffer.end);
      this.detector = this.newDetector();
    }
    const beta = event.type === 'transcription_session.update';
    this.emit(beta ? 'transcription_session.updated' : 'session.updated', {
      session: sessionView(this.id, next, beta),
    });
  }

  private newDetector(): TurnDetector | undefined {
    const turn = this.settings.turnDetection;
    return turn ? new TurnDetector(turn, this.limits.maxUtteranceSamples, this.buffer.end) : undefined;
  }

  private append(bytes: Buffer, eventId: string | null): void {
    if (bytes.length % bytesPerSample(this.settings.format) !== 0) {
      this.fail(
        problem('invalid_audio', 'audio must hold whole 16-bit samples', { param: 'audio', eventId }),
      );
      return;
    }
    this.intake(this.resampler.process(decodeSamples(bytes, this.settings.format)), eventId);
    this.feed.pump();
  }

  /** New 16 kHz audio: kept, and queued for the VAD (without it, held to the buffer's limit). */
  private intake(samples: Float32Array, eventId: string | null): void {
    this.buffer.append(samples);
    if (!this.detector) {
      if (this.buffer.length > this.limits.maxBufferSamples) {
        this.onFatal(
          problem(
            'input_audio_buffer_full',
            `More than ${this.limits.maxBufferSamples / SAMPLE_RATE} s of uncommitted audio: commit (or clear) the buffer more often`,
            { eventId },
          ),
        );
      }
      return;
    }
    this.feed.add(samples);
  }

  private scored(from: number, probabilities: Float32Array): void {
    const detector = this.detector;
    if (!detector) return;
    for (let i = 0; i < probabilities.length; i += 1) {
      for (const turn of detector.push(from + i * FRAME_SAMPLES, probabilities[i]!)) this.turn(turn);
    }
    this.trimIdle();
    this.maybePartial();
  }

  private turn(event: TurnEvent): void {
    if (event.kind === 'start') {
      this.item = { id: newId('item'), partial: new PartialText(), lastPartialAt: event.at };
      this.emit('input_audio_buffer.speech_started', { audio_start_ms: ms(event.at), item_id: this.item.id });
      return;
    }
    const item = this.item;
    if (!item) return;
    this.emit('input_audio_buffer.speech_stopped', { audio_end_ms: ms(event.end), item_id: item.id });
    this.item = undefined;
    this.commitRange(item, event.start, event.end);
  }

  /** While idle only the prefix padding (and what the VAD has not seen) is kept. */
  private trimIdle(): void {
    const turn = this.settings.turnDetection;
    if (!turn || this.detector?.speaking) return;
    const padding = Math.round((turn.prefixPaddingMs * SAMPLE_RATE) / 1000);
    this.buffer.dropBefore(this.feed.position - padding - FRAME_SAMPLES);
  }

  private commit(eventId: string | null): void {
    // The resampler's last milliseconds belong to the audio before the commit.
    this.intake(this.resampler.flush(), eventId);
    const end = this.buffer.end;
    const start = this.detector ? this.detector.utteranceStart : this.buffer.start;
    if (start === undefined || end - start < MIN_COMMIT_SAMPLES) {
      this.fail(
        problem(
          'input_audio_buffer_commit_empty',
          `Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has ${ms(Math.max(0, end - (start ?? end)))}ms of audio.`,
          { eventId },
        ),
      );
      this.feed.pump();
      return;
    }
    const item = this.item ?? { id: newId('item'), partial: new PartialText(), lastPartialAt: start };
    this.item = undefined;
    this.restartTurns(end);
    this.commitRange(item, Math.max(start, end - this.limits.maxUtteranceSamples), end);
  }

  private clear(eventId: string | null): void {
    this.intake(this.resampler.flush(), eventId);
    this.buffer.dropBefore(this.buffer.end);
    this.restartTurns(this.buffer.end);
    this.item = undefined;
    this.emit('input_audio_buffer.cleared', {});
  }

  private commitRange(item: OpenItem, start: number, end: number): void {
    const audio = this.buffer.slice(start, end);
    this.buffer.dropBefore(end);
    this.emit('input_audio_buffer.committed', { item_id: item.id, previous_item_id: this.previousItem });
    this.previousItem = item.id;
    this.decodes.final(item, audio, this.settings);
  }

  /** Re-decodes the open utterance after each interval of new audio. */
  private maybePartial(): void {
    const item = this.item;
    const start = this.detector?.utteranceStart;
    if (!item || start === undefined || this.decodes.busy) return;
    const interval = this.limits.partialIntervalSamples;
    if (this.feed.position - item.lastPartialAt < interval || this.feed.position - start < interval) return;
    item.lastPartialAt = this.feed.position;
    // The utterance may be committed before the re-decode is back: its final text takes over.
    this.decodes.partial(
      item,
      this.buffer.slice(start, this.feed.position),
      this.settings,
      () => this.item === item,
    );
  }
}
