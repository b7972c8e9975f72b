// The ggml whisper file format as whisper.cpp v1.9.1 reads it (whisper_model_load): the prefix
// before the tensors (magic, hparams, mel filters, vocabulary) and what it says about the model.

const GGML_MAGIC = 0x67676d6c;

export interface WhisperHparams {
  nVocab: number;
  nAudioCtx: number;
  nAudioState: number;
  nAudioHead: number;
  nAudioLayer: number;
  nTextCtx: number;
  nTextState: number;
  nTextHead: number;
  nTextLayer: number;
  nMels: number;
  ftype: number;
}

/** The part of a ggml whisper file before its tensors. */
export interface GgmlPrefix {
  hparams: WhisperHparams;
  melFilters: { nMel: number; nFft: number };
  /** Tokens stored in the file (whisper.cpp names the missing special ids itself). */
  vocab: Buffer[];
  /** Byte length of magic + hparams + mel filters + vocabulary. */
  length: number;
}

export function parseGgmlPrefix(buf: Buffer): GgmlPrefix {
  let at = 0;
  const need = (n: number): void => {
    if (at + n > buf.length) throw new Error('truncated ggml whisper header');
  };
  const i32 = (): number => {
    need(4);
    const v = buf.readInt32LE(at);
    at += 4;
    return v;
  };
  if (i32() >>> 0 !== GGML_MAGIC) throw new Error('not a ggml whisper file (bad magic)');
  const hparams: WhisperHparams = {
    nVocab: i32(),
    nAudioCtx: i32(),
    nAudioState: i32(),
    nAudioHead: i32(),
    nAudioLayer: i32(),
    nTextCtx: i32(),
    nTextState: i32(),
    nTextHead: i32(),
    nTextLayer: i32(),
    nMels: i32(),
    ftype: i32(),
  };
  if (hparams.nAudioState !== hparams.nTextState) throw new Error('n_audio_state != n_text_state');
  const nMel = i32();
  const nFft = i32();
  need(nMel * nFft * 4);
  at += nMel * nFft * 4;
  const count = i32();
  const vocab: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const len = i32() >>> 0; // uint32 in whisper.cpp
    need(len);
    vocab.push(buf.subarray(at, at + len));
    at += len;
  }
  return { hparams, melFilters: { nMel, nFft }, vocab, length: at };
}

export function isMultilingual(h: WhisperHparams): boolean {
  return h.nVocab >= 51865;
}

export function modelName(h: WhisperHparams): string {
  const byLayers: Record<number, string> = { 4: 'tiny', 6: 'base', 12: 'small', 24: 'medium', 32: 'large' };
  const base = byLayers[h.nAudioLayer] ?? `layers${h.nAudioLayer}`;
  return isMultilingual(h) ? base : `${base}.en`;
}
