/**
 * G.711 decoding (ITU-T G.711): 8-bit μ-law (`audio/pcmu`) and A-law (`audio/pcma`) samples at
 * 8 kHz to floats in [-1, 1]. Each 256-entry table is built once from the standard's expansion.
 */

function muLawSample(byte: number): number {
  const value = ~byte & 0xff;
  const sign = value & 0x80;
  const exponent = (value >> 4) & 0x07;
  const mantissa = value & 0x0f;
  const magnitude = (((mantissa << 3) + 0x84) << exponent) - 0x84;
  return (sign ? -magnitude : magnitude) / 32768;
}

function aLawSample(byte: number): number {
  const value = byte ^ 0x55;
  const sign = value & 0x80;
  const exponent = (value >> 4) & 0x07;
  const mantissa = value & 0x0f;
  const magnitude = exponent === 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1);
  // A-law's sign bit set means positive.
  return (sign ? magnitude : -magnitude) / 32768;
}

const table = (expand: (byte: number) => number) => Float32Array.from({ length: 256 }, (_, i) => expand(i));

export const MU_LAW = table(muLawSample);
export const A_LAW = table(aLawSample);

/** Expands G.711 bytes with `law` (MU_LAW or A_LAW). */
export function decodeG711(bytes: Uint8Array, law: Float32Array): Float32Array {
  const out = new Float32Array(bytes.length);
  for (let i = 0; i < bytes.length; i += 1) out[i] = law[bytes[i]!]!;
  return out;
}
