/**
 * Where the repository's test fixtures are (`fixtures/` at the root): the audio clips with their
 * references and the whisper.cpp model headers. The one place that names that folder, so tests,
 * benchmarks and `pnpm model:synthetic` never spell a path of their own. Its own subpath
 * (`@live-captions/test-services/fixtures`) because the scripts that need it must not load the
 * Redis and PostgreSQL clients of the package's main entry.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `<repo>/fixtures` (licences and sources in its LICENSES.md). */
export const fixturesDir = fileURLToPath(new URL('../../../fixtures', import.meta.url));

/** The 25 speech clips (16 kHz mono 16-bit WAV) and their `manifest.json`. */
export const audioDir = join(fixturesDir, 'audio');

/** whisper.cpp's `for-tests-ggml-*.bin` headers and the Silero VAD model, with `manifest.json`. */
export const modelsDir = join(fixturesDir, 'models');

/** Path of a clip in {@link audioDir}. */
export function audioFixture(file: string): string {
  return join(audioDir, file);
}

/** Path of whisper.cpp's header-only model file for `name` (the source of a synthetic model). */
export function forTestsModel(name: 'tiny' | 'tiny.en' | 'base'): string {
  return join(modelsDir, `for-tests-ggml-${name}.bin`);
}

/** What every manifest entry has: the file (relative to its folder), its size and SHA-256. */
export interface FixtureEntry {
  file: string;
  bytes: number;
  sha256: string;
  license: string;
  source: Record<string, unknown>;
}

/** A clip's entry in `audio/manifest.json`. */
export interface AudioFixture extends FixtureEntry {
  language: string;
  /** Reference transcript. */
  text: string;
  /** Reference English translation, where there is one (`translation_en_source` says whose). */
  translation_en?: string;
  translation_en_source?: string;
  duration_s: number;
  sample_rate: number;
  channels: number;
  bits_per_sample: number;
}

/** The clips' manifest. */
export function audioManifest(): AudioFixture[] {
  return JSON.parse(readFileSync(join(audioDir, 'manifest.json'), 'utf8')) as AudioFixture[];
}

/** The model files' manifest. */
export function modelsManifest(): FixtureEntry[] {
  return JSON.parse(readFileSync(join(modelsDir, 'manifest.json'), 'utf8')) as FixtureEntry[];
}

/** The real Silero VAD v6.2.0 model in ggml (whisper.cpp's own VAD test model). */
export function sileroModel(): string {
  return join(modelsDir, 'for-tests-silero-v6.2.0-ggml.bin');
}
