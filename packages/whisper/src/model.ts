import { stat } from 'node:fs/promises';
import { currentSpinSetting, loadBinding } from './binding.js';
import { fromNative, WhisperError } from './errors.js';
import type { NativeModel, NativeModelInfo, NativeState } from './native-types.js';
import type { SpinSetting } from './openmp.js';
import { type DecodeOptions, resolveDecodeOptions } from './options.js';
import { type Transcription, toTranscription } from './transcription.js';

export interface LoadOptions {
  /** Use the GPU when the addon was built with CUDA (default true; ignored by CPU builds). */
  useGpu?: boolean;
  gpuDevice?: number;
  /** Flash attention in encoder and decoder (whisper.cpp's default, and faster on CPU too): default true. */
  flashAttn?: boolean;
}

export interface ModelInfo extends NativeModelInfo {
  path: string;
  /** Language codes the model knows (only `en` for English-only models). */
  languages: string[];
}

/** One whisper.cpp model, loaded once and shared by any number of {@link WhisperState}s. */
export class WhisperModel {
  readonly info: ModelInfo;
  readonly #native: NativeModel;
  readonly #languages: ReadonlySet<string>;

  private constructor(native: NativeModel, path: string, allLanguages: string[]) {
    this.#native = native;
    const info = native.info();
    const languages = info.multilingual ? allLanguages : ['en'];
    this.info = { ...info, path, languages };
    this.#languages = new Set(allLanguages);
  }

  /** Loads a ggml model file off the JS thread. Missing, foreign or truncated files reject with a WhisperError. */
  static async load(path: string, options: LoadOptions = {}): Promise<WhisperModel> {
    const binding = loadBinding();
    try {
      const info = await stat(path);
      if (!info.isFile()) throw new Error('not a regular file');
    } catch (error) {
      throw new WhisperError(
        'WHISPER_LOAD_FAILED',
        `cannot load whisper model ${path}: ${(error as Error).message}`,
      );
    }
    try {
      const native = await binding.loadModel(path, {
        useGpu: options.useGpu ?? true,
        flashAttn: options.flashAttn ?? true,
        ...(options.gpuDevice === undefined ? {} : { gpuDevice: options.gpuDevice }),
      });
      return new WhisperModel(
        native,
        path,
        binding.languages().map((language) => language.code),
      );
    } catch (error) {
      throw fromNative(error);
    }
  }

  /** A new decode state (its own KV caches): one decode at a time per state. */
  createState(): WhisperState {
    try {
      return new WhisperState(this.#native.createState(), this.info, this.#languages);
    } catch (error) {
      throw fromNative(error);
    }
  }

  /** Releases the weights; every state must have been freed first. */
  free(): void {
    try {
      this.#native.free();
    } catch (error) {
      throw fromNative(error);
    }
  }
}

export class WhisperState {
  readonly #native: NativeState;
  readonly #info: ModelInfo;
  readonly #languages: ReadonlySet<string>;

  /** @internal created by {@link WhisperModel.createState} */
  constructor(native: NativeState, info: ModelInfo, languages: ReadonlySet<string>) {
    this.#native = native;
    this.#info = info;
    this.#languages = languages;
  }

  /**
   * Decodes 16 kHz mono samples off the JS thread. The array is read in place (zero-copy): do
   * not modify it until the promise settles. Aborting the signal stops the decode at the next
   * ggml graph boundary and rejects with WHISPER_ABORTED.
   */
  async decode(
    samples: Float32Array,
    options: DecodeOptions = {},
    signal?: AbortSignal,
  ): Promise<Transcription> {
    const resolved = resolveDecodeOptions(options, {
      samples: samples.length,
      modelAudioContext: this.#info.audioContext,
      languages: this.#languages,
      multilingual: this.#info.multilingual,
    });
    signal?.throwIfAborted();
    const onAbort = () => this.#native.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return toTranscription(await this.#native.decode(samples, resolved));
    } catch (error) {
      throw fromNative(error);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Stops a running decode (it rejects with WHISPER_ABORTED). */
  abort(): void {
    this.#native.abort();
  }

  free(): void {
    try {
      this.#native.free();
    } catch (error) {
      throw fromNative(error);
    }
  }
}

/** whisper.cpp's version, build features, the addon's GPU support and its threads' spin count. */
export function engineBuildInfo(): { version: string; systemInfo: string; gpu: boolean; spin: SpinSetting } {
  const binding = loadBinding();
  return {
    version: binding.version,
    systemInfo: binding.systemInfo().trim(),
    gpu: binding.gpu,
    spin: currentSpinSetting(),
  };
}
