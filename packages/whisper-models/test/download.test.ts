import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { modelSettings } from '../src/config.js';
import { type DownloadEvent, type DownloadOptions, downloadModel } from '../src/download.js';
import { DATA, FILE_PATH, failure, SHA1, sendFile, startServer, useScratch } from './helpers/model-server.js';

const scratch = useScratch();

const finalPath = () => join(scratch.dir, 'ggml-test.bin');
const partialPath = () => `${finalPath()}.partial`;

function options(extra: Partial<DownloadOptions> = {}): DownloadOptions & { events: DownloadEvent[] } {
  const events: DownloadEvent[] = [];
  return {
    modelDir: scratch.dir,
    baseUrl: scratch.server?.url ?? 'http://127.0.0.1:9',
    expectedSha1: SHA1,
    retryDelayMs: 1,
    onProgress: (event) => events.push(event),
    events,
    ...extra,
  };
}

function expectFinalFile(): void {
  expect(readFileSync(finalPath()).equals(DATA)).toBe(true);
  expect(readdirSync(scratch.dir)).toEqual(['ggml-test.bin']); // no partial, no lock left behind
}

describe('downloadModel', () => {
  it('downloads through a redirect, verifies and returns the final path', async () => {
    scratch.server = await startServer((req, res) => {
      if (req.url === FILE_PATH) {
        res.writeHead(302, { location: '/cdn/blob?sig=1' }).end();
      } else {
        return sendFile(req, res);
      }
    });
    const opts = options();
    await expect(downloadModel('test', opts)).resolves.toBe(finalPath());
    expectFinalFile();
    expect(scratch.server.seen).toEqual([
      { path: FILE_PATH, range: undefined },
      { path: '/cdn/blob?sig=1', range: undefined },
    ]);
    expect(opts.events.find((e) => e.type === 'start')).toMatchObject({ offset: 0, total: DATA.length });
    expect(opts.events.at(-2)).toMatchObject({ type: 'progress', received: DATA.length, total: DATA.length });
    expect(opts.events.at(-1)).toEqual({
      type: 'done',
      name: 'test',
      path: finalPath(),
      bytes: DATA.length,
      sha1: SHA1,
    });
  });

  it('resumes a partial download with a Range request and verifies the whole file', async () => {
    const kept = 1024 * 1024 + 123;
    writeFileSync(partialPath(), DATA.subarray(0, kept));
    scratch.server = await startServer((req, res) => sendFile(req, res));
    const opts = options();
    await downloadModel('test', opts);
    expectFinalFile();
    expect(scratch.server.seen).toEqual([{ path: FILE_PATH, range: `bytes=${kept}-` }]);
    expect(opts.events.find((e) => e.type === 'start')).toMatchObject({ offset: kept, total: DATA.length });
  });

  it('hashes the resumed prefix too: a corrupt partial fails verification', async () => {
    const prefix = Buffer.from(DATA.subarray(0, 500_000));
    prefix[1000] = (prefix[1000] ?? 0) ^ 0xff;
    writeFileSync(partialPath(), prefix);
    scratch.server = await startServer((req, res) => sendFile(req, res));
    const err = await failure(downloadModel('test', options()));
    expect(err.code).toBe('MODEL_CHECKSUM');
    expect(scratch.server.seen[0]?.range).toBe('bytes=500000-');
    expect(readdirSync(scratch.dir)).toEqual([]);
  });

  it('starts over when the server ignores Range and answers 200', async () => {
    writeFileSync(partialPath(), Buffer.alloc(700_000, 7)); // even garbage is replaced, not appended to
    scratch.server = await startServer((req, res) => sendFile(req, res, { honorRange: false }));
    const opts = options();
    await downloadModel('test', opts);
    expectFinalFile();
    expect(scratch.server.seen).toEqual([{ path: FILE_PATH, range: 'bytes=700000-' }]);
    expect(opts.events.find((e) => e.type === 'start')).toMatchObject({ offset: 0 });
  });

  it('finishes a partial that is already complete when the server answers 416', async () => {
    writeFileSync(partialPath(), DATA);
    scratch.server = await startServer((req, res) => sendFile(req, res));
    await downloadModel('test', options());
    expectFinalFile();
    expect(scratch.server.seen).toEqual([{ path: FILE_PATH, range: `bytes=${DATA.length}-` }]);
  });

  it('deletes the partial and names both digests on a SHA-1 mismatch', async () => {
    scratch.server = await startServer((req, res) => sendFile(req, res));
    const wrong = '0123456789abcdef0123456789abcdef01234567';
    const err = await failure(downloadModel('test', options({ expectedSha1: wrong })));
    expect(err.code).toBe('MODEL_CHECKSUM');
    expect(err.message).toBe(
      `ggml-test.bin from ${scratch.server.url}${FILE_PATH} failed verification: expected SHA-1 ${wrong}, got ${SHA1} ` +
        `(${DATA.length} bytes). The partial download was deleted; run again to download it from scratch.`,
    );
    expect(readdirSync(scratch.dir)).toEqual([]);
  });

  it('retries a 503 and a 429 with backoff, then succeeds', async () => {
    scratch.server = await startServer((req, res, index) => {
      if (index === 0) return void res.writeHead(503).end('busy');
      if (index === 1) return void res.writeHead(429, { 'retry-after': '0' }).end();
      return sendFile(req, res);
    });
    const opts = options();
    await downloadModel('test', opts);
    expectFinalFile();
    expect(scratch.server.seen).toHaveLength(3);
    expect(opts.events.filter((e) => e.type === 'retry')).toEqual([
      { type: 'retry', name: 'test', attempt: 1, delayMs: 1, reason: 'HTTP 503 Service Unavailable' },
      { type: 'retry', name: 'test', attempt: 2, delayMs: 0, reason: 'HTTP 429 Too Many Requests' },
    ]);
  });

  it('resumes with Range after the connection drops mid-body', async () => {
    scratch.server = await startServer((req, res, index) =>
      sendFile(req, res, index === 0 ? { splitAt: 1_500_000, after: 'destroy' } : {}),
    );
    const opts = options();
    await downloadModel('test', opts);
    expectFinalFile();
    expect(scratch.server.seen).toHaveLength(2);
    expect(scratch.server.seen[0]?.range).toBeUndefined();
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(scratch.server.seen[1]?.range ?? '')?.[1]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThanOrEqual(1_500_000);
    expect(opts.events.find((e) => e.type === 'retry')).toMatchObject({ attempt: 1 });
  });

  it('drops a stalled connection and resumes', async () => {
    scratch.server = await startServer((req, res, index) =>
      sendFile(req, res, index === 0 ? { splitAt: 1_000_000, after: 'hang' } : {}),
    );
    const opts = options({ stallTimeoutMs: 1000 });
    await downloadModel('test', opts);
    expectFinalFile();
    expect(scratch.server.seen[1]?.range).toMatch(/^bytes=\d+-$/);
    expect(opts.events.find((e) => e.type === 'retry')).toMatchObject({ reason: 'no data for 1 s' });
  });

  it('fails fast with a clear message on a 404', async () => {
    scratch.server = await startServer((_req, res) => void res.writeHead(404).end('Entry not found'));
    const err = await failure(downloadModel('test', options()));
    expect(err.code).toBe('MODEL_HTTP');
    expect(err.status).toBe(404);
    expect(err.message).toBe(
      `Downloading test from ${scratch.server.url}${FILE_PATH} failed: HTTP 404 Not Found: ` +
        'no such model file there (check the name and CAPTION_MODEL_BASE_URL)',
    );
    expect(scratch.server.seen).toHaveLength(1);
    expect(readdirSync(scratch.dir)).toEqual([]);
  });

  it('gives up after the retry budget on a server that keeps failing', async () => {
    scratch.server = await startServer((_req, res) => void res.writeHead(502).end());
    const err = await failure(downloadModel('test', options({ retries: 2 })));
    expect(err.code).toBe('MODEL_HTTP');
    expect(err.status).toBe(502);
    expect(err.message).toBe(
      `Downloading test from ${scratch.server.url}${FILE_PATH} failed after 3 attempts: HTTP 502 Bad Gateway`,
    );
    expect(scratch.server.seen).toHaveLength(3);
  });

  it('reports an unreachable server as a network error after its retries', async () => {
    const closed = await startServer(() => {});
    const url = closed.url;
    await closed.close();
    const err = await failure(downloadModel('test', options({ baseUrl: url, retries: 1 })));
    expect(err.code).toBe('MODEL_NETWORK');
    expect(err.message).toBe(
      `Downloading test from ${url}${FILE_PATH} failed after 2 attempts: network error (ECONNREFUSED)`,
    );
  });

  it('does nothing when the verified file is already in place', async () => {
    writeFileSync(finalPath(), DATA);
    scratch.server = await startServer((req, res) => sendFile(req, res));
    const opts = options();
    await expect(downloadModel('test', opts)).resolves.toBe(finalPath());
    expect(scratch.server.seen).toEqual([]);
    expect(opts.events.map((e) => e.type)).toEqual(['check', 'present']);
    expectFinalFile();
  });

  it('replaces a corrupt file in place with a verified download', async () => {
    writeFileSync(finalPath(), DATA.subarray(0, 1000));
    scratch.server = await startServer((req, res) => sendFile(req, res));
    await downloadModel('test', options());
    expectFinalFile();
    expect(scratch.server.seen).toHaveLength(1);
  });

  it('writes to .partial and only renames into place once verified', async () => {
    let release!: () => void;
    const released = new Promise<void>((done) => {
      release = done;
    });
    let halfway!: () => void;
    const reachedHalfway = new Promise<void>((done) => {
      halfway = done;
    });
    scratch.server = await startServer((req, res) =>
      sendFile(req, res, { splitAt: 1_048_576, after: released }),
    );
    const download = downloadModel(
      'test',
      options({
        onProgress: (event) => {
          if (event.type === 'progress' && event.received >= 1_048_576) halfway();
        },
      }),
    );
    await reachedHalfway;
    expect(existsSync(finalPath())).toBe(false);
    expect(existsSync(partialPath())).toBe(true);
    expect(existsSync(`${finalPath()}.lock`)).toBe(true);
    release();
    await download;
    expectFinalFile();
  });

  it('keeps the partial when cancelled, and the next run resumes it', async () => {
    const controller = new AbortController();
    scratch.server = await startServer((req, res, index) =>
      sendFile(req, res, index === 0 ? { splitAt: 2_000_000, after: 'hang' } : {}),
    );
    const err = await failure(
      downloadModel(
        'test',
        options({
          signal: controller.signal,
          onProgress: (event) => {
            if (event.type === 'progress' && event.received >= 2_000_000) controller.abort();
          },
        }),
      ),
    );
    expect(err.code).toBe('MODEL_ABORTED');
    expect(err.message).toBe('Download of test was cancelled; run again to resume');
    expect(readdirSync(scratch.dir)).toEqual(['ggml-test.bin.partial']);
    await downloadModel('test', options());
    expectFinalFile();
    expect(scratch.server.seen[1]?.range).toBe('bytes=2000000-');
  });

  it('lets concurrent downloads of the same model share one transfer', async () => {
    scratch.server = await startServer((req, res) => sendFile(req, res));
    const [a, b] = await Promise.all([downloadModel('test', options()), downloadModel('test', options())]);
    expect(a).toBe(finalPath());
    expect(b).toBe(finalPath());
    expect(scratch.server.seen).toHaveLength(1);
    expectFinalFile();
  });

  it('takes the base URL from CAPTION_MODEL_BASE_URL', async () => {
    scratch.server = await startServer((req, res) => sendFile(req, res));
    const { baseUrl: _unused, ...rest } = options();
    const { baseUrl } = modelSettings({ CAPTION_MODEL_BASE_URL: `${scratch.server.url}/` });
    await downloadModel('test', { ...rest, baseUrl });
    expectFinalFile();
    expect(scratch.server.seen).toHaveLength(1);
  });

  it('refuses names outside the catalog unless a SHA-1 is given', async () => {
    const err = await failure(downloadModel('test', { modelDir: scratch.dir }));
    expect(err.code).toBe('MODEL_UNKNOWN');
    expect(err.message).toMatch(/^Unknown model "test": use one of tiny, tiny\.en, base,/);
    const traversal = await failure(downloadModel('../evil', { modelDir: scratch.dir, expectedSha1: SHA1 }));
    expect(traversal.code).toBe('MODEL_UNKNOWN');
  });
});
