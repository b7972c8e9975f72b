/**
 * Raw PCM codecs, written without Buffer or btoa so that the pages and node (services, tests,
 * benchmarks) produce and read the same bytes:
 * - 16-bit signed little-endian (`audio/pcm` of the realtime protocol, WAV files);
 * - 32-bit float little-endian (the native route's body, 16 kHz mono);
 * - base64, the realtime protocol's carrier for audio bytes.
 */

/** Float samples in [-1, 1] (clipped beyond) as 16-bit little-endian PCM. */
export function encodePcm16(samples: ArrayLike<number>): Uint8Array {
  const bytes = new Uint8Array(samples.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < samples.length; i++) {
    // The reader's exact inverse (x * 32768), clipped: -1 is -32768, +1 and above 32767.
    view.setInt16(i * 2, Math.max(-0x8000, Math.min(0x7fff, Math.round(samples[i]! * 0x8000))), true);
  }
  return bytes;
}

/** 16-bit little-endian PCM as floats in [-1, 1) (an odd last byte is ignored). */
export function decodePcm16(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.byteLength >> 1);
  for (let i = 0; i < out.length; i += 1) out[i] = view.getInt16(i * 2, true) / 32768;
  return out;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Float samples as 32-bit little-endian floats. */
export function encodeFloat32(samples: ArrayLike<number>): Uint8Array {
  const floats = Float32Array.from(samples);
  if (LITTLE_ENDIAN) return new Uint8Array(floats.buffer);
  const bytes = new Uint8Array(floats.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < floats.length; i += 1) view.setFloat32(i * 4, floats[i]!, true);
  return bytes;
}

/** 32-bit little-endian floats as samples (a copy); the length must be a multiple of 4. */
export function decodeFloat32(bytes: Uint8Array): Float32Array {
  if (bytes.byteLength % 4 !== 0) throw new RangeError('float32 PCM length is not a multiple of 4 bytes');
  const samples = new Float32Array(bytes.byteLength / 4);
  if (LITTLE_ENDIAN) {
    new Uint8Array(samples.buffer).set(bytes);
  } else {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < samples.length; i += 1) samples[i] = view.getFloat32(i * 4, true);
  }
  return samples;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 with padding (RFC 4648 §4). */
export function base64(bytes: Uint8Array): string {
  const parts: string[] = [];
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    parts.push(ALPHABET[n >> 18]!, ALPHABET[(n >> 12) & 63]!, ALPHABET[(n >> 6) & 63]!, ALPHABET[n & 63]!);
  }
  const rest = bytes.length - i;
  if (rest > 0) {
    const n = (bytes[i]! << 16) | (rest === 2 ? bytes[i + 1]! << 8 : 0);
    parts.push(
      ALPHABET[n >> 18]!,
      ALPHABET[(n >> 12) & 63]!,
      rest === 2 ? ALPHABET[(n >> 6) & 63]! : '=',
      '=',
    );
  }
  return parts.join('');
}
