import { SAMPLE_RATE } from '@live-captions/audio';
import type {
  EngineInfo,
  InferenceProgress,
  InferenceRequest,
  InferenceResult,
  WorkerStatus,
} from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import {
  currentSpinSetting,
  type DecodeOptions,
  type Transcription,
  type WhisperError,
  WhisperModel,
  type WhisperState,
  WhisperVad,
} from '@live-captions/whisper';
import type { EngineConfig } from '../config.js';
import { fairnessGroup } from '../domain/fairness.js';
import type { GuardSettings } from '../domain/guards/index.js';
import { type DecodeSlot, runInferenceJob } from '../domain/run-job.js';
import { InferenceError } from '../queue.js';
import { describeEngine } from './engine-info.js';
import { prepareModelFile, prepareVadFile } from './model-file.js';
import { SlotQueue } from './slot-queue.js';
import { applySpinCount } from './spin-count.js';
import { underWatchdog, WATCHDOG_MS } from './watchdog.js';

export interface EnginePoolOptions {
  modelPath: string;
  /** Name clients see (health `model`, `/v1/models` id). */
  modelName: string;
  /** Concurrent decodes, each with its own decode state. */
  decodeSlots: number;
  threadsPerSlot: number;
  /** The process's decode-thread spin count (CAPTION_SPIN_COUNT); default: the whisper package's. */
  spinCount?: number | undefined;
  /** Default: 1 on CPU, 5 on GPU. */
  beamSize?: number;
  /** A decode running longer than this fails and its decode state is replaced. Default WATCHDOG_MS. */
  watchdogMs?: number;
  /** A Silero ggml file: each slot then gets its own VAD (speech regions, no hallucinated silence). */
  vadModelPath?: string;
  /** The hallucination and loop guards; default DEFAULT_GUARDS. */
  guards?: GuardSettings;
  logger?: Logger;
}

export interface JobOptions {
  /** Offline decodes: each batch of segments as it is decoded. */
  onProgress?: (progress: InferenceProgress) => void;
  /** The job's logger (the Redis worker binds the job id too). */
  logger?: Logger;
}

interface Slot {
  state: WhisperState;
  vad: WhisperVad | undefined;
  /** Set after a watchdog trip until a fresh state replaces the stuck one. */
  replacing: boolean;
  /** The running job's logger: the watchdog's lines carry its ids. */
  logger: Logger | undefined;
}

/**
 * One resident model and N decode states. Hands out slots round robin across caption rooms (a
 * stream without one is its own group), first come first served within a room; a waiter whose
 * start deadline passes is refused with `queue_timeout` and never decodes.
 */
export class EnginePool {
  readonly info: EngineInfo;
  readonly stats = { completed: 0, failed: 0, queueTimeouts: 0 };
  readonly #model: WhisperModel;
  readonly #slots: Slot[];
  readonly #queue: SlotQueue<Slot>;
  readonly #options: EnginePoolOptions;
  readonly #startedAt = Date.now();
  #tripped = 0;
  #closing = false;

  private constructor(model: WhisperModel, options: EnginePoolOptions) {
    this.#model = model;
    this.#options = options;
    this.#slots = Array.from({ length: options.decodeSlots }, () => ({
      state: model.createState(),
      vad: undefined,
      replacing: false,
      logger: options.logger,
    }));
    this.#queue = new SlotQueue(this.#slots, () => {
      this.stats.queueTimeouts++;
      return new InferenceError('queue_timeout', 'the job did not start before its queue deadline');
    });
    this.info = describeEngine(model.info, options);
  }

  /** Loads the model, creates the decode states and warms each up with a real decode. */
  static async start(options: EnginePoolOptions): Promise<EnginePool> {
    const loadStarted = performance.now();
    applySpinCount(options.spinCount, options.logger);
    const model = await WhisperModel.load(options.modelPath);
    const pool = new EnginePool(model, options);
    if (options.vadModelPath) {
      for (const slot of pool.#slots) slot.vad = await WhisperVad.load(options.vadModelPath);
    }
    // One second of silence: enough to run the encoder and one decoder step.
    const silence = new Float32Array(SAMPLE_RATE);
    await Promise.all(
      pool.#slots.map((slot) =>
        slot.state.decode(silence, { language: 'en', maxTokens: 1, threads: options.threadsPerSlot }),
      ),
    );
    options.logger?.info(
      {
        model: options.modelName,
        device: pool.info.device,
        decodeSlots: options.decodeSlots,
        spin: currentSpinSetting(),
        ms: Math.round(performance.now() - loadStarted),
      },
      'engine ready',
    );
    return pool;
  }

  /** Finds (or downloads) the configured model, then starts a pool on it. */
  static async fromConfig(config: EngineConfig, logger?: Logger): Promise<EnginePool> {
    const model = await prepareModelFile(config, logger);
    const vadModelPath = await prepareVadFile(config, logger, { optional: true });
    return EnginePool.start({
      modelPath: model.path,
      modelName: model.name,
      decodeSlots: config.decodeSlots,
      threadsPerSlot: config.threadsPerSlot,
      spinCount: config.spinCount,
      beamSize: config.beamSize,
      watchdogMs: config.watchdogMs,
      ...(vadModelPath ? { vadModelPath } : {}),
      ...(config.guards ? { guards: config.guards } : {}),
      ...(logger ? { logger } : {}),
    });
  }

  /**
   * Runs one job once a slot is free and counts it for health. `audio` is fetched only when the
   * job starts, so a job that times out in the queue never loads its audio. The job's lines (and
   * the watchdog's) go to `logger`, by default the pool's with the request's correlation id bound.
   */
  async runJob(
    request: InferenceRequest,
    timing: { enqueuedAt: number; startDeadline: number },
    audio: () => Float32Array | Promise<Float32Array>,
    options: JobOptions = {},
  ): Promise<InferenceResult> {
    const log = options.logger ?? this.#options.logger?.child({ correlationId: request.correlationId });
    const run = async (slot: DecodeSlot) =>
      runInferenceJob(
        slot,
        request,
        await audio(),
        (Date.now() - timing.enqueuedAt) / 1000,
        options.onProgress,
      );
    try {
      const result = await this.withSlot(timing.startDeadline, run, log, fairnessGroup(request));
      this.stats.completed++;
      const { audioSeconds, queueSeconds, inferenceSeconds } = result;
      log?.debug({ audioSeconds, queueSeconds, inferenceSeconds }, 'job decoded');
      return result;
    } catch (error) {
      const failure =
        error instanceof InferenceError ? error : new InferenceError('inference_failed', String(error));
      if (failure.code === 'inference_failed') this.stats.failed++;
      log?.warn({ code: failure.code, reason: failure.message }, 'job failed');
      throw failure;
    }
  }

  /** Decodes running now. */
  get running(): number {
    return this.#queue.busy;
  }

  /** Jobs waiting for a slot. */
  get pending(): number {
    return this.#queue.pending;
  }

  /** False while a slot is being replaced after a watchdog trip. */
  get ready(): boolean {
    return this.#tripped === 0 && !this.#closing;
  }

  /**
   * Runs `fn` with a decode slot once one is free and it is `group`'s turn (round robin across
   * groups, FIFO within one). Rejects with `queue_timeout` if no slot frees up before
   * `startDeadline` (ms since epoch); `fn` then never runs. A watchdog trip is logged to `logger`
   * (the job's), else to the pool's.
   */
  async withSlot<T>(
    startDeadline: number,
    fn: (slot: DecodeSlot) => Promise<T>,
    logger = this.#options.logger,
    group?: string,
  ): Promise<T> {
    const slot = await this.#queue.acquire(startDeadline, group);
    slot.logger = logger;
    try {
      return await fn(this.#decodeSlot(slot));
    } finally {
      this.#release(slot);
    }
  }

  status(id: string): WorkerStatus {
    return {
      id,
      engine: this.info,
      ready: this.ready,
      running: this.running,
      completed: this.stats.completed,
      queueTimeouts: this.stats.queueTimeouts,
      startedAt: this.#startedAt,
      updatedAt: Date.now(),
    };
  }

  /**
   * Refuses new work and frees the model once no decode runs. Running decodes finish, unless
   * `abortRunning`: the embedded gateway closes after its own shutdown grace, when their requests
   * were already answered, so waiting for them would only delay the exit.
   */
  async close(options: { abortRunning?: boolean } = {}): Promise<void> {
    this.#closing = true;
    this.#queue.close(new InferenceError('unavailable', 'the engine is shutting down'));
    if (options.abortRunning) {
      for (const slot of this.#slots) slot.state.abort();
    }
    while (this.running > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    for (const slot of this.#slots) {
      slot.state.free();
      slot.vad?.free();
    }
    this.#model.free();
  }

  #release(slot: Slot): void {
    if (!slot.replacing) this.#queue.release(slot);
  }

  #decodeSlot(slot: Slot): DecodeSlot {
    const vad = slot.vad;
    return {
      multilingual: this.info.multilingual,
      decode: (audio, options) => this.#decode(slot, audio, options),
      ...(this.#options.guards ? { guards: this.#options.guards } : {}),
      ...(vad ? { detectSpeech: async (audio: Float32Array) => (await vad.detect(audio)).segments } : {}),
    };
  }

  async #decode(slot: Slot, audio: Float32Array, options: DecodeOptions): Promise<Transcription> {
    const state = slot.state;
    const decoding = state.decode(audio, {
      threads: this.#options.threadsPerSlot,
      beamSize: this.info.beamSize,
      ...options,
    });
    try {
      return await underWatchdog(decoding, this.#options.watchdogMs ?? WATCHDOG_MS, () =>
        this.#replaceAfterTrip(slot, state, decoding),
      );
    } catch (error) {
      if (error instanceof InferenceError) throw error;
      throw new InferenceError('inference_failed', (error as WhisperError).message ?? String(error));
    }
  }

  /**
   * A stuck decode keeps its state busy: abort it and give the slot a fresh state once it stops.
   * The shared weights are read-only, so the other slots keep working meanwhile.
   */
  #replaceAfterTrip(slot: Slot, state: WhisperState, decoding: Promise<Transcription>): void {
    const logger = slot.logger;
    this.#tripped++;
    slot.replacing = true;
    logger?.error({ model: this.info.model }, 'decode watchdog tripped; replacing the decode state');
    state.abort();
    decoding
      .catch(() => undefined)
      .then(() => {
        state.free();
        slot.state = this.#model.createState();
        slot.replacing = false;
        this.#tripped--;
        this.#release(slot);
      })
      .catch((error: unknown) => logger?.error({ err: error }, 'cannot replace the decode state'));
  }
}
