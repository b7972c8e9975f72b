import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  DEFAULT_MODEL_BASE_URL,
  MODEL_CATALOG,
  ModelError,
  modelFile,
  modelSpec,
  repoRoot,
  resolveModel,
  SILERO_VAD,
} from '../src/catalog.js';
import { modelSettings } from '../src/config.js';
import { sha1File } from '../src/download.js';

const upstreamReadme = join(
  repoRoot,
  'packages/whisper/node_modules/nodejs-whisper/cpp/whisper.cpp/models/README.md',
);

describe('model catalog', () => {
  it('lists every model of the speech contract', () => {
    for (const name of [
      'tiny',
      'tiny.en',
      'base',
      'base.en',
      'small',
      'small.en',
      'medium',
      'medium.en',
      'large-v3',
      'large-v3-turbo',
    ]) {
      expect(modelSpec(name)?.name).toBe(name);
    }
  });

  it('matches the SHA-1 table of the whisper.cpp models README exactly', () => {
    const rows = [
      ...readFileSync(upstreamReadme, 'utf8').matchAll(
        /^\| ([a-z0-9.\-_]+)\s*\| ([\d.]+) (MiB|GiB)\s*\| `([0-9a-f]{40})` \|$/gm,
      ),
    ];
    const upstream = rows.map((row) => [row[1], row[4]]);
    expect(upstream.length).toBeGreaterThanOrEqual(16);
    expect(MODEL_CATALOG.map((spec) => [spec.name, spec.sha1])).toEqual(upstream);
    for (const row of rows) {
      const mib = Number(row[2]) * (row[3] === 'GiB' ? 1024 : 1);
      expect(Math.round(modelSpec(row[1] as string)!.approxBytes / 1024 / 1024)).toBe(Math.round(mib));
    }
  });

  it('knows which models are English-only, quantized or hosted elsewhere', () => {
    expect(modelSpec('base.en')?.multilingual).toBe(false);
    expect(modelSpec('large-v3-turbo')?.multilingual).toBe(true);
    expect(modelSpec('large-v3-turbo-q5_0')?.quantization).toBe('q5_0');
    expect(modelSpec('large-v3')?.quantization).toBeUndefined();
    expect(modelSpec('small.en-tdrz')?.baseUrl).toBe(
      'https://huggingface.co/akashmjn/tinydiarize-whisper.cpp',
    );
    expect(modelSpec('base')?.baseUrl).toBeUndefined();
    expect(DEFAULT_MODEL_BASE_URL).toBe('https://huggingface.co/ggerganov/whisper.cpp');
  });

  it('returns undefined for names outside the catalog', () => {
    expect(modelSpec('huge')).toBeUndefined();
    expect(modelSpec('ggml-base.bin')).toBeUndefined();
  });
});

describe('Silero VAD entry', () => {
  it('checks downloads against the SHA-1 of the real model in fixtures, and is no Whisper model', async () => {
    const { sileroModel } = await import('@live-captions/test-services/fixtures');
    expect(await sha1File(sileroModel())).toBe(SILERO_VAD.sha1);
    expect(modelFile(SILERO_VAD.name, '/m')).toBe('/m/ggml-silero-v6.2.0.bin');
    expect(modelSpec(SILERO_VAD.name)).toBeUndefined();
    expect(() => resolveModel('silero', '/m')).toThrow(ModelError);
  });
});

describe('resolveModel', () => {
  const dir = '/srv/models';

  it('maps a catalog name to <modelDir>/ggml-<name>.bin', () => {
    expect(resolveModel('base.en', dir)).toEqual({
      name: 'base.en',
      path: '/srv/models/ggml-base.en.bin',
      spec: modelSpec('base.en'),
      source: 'catalog',
    });
    expect(resolveModel(' large-v3-turbo ', dir).path).toBe('/srv/models/ggml-large-v3-turbo.bin');
    expect(modelFile('tiny', 'rel')).toBe(resolve('rel/ggml-tiny.bin'));
  });

  it('takes a value with a path separator as a file, named after its base name', () => {
    expect(resolveModel('/opt/whisper/ggml-base.bin', dir)).toEqual({
      name: 'base',
      path: '/opt/whisper/ggml-base.bin',
      spec: modelSpec('base'),
      source: 'file',
    });
    const custom = resolveModel('./finetuned/ggml-medical-v2.bin', dir, { cwd: '/home/me' });
    expect(custom).toEqual({
      name: 'medical-v2',
      path: '/home/me/finetuned/ggml-medical-v2.bin',
      spec: undefined,
      source: 'file',
    });
  });

  it('takes a value ending in .bin as a file even without a separator', () => {
    expect(resolveModel('whisper-nl.bin', dir, { cwd: '/data' })).toMatchObject({
      name: 'whisper-nl',
      path: '/data/whisper-nl.bin',
      source: 'file',
    });
  });

  it('refuses an unknown name with the list of valid ones', () => {
    expect(() => resolveModel('large-v4', dir)).toThrow(ModelError);
    expect(() => resolveModel('large-v4', dir)).toThrow(
      /^Unknown model "large-v4": use one of tiny, tiny\.en, base, .*large-v3-turbo-q5_0, or a path to a ggml \.bin file$/,
    );
    try {
      resolveModel('', dir);
      throw new Error('resolveModel accepted an empty value');
    } catch (err) {
      expect((err as ModelError).code).toBe('MODEL_UNKNOWN');
      expect((err as ModelError).message).toMatch(/^No model given: use one of tiny,/);
    }
  });
});

describe('modelSettings', () => {
  it('is <repo>/models unless CAPTION_MODEL_DIR says otherwise (relative to the repo root)', () => {
    expect(modelSettings({}).modelDir).toBe(join(repoRoot, 'models'));
    expect(modelSettings({ CAPTION_MODEL_DIR: 'var/models' }).modelDir).toBe(join(repoRoot, 'var/models'));
    expect(modelSettings({ CAPTION_MODEL_DIR: '/mnt/models' }).modelDir).toBe('/mnt/models');
  });
});
