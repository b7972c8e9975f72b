/** Shapes of the compiled addon (native/*.cc); only this package talks to it directly. */

export interface NativeLoadOptions {
  useGpu: boolean;
  gpuDevice?: number;
  flashAttn: boolean;
}

export interface NativeModelInfo {
  type: string;
  ftype: string;
  multilingual: boolean;
  vocabularySize: number;
  audioContext: number;
  textContext: number;
  audioLayers: number;
  textLayers: number;
  device: 'cpu' | 'cuda';
}

export interface NativeDecodeOptions {
  language: string;
  translate: boolean;
  beamSize: number;
  threads: number;
  singleSegment: boolean;
  tokenTimestamps: boolean;
  initialPrompt: string;
  maxTokens: number;
  audioContext: number;
  suppressNonSpeech: boolean;
  noSpeechThreshold: number;
  temperature: number;
  /** 0: no fallback. */
  temperatureIncrement: number;
}

export interface NativeToken {
  id: number;
  bytes: Buffer;
  t0: number;
  t1: number;
  p: number;
  plog: number;
}

export interface NativeSegment {
  text: string;
  t0: number;
  t1: number;
  noSpeechProbability: number;
  tokens: NativeToken[];
}

export interface NativeDecodeResult {
  language: string;
  languageProbability: number | null;
  wallMs: number;
  segments: NativeSegment[];
}

export interface NativeState {
  decode(samples: Float32Array, options: NativeDecodeOptions): Promise<NativeDecodeResult>;
  abort(): void;
  free(): void;
}

export interface NativeModel {
  info(): NativeModelInfo;
  createState(): NativeState;
  free(): void;
}

export interface NativeVadOptions {
  /** false: keep the LSTM state of the previous call (streaming); true: start fresh. */
  reset: boolean;
  threshold: number;
  minSpeechMs: number;
  minSilenceMs: number;
  maxSpeechSeconds: number;
  padMs: number;
}

export interface NativeVadResult {
  /** Speech probability per frame of `frameSamples` samples. */
  probs: Float32Array;
  /** Seconds from the start of the samples passed in. */
  segments: { start: number; end: number }[];
  frameSamples: number;
  wallMs: number;
}

export interface NativeVad {
  detect(samples: Float32Array, options: NativeVadOptions): Promise<NativeVadResult>;
  free(): void;
}

export interface NativeAddon {
  loadModel(path: string, options: NativeLoadOptions): Promise<NativeModel>;
  loadVad(path: string, options: { threads: number }): Promise<NativeVad>;
  languages(): { code: string; name: string }[];
  systemInfo(): string;
  version: string;
  gpu: boolean;
}
