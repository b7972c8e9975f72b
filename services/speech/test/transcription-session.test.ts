// TranscriptionSession with scripted ports: a VAD that hears speech wherever the signal is loud,
// and a decoder that says one word per second of audio. Covers what the real clips cannot:
// the 12 s cut of an endless turn, switching between server VAD and manual commits, and client
// commits and clears that overtake the VAD (the native one answers from its own thread, later).
import { describe, expect, it } from '@jest/globals';
import { type SessionPorts, TranscriptionSession } from '../src/domain/realtime/transcription-session.js';
import type { StreamingVad } from '../src/domain/realtime/vad-feed.js';

const RATE_24K = 24_000;

function pcm(seconds: number, amplitude: number): string {
  const out = Buffer.alloc(Math.round(seconds * RATE_24K) * 2);
  for (let i = 0; i < out.length / 2; i += 1)
    out.writeInt16LE(Math.round(amplitude * 32767 * Math.sin(i / 3)), i * 2);
  return out.toString('base64');
}

/**
 * Speech wherever a 512-sample frame is loud as a whole (RMS), as Silero judges a frame: not on
 * the few samples of filter ringing that follow a cut in the audio.
 */
function score(samples: Float32Array): Float32Array {
  const out = new Float32Array(samples.length / 512);
  for (let f = 0; f < out.length; f += 1) {
    let energy = 0;
    for (let i = f * 512; i < (f + 1) * 512; i += 1) energy += samples[i]! ** 2;
    out[f] = Math.sqrt(energy / 512) > 0.1 ? 0.9 : 0.02;
  }
  return out;
}

const instantVad: StreamingVad = { next: async (samples) => score(samples) };

/** Lets every promise chain and immediate callback of the session run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Scores as `score` does, but each call answers only when the test releases it, as the native
 * VAD answers from its thread whenever it is done: the test decides what the session handles
 * meanwhile. Holds the contract of an instance: whole frames, one call at a time.
 */
class GatedVad implements StreamingVad {
  private call: { samples: Float32Array; answer: (probabilities: Float32Array) => void } | undefined;

  next(samples: Float32Array): Promise<Float32Array> {
    if (this.call) throw new Error('a VAD instance runs one call at a time');
    if (samples.length === 0 || samples.length % 512 !== 0) throw new Error('whole frames only');
    return new Promise((answer) => {
      this.call = { samples, answer };
    });
  }

  get busy(): boolean {
    return this.call !== undefined;
  }

  /** Answers the call in progress, then lets the session react (it may call again). */
  async release(): Promise<void> {
    const call = this.call;
    if (!call) throw new Error('no VAD call to release');
    this.call = undefined;
    call.answer(score(call.samples));
    await settle();
  }

  async releaseAll(): Promise<void> {
    while (this.call) await this.release();
    await settle();
  }
}

function harness(partialIntervalSamples = 16_000, vad: StreamingVad = instantVad) {
  const events: Record<string, unknown>[] = [];
  const decoded: number[] = [];
  const ports: SessionPorts = {
    send: (event) => events.push(event),
    async decode(audio) {
      decoded.push(audio.length / 16_000);
      const words = Math.max(1, Math.round(audio.length / 16_000));
      return { text: Array(words).fill('word').join(' '), tokens: [], audioSeconds: audio.length / 16_000 };
    },
    checkSettings: () => undefined,
    log: () => undefined,
    lagBoundSeconds: 8,
    backlog: () => undefined,
    skipped: () => undefined,
  };
  const session = new TranscriptionSession(
    ports,
    vad,
    { maxBufferSamples: 12 * 16_000, maxUtteranceSamples: 12 * 16_000, partialIntervalSamples },
    false,
  );
  session.start();
  const send = (event: Record<string, unknown>) => session.handle(JSON.stringify(event));
  /** Appends in 100 ms events, letting the VAD and decodes run between them. */
  const append = async (seconds: number, amplitude: number) => {
    for (let t = 0; t < seconds - 1e-9; t += 0.1) {
      send({ type: 'input_audio_buffer.append', audio: pcm(Math.min(0.1, seconds - t), amplitude) });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  };
  /** Appends in 100 ms events back to back, as a client's socket delivers them at once. */
  const appendNow = (seconds: number, amplitude: number) => {
    for (let t = 0; t < seconds - 1e-9; t += 0.1) {
      send({ type: 'input_audio_buffer.append', audio: pcm(Math.min(0.1, seconds - t), amplitude) });
    }
  };
  const types = () => events.map((event) => event.type);
  return { events, decoded, send, append, appendNow, types, session };
}

describe('TranscriptionSession', () => {
  it('cuts a turn longer than the decode limit and goes on with the rest', async () => {
    const { events, decoded, append } = harness();
    await append(0.5, 0);
    await append(15, 0.5);
    await append(1.5, 0);
    const started = events.filter((event) => event.type === 'input_audio_buffer.speech_started');
    const completed = events.filter(
      (event) => event.type === 'conversation.item.input_audio_transcription.completed',
    );
    expect(started).toHaveLength(2);
    expect(completed).toHaveLength(2);
    // Every decode, partial or final, fits the decode limit.
    expect(Math.max(...decoded)).toBeLessThanOrEqual(12);
    const stopped = events.filter((event) => event.type === 'input_audio_buffer.speech_stopped');
    // The cut: the first turn ends where the second starts.
    expect(stopped[0]!.audio_end_ms).toBe(started[1]!.audio_start_ms);
    expect(started[0]!.audio_start_ms).toBeGreaterThanOrEqual(150);
    expect((stopped[1]!.audio_end_ms as number) / 1000).toBeCloseTo(15.5, 0);
    // Deltas of each turn add up to its transcript.
    for (const done of completed) {
      const deltas = events.filter(
        (event) =>
          event.type === 'conversation.item.input_audio_transcription.delta' &&
          event.item_id === done.item_id,
      );
      expect(deltas.map((event) => event.delta).join('')).toBe(done.transcript);
    }
  });

  it('switches to manual commits and back without losing its place in the audio', async () => {
    const { events, send, append, types } = harness(1e9);
    send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { turn_detection: null } } },
    });
    await append(2, 0.5);
    expect(types()).not.toContain('input_audio_buffer.speech_started');
    send({ type: 'input_audio_buffer.commit' });
    await append(0.1, 0);
    expect(types()).toContain('conversation.item.input_audio_transcription.completed');
    send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { turn_detection: { type: 'server_vad' } } } },
    });
    await append(1, 0);
    await append(1, 0.5);
    await append(1, 0);
    const started = events.filter((event) => event.type === 'input_audio_buffer.speech_started');
    const stopped = events.filter((event) => event.type === 'input_audio_buffer.speech_stopped');
    expect(started).toHaveLength(1);
    // Speech began at 3.1 s of the session's audio (2 s + 0.1 s + 1 s), minus 300 ms padding.
    expect(Math.abs((started[0]!.audio_start_ms as number) - 2800)).toBeLessThan(100);
    expect(Math.abs((stopped[0]!.audio_end_ms as number) - 4100)).toBeLessThan(100);
  });
});

describe('client commits and clears while the VAD is behind', () => {
  const STARTED = 'input_audio_buffer.speech_started';
  const COMMITTED = 'input_audio_buffer.committed';
  const COMPLETED = 'conversation.item.input_audio_transcription.completed';

  /** A session whose VAD answers only when released, sent 0.5 s of silence then 1 s of speech. */
  function behindSpeech() {
    const vad = new GatedVad();
    const session = harness(1e9, vad);
    session.appendNow(0.5, 0);
    session.appendNow(1, 0.5);
    return { vad, ...session };
  }

  it('answers a commit once the VAD has scored the audio before it, and commits all of that audio', async () => {
    const { vad, events, decoded, send, appendNow, types } = behindSpeech();
    send({ type: 'input_audio_buffer.commit', event_id: 'stop' });
    await settle();
    // The VAD is still on its first frames: nothing is answered before it has caught up.
    expect(vad.busy).toBe(true);
    expect(types()).toEqual(['session.created']);
    await vad.releaseAll();
    await settle();
    expect(types()).toEqual([
      'session.created',
      STARTED,
      COMMITTED,
      'conversation.item.input_audio_transcription.delta',
      COMPLETED,
    ]);
    const [started, committed] = [events[1]!, events[2]!];
    // Committed during the turn: the turn's item, without speech_stopped (as OpenAI).
    expect(committed.item_id).toBe(started.item_id);
    // Speech at 0.5 s, 300 ms of padding: the turn is [0.2 s, 1.5 s), all of it committed, up
    // to the last sample appended (the resampler's held-back milliseconds included).
    expect(Math.abs((started.audio_start_ms as number) - 200)).toBeLessThan(40);
    expect(decoded).toHaveLength(1);
    expect((started.audio_start_ms as number) + decoded[0]! * 1000).toBeCloseTo(1500, 6);
    // Silence after the commit opens nothing: the speech before it is committed and done.
    appendNow(1, 0);
    await vad.releaseAll();
    expect(types()).toHaveLength(5);
  });

  it('keeps audio appended after the commit out of it: a new turn starts from the commit', async () => {
    const { vad, events, decoded, send, appendNow } = behindSpeech();
    send({ type: 'input_audio_buffer.commit' });
    appendNow(0.5, 0.5);
    await vad.releaseAll();
    await settle();
    const order = events.map((event) => event.type).filter((type) => type === STARTED || type === COMMITTED);
    expect(order).toEqual([STARTED, COMMITTED, STARTED]);
    const started = events.filter((event) => event.type === STARTED);
    // The second turn is the speech after the commit, from the commit on (1.5 s).
    expect(started[1]!.audio_start_ms).toBe(1500);
    expect(decoded).toHaveLength(1);
    expect((started[0]!.audio_start_ms as number) + decoded[0]! * 1000).toBeCloseTo(1500, 6);
  });

  it('handles a clear after the VAD has scored the audio before it: no turn opens after cleared', async () => {
    const { vad, events, send, appendNow, types } = behindSpeech();
    send({ type: 'input_audio_buffer.clear' });
    await settle();
    expect(types()).toEqual(['session.created']);
    await vad.releaseAll();
    expect(types()).toEqual(['session.created', STARTED, 'input_audio_buffer.cleared']);
    appendNow(1, 0);
    send({ type: 'input_audio_buffer.commit', event_id: 'after-clear' });
    await vad.releaseAll();
    // The cleared turn is gone: nothing opens again, and there is nothing to commit.
    expect(types().slice(3)).toEqual(['error']);
    expect(events[3]!.error).toMatchObject({
      code: 'input_audio_buffer_commit_empty',
      event_id: 'after-clear',
    });
  });

  it('keeps the order of every client event behind a waiting commit', async () => {
    const vad = new GatedVad();
    const { send, appendNow, types } = harness(1e9, vad);
    appendNow(1, 0.5);
    send({ type: 'input_audio_buffer.commit' });
    send({ type: 'input_audio_buffer.append', audio: 'not base64!' });
    send({ type: 'session.update', session: { type: 'transcription' } });
    await vad.releaseAll();
    await settle();
    expect(types().slice(1, 5)).toEqual([STARTED, COMMITTED, 'error', 'session.updated']);
  });
});
