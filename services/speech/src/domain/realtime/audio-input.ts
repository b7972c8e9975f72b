/**
 * The audio of `input_audio_buffer.append` events, in the session's format, as floats at the
 * format's own rate; the connection's `StreamResampler` (`@live-captions/audio`) turns them into
 * the 16 kHz the VAD and whisper take, on a stream, so that 20 ms chunks come out as if the whole
 * clip had been converted at once (no clicks at chunk edges, which the VAD would hear).
 */
import { decodePcm16, G711_RATE, REALTIME_RATE } from '@live-captions/audio';
import { A_LAW, decodeG711, MU_LAW } from './g711.js';

export type AudioFormat = 'pcm16' | 'pcmu' | 'pcma';

/** `audio/pcm` is 24 kHz 16-bit little-endian mono; G.711 is 8 kHz, one byte a sample. */
export const FORMAT_RATE: Record<AudioFormat, number> = {
  pcm16: REALTIME_RATE,
  pcmu: G711_RATE,
  pcma: G711_RATE,
};

/** Bytes of one sample; an append must hold whole samples. */
export const bytesPerSample = (format: AudioFormat) => (format === 'pcm16' ? 2 : 1);

/** Raw bytes to floats at the format's own rate. */
export function decodeSamples(bytes: Uint8Array, format: AudioFormat): Float32Array {
  if (format === 'pcmu') return decodeG711(bytes, MU_LAW);
  if (format === 'pcma') return decodeG711(bytes, A_LAW);
  return decodePcm16(bytes);
}
