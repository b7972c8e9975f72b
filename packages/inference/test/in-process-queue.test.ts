import {
  createInProcessQueue,
  EnginePool,
  InferenceError,
  type InferenceQueue,
  runInferenceJob,
} from '../src/index.js';
import { engineConfig, jfk, later, request, SYNTHETIC_ANSWER, seconds, syntheticModel } from './fixtures.js';

/** An engine pool of one single-threaded decode slot on a synthetic model. */
const onePool = (model: 'tiny' | 'tiny.en') =>
  EnginePool.start({ modelPath: syntheticModel(model), modelName: model, decodeSlots: 1, threadsPerSlot: 1 });

describe('in-process queue (synthetic tiny model)', () => {
  let queue: InferenceQueue;

  beforeAll(async () => {
    queue = createInProcessQueue({ engine: engineConfig({ decodeSlots: 2, threadsPerSlot: 1 }) });
    await queue.start();
  });
  afterAll(() => queue.close());

  it('describes the engine once warmed up', async () => {
    expect(await queue.engine()).toMatchObject({
      model: 'synthetic-tiny',
      device: 'cpu',
      computeType: 'f16',
      multilingual: true,
      modes: ['transcribe', 'translate', 'both'],
      translationTarget: 'en',
      decodeSlots: 2,
      threadsPerSlot: 1,
      beamSize: 1,
    });
    const status = await queue.status();
    expect(status.workers).toHaveLength(1);
    expect(status.workers[0]).toMatchObject({ ready: true, running: 0 });
  });

  it('transcribes a final clip', async () => {
    const result = await queue.submit(request(), seconds(3), { startDeadline: later(20_000) });
    expect(result).toMatchObject({ ...SYNTHETIC_ANSWER, audioSeconds: 3, committedSeconds: 3 });
    expect(result.inferenceSeconds).toBeGreaterThan(0);
  });

  it('keeps the last second of an unfinished window uncommitted', async () => {
    // The synthetic model times its one word over the whole clip, so it ends inside the open tail.
    const result = await queue.submit(
      request({ window: true, final: false, contextSeconds: 0.5 }),
      seconds(3),
      { startDeadline: later(20_000) },
    );
    expect(result.text).toBe('');
    expect(result.committedSeconds).toBe(2);
  });

  it('does not decode silence', async () => {
    const result = await queue.submit(request({ language: 'auto' }), new Float32Array(32_000), {
      startDeadline: later(20_000),
    });
    expect(result).toMatchObject({ text: '', language: null, committedSeconds: 2 });
  });

  it('translates and transcribes in both mode', async () => {
    const result = await queue.submit(request({ mode: 'both', language: 'de' }), seconds(2), {
      startDeadline: later(20_000),
    });
    expect(result).toMatchObject({
      text: 'test',
      transcript: 'test',
      translation: 'test',
      language: 'de',
      outputLanguage: 'de',
      translationLanguage: 'en',
    });
  });

  it('puts the translation in text for translate mode', async () => {
    const result = await queue.submit(request({ mode: 'translate', language: 'fr' }), seconds(2), {
      startDeadline: later(20_000),
    });
    expect(result).toMatchObject({ text: 'test', transcript: '', translation: 'test', outputLanguage: 'en' });
  });

  it('detects the language for auto', async () => {
    const result = await queue.submit(request({ language: 'auto' }), seconds(2), {
      startDeadline: later(20_000),
    });
    expect(typeof result.language).toBe('string');
    expect(result.outputLanguage).toBe(result.language);
  });

  it('refuses an unknown language', async () => {
    await expect(
      queue.submit(request({ language: 'xx' }), seconds(1), { startDeadline: later(20_000) }),
    ).rejects.toMatchObject({ code: 'unsupported', message: 'Unknown language code' });
  });

  it('runs jobs concurrently up to the number of workers, in order', async () => {
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => queue.submit(request(), seconds(2), { startDeadline: later(30_000) })),
    );
    expect(results.map((r) => r.text)).toEqual(['test', 'test', 'test', 'test']);
    const [status] = (await queue.status()).workers;
    expect(status?.completed).toBeGreaterThanOrEqual(4);
  });
});

describe('engine pool scheduling', () => {
  it('fails a job whose deadline passes while waiting, without decoding it', async () => {
    const pool = await onePool('tiny');
    let decodedByLate = 0;
    const busy = pool.withSlot(later(10_000), (slot) => runInferenceJob(slot, request(), jfk, 0));
    const late = pool.withSlot(later(5), async (slot) => {
      decodedByLate++;
      return runInferenceJob(slot, request(), seconds(1), 0);
    });
    await expect(late).rejects.toMatchObject({ code: 'queue_timeout' });
    await expect(busy).resolves.toMatchObject({ text: 'test' });
    expect(decodedByLate).toBe(0);
    expect(pool.stats.queueTimeouts).toBe(1);
    expect(pool.pending).toBe(0);
    await pool.close();
  });

  it('trips the watchdog on a long decode and replaces the decode state', async () => {
    const options = {
      modelPath: syntheticModel('base'),
      modelName: 'base',
      decodeSlots: 1,
      threadsPerSlot: 1,
      watchdogMs: 90_000,
    };
    const pool = await EnginePool.start(options);
    options.watchdogMs = 20;
    const job = pool.withSlot(later(10_000), (slot) => slot.decode(jfk, { language: 'en', audioContext: 0 }));
    await expect(job).rejects.toEqual(
      new InferenceError('inference_failed', 'the decode exceeded the watchdog limit'),
    );
    expect(pool.ready).toBe(false);
    options.watchdogMs = 90_000;
    // The slot comes back with a fresh state once the aborted decode has stopped.
    const next = await pool.withSlot(later(30_000), (slot) => slot.decode(seconds(1), { language: 'en' }));
    expect(next.text).toBe(' test');
    expect(pool.ready).toBe(true);
    await pool.close();
  });

  it('aborts a running decode when closed, instead of waiting for it', async () => {
    // The gateway closes its embedded queue only after its shutdown grace: the decodes still
    // running then belong to requests already answered with 503.
    const embedded = createInProcessQueue({
      engine: engineConfig({ model: syntheticModel('base'), decodeSlots: 1, threadsPerSlot: 1 }),
    });
    await embedded.start();
    const job = embedded.submit(request(), jfk, { startDeadline: later(20_000) });
    const settled = job.then(
      () => 'decoded',
      (error: unknown) => error,
    );
    while ((await embedded.status()).workers[0]?.running !== 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await embedded.close();
    expect(await settled).toEqual(new InferenceError('inference_failed', 'the decode was aborted'));
  });

  it('refuses translation on an English-only model', async () => {
    const pool = await onePool('tiny.en');
    expect(pool.info).toMatchObject({
      multilingual: false,
      languages: ['en'],
      modes: ['transcribe'],
      translationTarget: null,
    });
    for (const bad of [
      request({ mode: 'translate' }),
      request({ mode: 'both' }),
      request({ language: 'de' }),
    ]) {
      await expect(
        pool.withSlot(later(5_000), (slot) => runInferenceJob(slot, bad, seconds(1), 0)),
      ).rejects.toMatchObject({
        code: 'unsupported',
        message: 'This model is English-only: use a multilingual model for this language or translation',
      });
    }
    await pool.close();
  });
});
