// Every tensor of a whisper architecture, in the order of the PyTorch state dict that
// convert-pt-to-ggml.py walks, with its real name, shape and type, and its ggml record header.
import type { WhisperHparams } from './ggml-header.js';

export type TensorType = 'f32' | 'f16';

export interface TensorSpec {
  name: string;
  /** ggml order: ne[0] is the fastest-varying dimension. */
  shape: number[];
  type: TensorType;
}

export function tensorLayout(h: WhisperHparams): TensorSpec[] {
  const s = h.nAudioState;
  const t = h.nTextState;
  const out: TensorSpec[] = [];
  const add = (name: string, shape: number[], type: TensorType): void => {
    out.push({ name, shape, type });
  };
  const attention = (prefix: string, n: number): void => {
    add(`${prefix}.query.weight`, [n, n], 'f16');
    add(`${prefix}.query.bias`, [n], 'f32');
    add(`${prefix}.key.weight`, [n, n], 'f16');
    add(`${prefix}.value.weight`, [n, n], 'f16');
    add(`${prefix}.value.bias`, [n], 'f32');
    add(`${prefix}.out.weight`, [n, n], 'f16');
    add(`${prefix}.out.bias`, [n], 'f32');
  };
  const norm = (prefix: string, n: number): void => {
    add(`${prefix}.weight`, [n], 'f32');
    add(`${prefix}.bias`, [n], 'f32');
  };
  const mlp = (prefix: string, n: number): void => {
    add(`${prefix}.mlp.0.weight`, [n, 4 * n], 'f16');
    add(`${prefix}.mlp.0.bias`, [4 * n], 'f32');
    add(`${prefix}.mlp.2.weight`, [4 * n, n], 'f16');
    add(`${prefix}.mlp.2.bias`, [n], 'f32');
    norm(`${prefix}.mlp_ln`, n);
  };

  add('encoder.positional_embedding', [s, h.nAudioCtx], 'f32');
  add('encoder.conv1.weight', [3, h.nMels, s], 'f16');
  add('encoder.conv1.bias', [1, s], 'f32');
  add('encoder.conv2.weight', [3, s, s], 'f16');
  add('encoder.conv2.bias', [1, s], 'f32');
  for (let i = 0; i < h.nAudioLayer; i++) {
    const p = `encoder.blocks.${i}`;
    attention(`${p}.attn`, s);
    norm(`${p}.attn_ln`, s);
    mlp(p, s);
  }
  norm('encoder.ln_post', s);
  add('decoder.positional_embedding', [t, h.nTextCtx], 'f32');
  add('decoder.token_embedding.weight', [t, h.nVocab], 'f16');
  for (let i = 0; i < h.nTextLayer; i++) {
    const p = `decoder.blocks.${i}`;
    attention(`${p}.attn`, t);
    norm(`${p}.attn_ln`, t);
    attention(`${p}.cross_attn`, t);
    norm(`${p}.cross_attn_ln`, t);
    mlp(p, t);
  }
  norm('decoder.ln', t);
  return out;
}

export function tensorBytes(spec: TensorSpec): number {
  return spec.shape.reduce((a, b) => a * b, 1) * (spec.type === 'f16' ? 2 : 4);
}

export function tensorHeader(spec: TensorSpec): Buffer {
  const name = Buffer.from(spec.name, 'utf8');
  const header = Buffer.alloc(12 + 4 * spec.shape.length + name.length);
  header.writeInt32LE(spec.shape.length, 0);
  header.writeInt32LE(name.length, 4);
  header.writeInt32LE(spec.type === 'f16' ? 1 : 0, 8);
  for (const [i, n] of spec.shape.entries()) header.writeInt32LE(n, 12 + 4 * i);
  name.copy(header, 12 + 4 * spec.shape.length);
  return header;
}
