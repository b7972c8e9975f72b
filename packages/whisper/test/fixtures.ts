import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { audioDir } from '@live-captions/test-services/fixtures';
import { modelFile, modelSettings } from '@live-captions/whisper-models';

export { audioDir };

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** Synthetic test models written by `pnpm model:synthetic` (the root test script runs it first). */
export function syntheticModel(name: 'tiny' | 'tiny.en' | 'base'): string {
  return modelFile(`synthetic-${name}`, modelSettings().modelDir);
}

/** Reads a 16-bit PCM mono WAV from fixtures/audio as float samples (fixtures are all 16 kHz mono). */
export function readClip(file: string): Float32Array {
  const bytes = readFileSync(join(audioDir, file));
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString('ascii', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    if (id === 'data') {
      const pcm = new Int16Array(
        bytes.buffer.slice(bytes.byteOffset + offset + 8, bytes.byteOffset + offset + 8 + size),
      );
      return Float32Array.from(pcm, (sample) => sample / 32768);
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error(`${file}: no data chunk`);
}
