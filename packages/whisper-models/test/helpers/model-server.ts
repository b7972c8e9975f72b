// A local HTTP server that serves a model file the way Hugging Face does (redirects, Range,
// failures on demand), the bytes it serves, and what the download tests share.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelError } from '../../src/catalog.js';

/** 3 MiB + 17 bytes of deterministic noise (an LCG), so chunk and range edges are not round. */
export const DATA = (() => {
  const bytes = Buffer.alloc(3 * 1024 * 1024 + 17);
  let x = 0x2545f491;
  for (let i = 0; i < bytes.length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  return bytes;
})();
export const SHA1 = createHash('sha1').update(DATA).digest('hex');
export const FILE_PATH = '/resolve/main/ggml-test.bin';

export type Handler = (req: IncomingMessage, res: ServerResponse, index: number) => void | Promise<void>;

export interface TestServer {
  url: string;
  /** Request path and Range header of every request, in order. */
  seen: { path: string; range: string | undefined }[];
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const seen: TestServer['seen'] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', range: req.headers.range });
    Promise.resolve(handler(req, res, seen.length - 1)).catch((err) => res.destroy(err));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

export interface SendOptions {
  honorRange?: boolean;
  /** Stop after this many bytes of the body, then `after` decides what happens. */
  splitAt?: number;
  after?: 'destroy' | 'hang' | Promise<void>;
  data?: Buffer;
}

/** Serves the file like a static server / CDN: 200, or 206 for `Range: bytes=N-` when honoured. */
export async function sendFile(
  req: IncomingMessage,
  res: ServerResponse,
  options: SendOptions = {},
): Promise<void> {
  const data = options.data ?? DATA;
  const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
  let start = 0;
  if (range && options.honorRange !== false) {
    start = Number(range[1]);
    if (start >= data.length) {
      res.writeHead(416, { 'content-range': `bytes */${data.length}` }).end();
      return;
    }
    res.writeHead(206, {
      'content-length': data.length - start,
      'content-range': `bytes ${start}-${data.length - 1}/${data.length}`,
    });
  } else {
    res.writeHead(200, { 'content-length': data.length, 'content-type': 'application/octet-stream' });
  }
  const body = data.subarray(start);
  if (options.splitAt === undefined) {
    res.end(body);
    return;
  }
  const first = body.subarray(0, options.splitAt);
  await new Promise<void>((done) => res.write(first, () => done()));
  if (options.after === 'destroy') {
    res.socket?.destroy();
  } else if (options.after === 'hang' || options.after === undefined) {
    // never finishes: the client's stall timer has to notice
  } else {
    await options.after;
    res.end(body.subarray(options.splitAt));
  }
}

export async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const err = await promise.then(
    () => {
      throw new Error('expected the download to fail');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelError);
  return err as ModelError;
}

/** Per test: a fresh model folder, and the server the test started (closed after it). */
export function useScratch(): { dir: string; server: TestServer | undefined } {
  const scratch: { dir: string; server: TestServer | undefined } = { dir: '', server: undefined };
  beforeEach(async () => {
    scratch.dir = await mkdtemp(join(tmpdir(), 'model-download-'));
  });
  afterEach(async () => {
    await scratch.server?.close();
    scratch.server = undefined;
    await rm(scratch.dir, { recursive: true, force: true });
  });
  return scratch;
}
