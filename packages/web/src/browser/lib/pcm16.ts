/**
 * The realtime protocol's audio encoding (pure): `audio/pcm` is 16-bit signed little-endian mono,
 * carried base64 in `input_audio_buffer.append`. Written without Buffer or btoa so that the page
 * and node (tests, the quality harness) produce the same bytes.
 */

/** Float samples in [-1, 1] (clipped beyond) as 16-bit little-endian PCM. */
export function pcm16(samples: Float32Array): Uint8Array {
  const bytes = new Uint8Array(samples.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < samples.length; i++) {
    const x = Math.max(-1, Math.min(1, samples[i]!));
    // Asymmetric scale: -1 reaches -32768 and +1 reaches 32767, both exactly.
    view.setInt16(i * 2, Math.round(x < 0 ? x * 0x8000 : x * 0x7fff), true);
  }
  return bytes;
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
