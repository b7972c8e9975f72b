import { stat } from 'node:fs/promises';
import { loadBinding } from './binding.js';
import { fromNative, WhisperError } from './errors.js';
import type { NativeVad } from './native-types.js';
import { SAMPLE_RATE } from './options.js';

/** whisper.cpp's VAD settings; the defaults are whisper.cpp's own (`whisper_vad_default_params`). */
export interface VadOptions {
  /** Speech probability from which a frame counts as speech (default 0.5). */
  threshold?: number;
  /** Shorter speech is dropped (default 250 ms). */
  minSpeechMs?: number;
  /** A pause this long ends a segment (default 100 ms). */
  minSilenceMs?: number;
  /** Longer speech is split (default: never). */
  maxSpeechSeconds?: number;
  /** Added before and after each segment (default 30 ms). */
  padMs?: number;
}

export interface SpeechSegment {
  /** Seconds from the start of the samples passed in. */
  start: number;
  end: number;
}

export interface SpeechDetection {
  segments: SpeechSegment[];
  /** Speech probability of each frame (`frameSeconds` long) of the samples passed in. */
  probabilities: Float32Array;
  frameSeconds: number;
  /** Wall time of the native call. */
  wallMs: number;
}

const DEFAULTS: Required<VadOptions> = {
  threshold: 0.5,
  minSpeechMs: 250,
  minSilenceMs: 100,
  // whisper.cpp's default is FLT_MAX; a large finite number crosses N-API the same way.
  maxSpeechSeconds: 3.4e38,
  padMs: 30,
};

/**
 * Silero voice activity detection (whisper.cpp's ggml port). One instance holds the network and
 * its LSTM state and runs on its own native thread: give each decode slot (or stream) its own.
 */
export class WhisperVad {
  readonly #native: NativeVad;
  /** The next `detectNext` starts from a fresh LSTM state. */
  #fresh = true;

  private constructor(native: NativeVad) {
    this.#native = native;
  }

  /** Loads a Silero ggml file (e.g. `ggml-silero-v6.2.0.bin`) off the JS thread. */
  static async load(path: string, options: { threads?: number } = {}): Promise<WhisperVad> {
    const binding = loadBinding();
    try {
      if (!(await stat(path)).isFile()) throw new Error('not a regular file');
    } catch (error) {
      throw new WhisperError(
        'WHISPER_LOAD_FAILED',
        `cannot load VAD model ${path}: ${(error as Error).message}`,
      );
    }
    try {
      return new WhisperVad(await binding.loadVad(path, { threads: options.threads ?? 1 }));
    } catch (error) {
      throw fromNative(error);
    }
  }

  /** Speech segments of a whole clip (16 kHz mono), from a fresh LSTM state. */
  detect(samples: Float32Array, options: VadOptions = {}): Promise<SpeechDetection> {
    this.#fresh = true;
    return this.#run(samples, options, true);
  }

  /**
   * Streaming use: probabilities (and segments) of `samples` only, continuing the LSTM state of
   * the previous call. `reset()` starts a new stream.
   */
  detectNext(samples: Float32Array, options: VadOptions = {}): Promise<SpeechDetection> {
    const reset = this.#fresh;
    this.#fresh = false;
    return this.#run(samples, options, reset);
  }

  /** Forgets the LSTM state: the next `detectNext` starts a new stream. */
  reset(): void {
    this.#fresh = true;
  }

  free(): void {
    try {
      this.#native.free();
    } catch (error) {
      throw fromNative(error);
    }
  }

  async #run(samples: Float32Array, options: VadOptions, reset: boolean): Promise<SpeechDetection> {
    const merged = { ...DEFAULTS, ...options };
    if (!(merged.threshold > 0 && merged.threshold < 1)) {
      throw new WhisperError('WHISPER_INVALID_OPTION', 'threshold must be between 0 and 1');
    }
    try {
      const result = await this.#native.detect(samples, { ...merged, reset });
      return {
        segments: result.segments,
        probabilities: result.probs,
        frameSeconds: result.frameSamples / SAMPLE_RATE,
        wallMs: result.wallMs,
      };
    } catch (error) {
      throw fromNative(error);
    }
  }
}
