// RealtimeConnection with scripted ports: a VAD that hears speech wherever the signal is loud,
// and a decoder that says one word per second of audio. Covers what the real clips cannot:
// the 12 s cut of an endless turn, and switching between server VAD and manual commits.
import { describe, expect, it } from '@jest/globals';
import {
  type ConnectionPorts,
  RealtimeConnection,
  type StreamingVad,
} from '../src/domain/realtime/connection.js';

const RATE_24K = 24_000;

function pcm(seconds: number, amplitude: number): string {
  const out = Buffer.alloc(Math.round(seconds * RATE_24K) * 2);
  for (let i = 0; i < out.length / 2; i += 1)
    out.writeInt16LE(Math.round(amplitude * 32767 * Math.sin(i / 3)), i * 2);
  return out.toString('base64');
}

function harness(partialIntervalSamples = 16_000) {
  const events: Record<string, unknown>[] = [];
  const decoded: number[] = [];
  const vad: StreamingVad = {
    async next(samples) {
      const out = new Float32Array(samples.length / 512);
      for (let f = 0; f < out.length; f += 1) {
        let peak = 0;
        for (let i = f * 512; i < (f + 1) * 512; i += 1) peak = Math.max(peak, Math.abs(samples[i]!));
        out[f] = peak > 0.05 ? 0.9 : 0.02;
      }
      return out;
    },
  };
  const ports: ConnectionPorts = {
    send: (event) => events.push(event),
    async decode(audio) {
      decoded.push(audio.length / 16_000);
      const words = Math.max(1, Math.round(audio.length / 16_000));
      return { text: Array(words).fill('word').join(' '), tokens: [], audioSeconds: audio.length / 16_000 };
    },
    checkSettings: () => undefined,
    log: () => undefined,
  };
  const connection = new RealtimeConnection(
    ports,
    vad,
    { maxBufferSamples: 12 * 16_000, maxUtteranceSamples: 12 * 16_000, partialIntervalSamples },
    false,
  );
  connection.start();
  const send = (event: Record<string, unknown>) => connection.handle(JSON.stringify(event));
  /** Appends in 100 ms events, letting the VAD and decodes run between them. */
  const append = async (seconds: number, amplitude: number) => {
    for (let t = 0; t < seconds - 1e-9; t += 0.1) {
      send({ type: 'input_audio_buffer.append', audio: pcm(Math.min(0.1, seconds - t), amplitude) });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  };
  const types = () => events.map((event) => event.type);
  return { events, decoded, send, append, types, connection };
}

describe('RealtimeConnection', () => {
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
