// The pure parts of /v1/realtime: G.711, turns from VAD probabilities,
// local agreement of re-decodes, and the session settings of both protocol flavours.
import { describe, expect, it } from '@jest/globals';
import { MAX_PROMPT_CHARS } from '@live-captions/audio';
import { decodeSamples } from '../src/domain/realtime/audio-input.js';
import { isProblem, parseClientEvent } from '../src/domain/realtime/events.js';
import { A_LAW, MU_LAW } from '../src/domain/realtime/g711.js';
import { PartialText } from '../src/domain/realtime/partial.js';
import { SampleBuffer } from '../src/domain/realtime/sample-buffer.js';
import {
  applyBetaUpdate,
  applyGaUpdate,
  DEFAULT_SETTINGS,
  gaSession,
  sessionView,
} from '../src/domain/realtime/settings.js';
import { FRAME_SAMPLES, TurnDetector, type TurnEvent } from '../src/domain/realtime/turns.js';

describe('G.711', () => {
  it('expands μ-law and A-law as the standard tables do', () => {
    expect(MU_LAW[0xff]).toBe(0);
    expect(Math.abs(MU_LAW[0x7f]!)).toBe(0);
    expect(MU_LAW[0x00]).toBeCloseTo(-32124 / 32768, 6);
    expect(MU_LAW[0x80]).toBeCloseTo(32124 / 32768, 6);
    expect(A_LAW[0xd5]).toBeCloseTo(8 / 32768, 6);
    expect(A_LAW[0x55]).toBeCloseTo(-8 / 32768, 6);
    expect(A_LAW[0xaa]).toBeCloseTo(32256 / 32768, 6);
    expect(A_LAW[0x2a]).toBeCloseTo(-32256 / 32768, 6);
    // Both laws are monotonic within each sign.
    const positive = [...Array(128).keys()].map((i) => MU_LAW[0xff - i]!);
    expect(positive).toEqual([...positive].sort((a, b) => a - b));
  });

  it('decodes 16-bit little-endian PCM', () => {
    const bytes = Buffer.from([0x00, 0x80, 0xff, 0x7f, 0x00, 0x00]);
    expect(Array.from(decodeSamples(bytes, 'pcm16'))).toEqual([-1, 32767 / 32768, 0]);
  });
});

describe('TurnDetector', () => {
  const settings = { threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 };
  const run = (detector: TurnDetector, probabilities: number[], from = 0): TurnEvent[] =>
    probabilities.flatMap((p, i) => detector.push(from + i * FRAME_SAMPLES, p));
  const frames = (seconds: number) => Math.round((seconds * 16_000) / FRAME_SAMPLES);
  const repeat = (p: number, count: number) => Array<number>(count).fill(p);

  it('starts at the first speech frame minus the padding, stops after the silence', () => {
    const detector = new TurnDetector(settings, 12 * 16_000);
    const events = run(detector, [...repeat(0.1, 40), ...repeat(0.9, 30), ...repeat(0.05, frames(0.6))]);
    expect(events).toEqual([
      { kind: 'start', at: 40 * FRAME_SAMPLES - 4800 },
      { kind: 'stop', start: 40 * FRAME_SAMPLES - 4800, end: 70 * FRAME_SAMPLES, cut: false },
    ]);
  });

  it('keeps the turn through a pause shorter than the silence, and frames between the levels', () => {
    const detector = new TurnDetector(settings, 12 * 16_000);
    const events = run(detector, [
      ...repeat(0.9, 10),
      ...repeat(0.05, frames(0.4)),
      ...repeat(0.9, 10),
      // Between the release level (0.35) and the threshold: neither speech nor pause.
      ...repeat(0.4, frames(1)),
      ...repeat(0.05, frames(0.6)),
    ]);
    expect(events.map((event) => event.kind)).toEqual(['start', 'stop']);
    const stop = events[1] as Extract<TurnEvent, { kind: 'stop' }>;
    expect(stop.end).toBe((10 + frames(0.4) + 10 + frames(1)) * FRAME_SAMPLES);
  });

  it('cuts an utterance at the decode limit at its least speech-like frame', () => {
    const detector = new TurnDetector(settings, 12 * 16_000);
    const probabilities = repeat(0.95, frames(14));
    const dip = frames(10);
    probabilities[dip] = 0.4;
    const events = run(detector, probabilities);
    expect(events.map((event) => event.kind)).toEqual(['start', 'stop', 'start']);
    const cut = events[1] as Extract<TurnEvent, { kind: 'stop' }>;
    expect(cut).toMatchObject({ cut: true, start: 0, end: (dip + 1) * FRAME_SAMPLES });
    expect(cut.end - cut.start).toBeLessThanOrEqual(12 * 16_000);
    expect(events[2]).toEqual({ kind: 'start', at: cut.end });
  });

  it('never pads back before the floor (audio that was cleared or committed)', () => {
    const detector = new TurnDetector(settings, 12 * 16_000, 10 * FRAME_SAMPLES);
    expect(run(detector, [0.9], 11 * FRAME_SAMPLES)).toEqual([{ kind: 'start', at: 10 * FRAME_SAMPLES }]);
  });

  it('ignores frames of audio before a reset that the VAD scores after it', () => {
    const detector = new TurnDetector(settings, 12 * 16_000);
    expect(run(detector, repeat(0.9, 10)).map((event) => event.kind)).toEqual(['start']);
    // The client committed at frame 20 while the VAD was still behind, at frame 10.
    detector.reset(20 * FRAME_SAMPLES);
    expect(run(detector, repeat(0.9, 10), 10 * FRAME_SAMPLES)).toEqual([]);
    expect(detector.speaking).toBe(false);
    // A frame that reaches past the floor is the new audio's: it may open a turn from the floor.
    expect(run(detector, [0.9], 20 * FRAME_SAMPLES - 100)).toEqual([
      { kind: 'start', at: 20 * FRAME_SAMPLES },
    ]);
  });
});

describe('PartialText', () => {
  it('shows the words two re-decodes agree on, only ever adding', () => {
    const partial = new PartialText();
    expect(partial.update('And so my')).toBe('');
    expect(partial.update('And so my fellow')).toBe('And so my');
    expect(partial.update('And so my fellow Americans')).toBe(' fellow');
    // A revision of shown words adds nothing; the final text completes what was shown.
    expect(partial.update('And so, my fellow Americans')).toBe('');
    expect(partial.finish(' And so my fellow Americans, ask not')).toBe(
      ' fellow Americans, ask not'.slice(7),
    );
    expect(partial.shown).toBe('And so my fellow Americans, ask not');
  });

  it('never splits a word and sends nothing when the final text disagrees', () => {
    const partial = new PartialText();
    partial.update('test');
    expect(partial.update('test')).toBe('test');
    expect(partial.finish('testing')).toBe('');
    expect(partial.finish('other words')).toBe('');
  });
});

describe('SampleBuffer', () => {
  it('slices and drops by absolute position across chunks', () => {
    const buffer = new SampleBuffer();
    buffer.append(Float32Array.of(0, 1, 2));
    buffer.append(Float32Array.of(3, 4));
    buffer.append(Float32Array.of(5, 6, 7));
    expect(Array.from(buffer.slice(2, 6))).toEqual([2, 3, 4, 5]);
    buffer.dropBefore(4);
    expect(buffer.start).toBe(4);
    expect(Array.from(buffer.slice(0, 8))).toEqual([4, 5, 6, 7]);
    buffer.dropBefore(8);
    expect(buffer.length).toBe(0);
  });
});

describe('client events and session settings', () => {
  it('reads events and refuses what is not one, naming the field', () => {
    expect(parseClientEvent('{')).toMatchObject({ code: 'invalid_json' });
    expect(parseClientEvent('[]')).toMatchObject({ code: 'invalid_event', param: 'type' });
    const append = parseClientEvent(JSON.stringify({ type: 'input_audio_buffer.append', audio: 'AAEC' }));
    expect(isProblem(append)).toBe(false);
    expect(append).toMatchObject({ audio: Buffer.from([0, 1, 2]) });
    expect(parseClientEvent(JSON.stringify({ type: 'input_audio_buffer.append' }))).toMatchObject({
      code: 'invalid_value',
      param: 'audio',
    });
  });

  it("words refusals in the protocol's terms, not the validation library's", () => {
    const update = (session: unknown) =>
      parseClientEvent(JSON.stringify({ type: 'session.update', session }));
    const turns = (turn_detection: unknown) =>
      update({ type: 'transcription', audio: { input: { turn_detection } } });
    const messages = [
      turns({ threshold: 'high' }),
      turns({ threshold: 1 }),
      turns({ silence_duration_ms: 1.5 }),
      turns({ silence_duration_ms: 50 }),
      update({ type: 'transcription', audio: { input: { format: { type: 'audio/ogg' } } } }),
      update({ type: 'transcription', audio: { input: { transcription: { task: 'summarize' } } } }),
      update({ type: 'transcription', audio: { input: { transcription: { model: 'm'.repeat(201) } } } }),
      update({ type: 'transcription', include: ['everything'] }),
      parseClientEvent(JSON.stringify({ type: 'input_audio_buffer.append' })),
    ].map((event) => (isProblem(event) ? event.message : 'accepted'));
    expect(messages).toEqual([
      "Invalid value for 'session.audio.input.turn_detection.threshold': must be a number",
      "Invalid value for 'session.audio.input.turn_detection.threshold': must be below 1",
      "Invalid value for 'session.audio.input.turn_detection.silence_duration_ms': must be an integer",
      "Invalid value for 'session.audio.input.turn_detection.silence_duration_ms': must be at least 100",
      `Invalid value for 'session.audio.input.format.type': must be one of "audio/pcm", "audio/pcmu", "audio/pcma"`,
      `Invalid value for 'session.audio.input.transcription.task': must be one of "transcribe", "translate"`,
      "Invalid value for 'session.audio.input.transcription.model': must have at most 200 characters",
      `Invalid value for 'session.include.0': must be "item.input_audio_transcription.logprobs"`,
      "Invalid value for 'audio': is required",
    ]);
    // A schema's own message stays.
    expect(update({ type: 'realtime' })).toMatchObject({
      message: "Invalid value for 'session.type': only transcription sessions are served here",
    });
  });

  it('takes a prompt of any length, as OpenAI does, and keeps its end (what the decoder reads)', () => {
    const long = `${'Okonjo-Iweala, '.repeat(100)}Quilter, Świątek.`;
    const input = gaSession.parse({
      type: 'transcription',
      audio: { input: { transcription: { prompt: long } } },
    });
    const { prompt } = applyGaUpdate(DEFAULT_SETTINGS, input);
    expect(long.length).toBeGreaterThan(MAX_PROMPT_CHARS);
    expect(prompt).toHaveLength(MAX_PROMPT_CHARS);
    expect(prompt.endsWith('Quilter, Świątek.')).toBe(true);
  });

  it('merges GA updates: only the fields sent change, turn_detection null means manual', () => {
    const ga = applyGaUpdate(DEFAULT_SETTINGS, {
      type: 'transcription',
      audio: {
        input: { format: { type: 'audio/pcmu' }, transcription: { language: 'de', task: 'translate' } },
      },
      include: ['item.input_audio_transcription.logprobs'],
    });
    expect(ga).toMatchObject({
      format: 'pcmu',
      language: 'de',
      task: 'translate',
      logprobs: true,
      model: 'whisper-1',
    });
    expect(ga.turnDetection).toEqual(DEFAULT_SETTINGS.turnDetection);
    const manual = applyGaUpdate(ga, { type: 'transcription', audio: { input: { turn_detection: null } } });
    expect(manual).toMatchObject({ format: 'pcmu', language: 'de', turnDetection: null });
    const vad = applyGaUpdate(manual, {
      type: 'transcription',
      audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 800 } } },
    });
    expect(vad.turnDetection).toEqual({ threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 800 });
  });

  it('shows the settings in the flavour of the client', () => {
    const settings = applyBetaUpdate(DEFAULT_SETTINGS, { input_audio_format: 'g711_alaw' });
    expect(sessionView('sess_1', settings, true)).toMatchObject({ input_audio_format: 'g711_alaw' });
    expect(sessionView('sess_1', settings, false)).toMatchObject({
      type: 'transcription',
      audio: {
        input: { format: { type: 'audio/pcma' }, turn_detection: { type: 'server_vad', threshold: 0.5 } },
      },
      include: null,
    });
  });
});
