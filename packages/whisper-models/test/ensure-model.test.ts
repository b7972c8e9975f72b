import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureModel, sha1File } from '../src/download.js';
import { failure, SHA1, sendFile, startServer, useScratch } from './helpers/model-server.js';

const scratch = useScratch();

describe('ensureModel', () => {
  it('uses a file path as is and refuses a missing one', async () => {
    const file = join(scratch.dir, 'custom.bin');
    const missing = await failure(ensureModel(file, { modelDir: scratch.dir }));
    expect(missing.code).toBe('MODEL_MISSING');
    expect(missing.message).toBe(`Model file ${file} does not exist`);
    writeFileSync(file, 'x');
    await expect(ensureModel(file, { modelDir: scratch.dir })).resolves.toMatchObject({
      name: 'custom',
      path: file,
    });
  });

  it('never downloads when offline, and says how to get the model', async () => {
    const err = await failure(ensureModel('base.en', { modelDir: scratch.dir, offline: true }));
    expect(err.code).toBe('MODEL_MISSING');
    expect(err.message).toBe(
      `Model base.en is not downloaded (${join(scratch.dir, 'ggml-base.en.bin')}) and downloads are off ` +
        '(CAPTION_OFFLINE=1): run `pnpm model base.en` first',
    );
    writeFileSync(join(scratch.dir, 'ggml-base.en.bin'), 'not checked offline');
    await expect(ensureModel('base.en', { modelDir: scratch.dir, offline: true })).resolves.toMatchObject({
      name: 'base.en',
      source: 'catalog',
    });
  });

  it('downloads a catalog model when online and returns where it is', async () => {
    scratch.server = await startServer((req, res) => sendFile(req, res));
    // the catalog SHA-1 of tiny cannot match our test bytes: the override stands in for it
    const model = await ensureModel('tiny', {
      modelDir: scratch.dir,
      baseUrl: scratch.server.url,
      expectedSha1: SHA1,
      retryDelayMs: 1,
    });
    expect(model).toMatchObject({
      name: 'tiny',
      path: join(scratch.dir, 'ggml-tiny.bin'),
      source: 'catalog',
    });
    expect(await sha1File(model.path)).toBe(SHA1);
    expect(scratch.server.seen).toEqual([{ path: '/resolve/main/ggml-tiny.bin', range: undefined }]);
  });
});
