// Reads a ggml whisper file the way whisper_model_load does, and what whisper.cpp v1.9.1 expects
// to find in it, written out independently of the writer under test.
export interface Tensor {
  name: string;
  shape: number[];
  type: 'f32' | 'f16';
  data: Buffer;
}

/** Walks the tensors the way whisper_model_load does. */
export function readTensors(file: Buffer, from: number): Tensor[] {
  const tensors: Tensor[] = [];
  let at = from;
  while (at < file.length) {
    const nDims = file.readInt32LE(at);
    const nameLength = file.readInt32LE(at + 4);
    const ttype = file.readInt32LE(at + 8);
    at += 12;
    const shape: number[] = [];
    for (let i = 0; i < nDims; i++, at += 4) shape.push(file.readInt32LE(at));
    const name = file.subarray(at, at + nameLength).toString('utf8');
    at += nameLength;
    expect([0, 1]).toContain(ttype);
    const bytes = shape.reduce((a, b) => a * b, 1) * (ttype === 1 ? 2 : 4);
    tensors.push({ name, shape, type: ttype === 1 ? 'f16' : 'f32', data: file.subarray(at, at + bytes) });
    at += bytes;
  }
  expect(at).toBe(file.length);
  return tensors;
}

/** What whisper.cpp v1.9.1 creates for a model (whisper_model_load), written out independently. */
export function expectedTensors(
  s: number,
  audioCtx: number,
  textCtx: number,
  mels: number,
  vocab: number,
  encLayers: number,
  decLayers: number,
) {
  const attention = (p: string): Array<[string, number[], string]> => [
    [`${p}.query.weight`, [s, s], 'f16'],
    [`${p}.query.bias`, [s], 'f32'],
    [`${p}.key.weight`, [s, s], 'f16'],
    [`${p}.value.weight`, [s, s], 'f16'],
    [`${p}.value.bias`, [s], 'f32'],
    [`${p}.out.weight`, [s, s], 'f16'],
    [`${p}.out.bias`, [s], 'f32'],
  ];
  const ln = (p: string): Array<[string, number[], string]> => [
    [`${p}.weight`, [s], 'f32'],
    [`${p}.bias`, [s], 'f32'],
  ];
  const mlp = (p: string): Array<[string, number[], string]> => [
    [`${p}.mlp.0.weight`, [s, 4 * s], 'f16'],
    [`${p}.mlp.0.bias`, [4 * s], 'f32'],
    [`${p}.mlp.2.weight`, [4 * s, s], 'f16'],
    [`${p}.mlp.2.bias`, [s], 'f32'],
    ...ln(`${p}.mlp_ln`),
  ];
  const out: Array<[string, number[], string]> = [
    ['encoder.positional_embedding', [s, audioCtx], 'f32'],
    ['encoder.conv1.weight', [3, mels, s], 'f16'],
    ['encoder.conv1.bias', [1, s], 'f32'],
    ['encoder.conv2.weight', [3, s, s], 'f16'],
    ['encoder.conv2.bias', [1, s], 'f32'],
  ];
  for (let i = 0; i < encLayers; i++) {
    out.push(
      ...attention(`encoder.blocks.${i}.attn`),
      ...ln(`encoder.blocks.${i}.attn_ln`),
      ...mlp(`encoder.blocks.${i}`),
    );
  }
  out.push(...ln('encoder.ln_post'));
  out.push(
    ['decoder.positional_embedding', [s, textCtx], 'f32'],
    ['decoder.token_embedding.weight', [s, vocab], 'f16'],
  );
  for (let i = 0; i < decLayers; i++) {
    const p = `decoder.blocks.${i}`;
    out.push(
      ...attention(`${p}.attn`),
      ...ln(`${p}.attn_ln`),
      ...attention(`${p}.cross_attn`),
      ...ln(`${p}.cross_attn_ln`),
      ...mlp(p),
    );
  }
  out.push(...ln('decoder.ln'));
  return out.map(([name, shape, type]) => ({ name, shape, type }));
}

export const zero = Buffer.alloc(1 << 16);

export function isZero(buf: Buffer): boolean {
  for (let at = 0; at < buf.length; at += zero.length) {
    const part = buf.subarray(at, Math.min(buf.length, at + zero.length));
    if (!part.equals(zero.subarray(0, part.length))) return false;
  }
  return true;
}
