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
}

export interface NativeToken {
  id: number;
  bytes: Buffer;
  t0: number;
  t1: number;
  p: number;
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

export interface NativeAddon {
  loadModel(path: string, options: NativeLoadOptions): Promise<NativeModel>;
  languages(): { code: string; name: string }[];
  systemInfo(): string;
  version: string;
  gpu: boolean;
}
