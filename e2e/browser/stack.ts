/**
 * The stack a browser suite runs against, started from the sources in a temp folder: the speech
 * gateway (synthetic model), the relay (generated config) and the UI service, plus a small proxy
 * that is the capture host the browser sees. The proxy forwards everything to the gateway,
 * records every `POST /transcribe` (ids, query, bytes, answer) and can answer 503 on demand.
 * WebSocket upgrades (the realtime transport) are passed through byte for byte and recorded.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newToken, type RelaySecrets, relayConfigText, relayTokensText } from '@live-captions/secret-files';
import { audioFixture, sileroModel } from '@live-captions/test-services/fixtures';
import { freePort, type ServiceProcess, startService, until } from '../deploy/helpers/processes.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MODEL = join(ROOT, 'models/ggml-synthetic-tiny.bin');
/** A clip with quiet at both ends: looped by chromium's fake microphone it pauses once per loop. */
export const CLIP = audioFixture('en-picovoice-test.wav');

/** One `POST /transcribe` as the proxy saw it. */
export interface RecordedWindow {
  requestId: string;
  streamId: string;
  query: Record<string, string>;
  sha256: string;
  samples: Float32Array;
  status: number;
  injected: boolean;
  answer?: { committed_seconds: number; text: string };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

/** The capture host: forwards to the gateway, records windows, injects failures. */
export class CaptureProxy {
  readonly windows: RecordedWindow[] = [];
  readonly deletes: string[] = [];
  /** WebSocket upgrades passed to the gateway: path and offered subprotocols. */
  readonly upgrades: { path: string; protocols: string[]; refused: boolean }[] = [];
  private failures = 0;
  private readonly tunnels = new Set<Socket>();
  private server?: Server;
  /** Set when the gateway does not serve the capture page yet: the proxy serves it with the gateway's headers. */
  private staticFallback?: { dir: string; headers: Record<string, string> };

  constructor(
    readonly port: number,
    private readonly gatewayPort: number,
  ) {}

  /** Upgrades answered 503 instead of forwarded while set. */
  refuseUpgrades = false;

  /** Cuts every WebSocket passed through so far (a network failure as the browser sees it). */
  dropTunnels(): void {
    for (const socket of this.tunnels) socket.destroy();
  }

  /** The next `count` windows get a 503 (not forwarded). */
  failNext(count: number): void {
    this.failures = count;
  }

  async start(captureDir: string): Promise<void> {
    const probe = await fetch(`http://127.0.0.1:${this.gatewayPort}/capture-worklet.js`);
    if (probe.status !== 200) {
      const headers: Record<string, string> = {};
      for (const name of [
        'content-security-policy',
        'x-content-type-options',
        'referrer-policy',
        'cache-control',
      ]) {
        const value = probe.headers.get(name);
        if (value) headers[name] = value;
      }
      this.staticFallback = { dir: captureDir, headers };
    }
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) =>
      this.tunnel(req, socket, head),
    );
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  /** Whether the capture page came from the gateway itself (the wiring the lead adds). */
  get servedByGateway(): boolean {
    return this.staticFallback === undefined;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    for (const socket of this.tunnels) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://capture.test');
    if (this.staticFallback && req.method === 'GET' && this.serveStatic(url.pathname, res)) return;
    if (req.method === 'DELETE' && url.pathname.startsWith('/streams/'))
      this.deletes.push(url.pathname.slice(9));
    const isWindow = req.method === 'POST' && url.pathname === '/transcribe';
    const record: RecordedWindow | undefined = isWindow
      ? {
          requestId: String(req.headers['x-request-id'] ?? ''),
          streamId: String(req.headers['x-stream-id'] ?? ''),
          query: Object.fromEntries(url.searchParams),
          sha256: createHash('sha256').update(body).digest('hex'),
          samples: new Float32Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.length)),
          status: 0,
          injected: false,
        }
      : undefined;
    if (record) this.windows.push(record);
    if (record && this.failures > 0) {
      this.failures -= 1;
      record.status = 503;
      record.injected = true;
      res.writeHead(503, { 'Content-Type': 'application/json' }).end('{"detail":"Service restarting"}');
      return;
    }
    const upstream = request({
      host: '127.0.0.1',
      port: this.gatewayPort,
      method: req.method,
      path: req.url,
      headers: req.headers,
    });
    upstream.on('response', async (answer) => {
      const parts: Buffer[] = [];
      for await (const part of answer) parts.push(part as Buffer);
      const text = Buffer.concat(parts);
      if (record) {
        record.status = answer.statusCode ?? 0;
        if (record.status === 200) record.answer = JSON.parse(text.toString());
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers).end(text);
    });
    upstream.on('error', () => res.writeHead(502).end());
    upstream.end(body);
  }

  /** Passes an upgrade request and then the connection's bytes both ways, unchanged. */
  private tunnel(req: IncomingMessage, socket: Socket, head: Buffer): void {
    this.upgrades.push({
      path: req.url ?? '',
      protocols: String(req.headers['sec-websocket-protocol'] ?? '')
        .split(/,\s*/)
        .filter(Boolean),
      refused: this.refuseUpgrades,
    });
    if (this.refuseUpgrades) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    const upstream = connect(this.gatewayPort, '127.0.0.1', () => {
      const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    this.tunnels.add(socket).add(upstream);
    const end = () => {
      this.tunnels.delete(socket);
      this.tunnels.delete(upstream);
      upstream.destroy();
      socket.destroy();
    };
    upstream.on('error', end);
    socket.on('error', end);
    upstream.on('close', end);
    socket.on('close', end);
  }

  private serveStatic(pathname: string, res: ServerResponse): boolean {
    const { dir, headers } = this.staticFallback!;
    const name = pathname === '/' ? 'index.html' : normalize(pathname).replace(/^\/+/, '');
    const file = join(dir, name);
    if (!file.startsWith(dir) || !existsSync(file) || !TYPES[extname(file)]) return false;
    res.writeHead(200, { ...headers, 'Content-Type': TYPES[extname(file)]! }).end(readFileSync(file));
    return true;
  }
}

export interface Stack {
  dir: string;
  apiKey: string;
  rooms: { source: string; output: string };
  tokens: { sourceRead: string; sourceWrite: string; outputRead: string; outputWrite: string };
  captureUrl: string;
  uiUrl: string;
  relayUrl: string;
  proxy: CaptureProxy;
  restartRelay(): Promise<void>;
  stop(): Promise<void>;
  logs(): string;
}

/** Starts gateway, relay, ui and the capture proxy on free ports. */
export async function startStack(captureDir: string): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-stack-'));
  const [gatewayPort, capturePort, relayPort, uiPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const captureOrigin = `http://127.0.0.1:${capturePort}`;
  const uiOrigin = `http://127.0.0.1:${uiPort}`;
  const relayUrl = `ws://127.0.0.1:${relayPort}/ws`;
  const rooms = { source: 'e2e-source', output: 'e2e-output' };
  const tokens = {
    sourceRead: newToken(),
    sourceWrite: newToken(),
    outputRead: newToken(),
    outputWrite: newToken(),
  };
  const apiKey = newToken();
  // The files `pnpm secrets:init` writes, from the same writers, for this stack's origins.
  const secrets: RelaySecrets = {
    origins: [captureOrigin, uiOrigin],
    sourceRoom: rooms.source,
    outputRoom: rooms.output,
    tokens,
    relayAddress: relayUrl,
    relaySite: `${uiOrigin}/`,
  };
  writeFileSync(join(dir, 'relay.private.json'), relayConfigText(secrets));
  writeFileSync(join(dir, 'relay-tokens.env'), relayTokensText(secrets));

  const gateway = startService('speech', {
    LOG_LEVEL: 'warn',
    CAPTION_BIND: '127.0.0.1',
    CAPTION_PORT: String(gatewayPort),
    CAPTION_MODEL: MODEL,
    CAPTION_OFFLINE: '1',
    CAPTION_THREADS: '1',
    CAPTION_API_KEY: apiKey,
    CAPTION_ALLOWED_ORIGINS: uiOrigin,
    CAPTION_LOCAL_ENV_FILE: join(dir, 'caption-local.env'),
    CAPTION_RELAY_TOKENS_FILE: join(dir, 'relay-tokens.env'),
    // The realtime transport's server VAD: the Silero test model (offline, never downloaded).
    CAPTION_REALTIME_VAD_MODEL: sileroModel(),
  });
  const relayEnv = {
    LOG_LEVEL: 'warn',
    RELAY_BIND: '127.0.0.1',
    RELAY_PORT: String(relayPort),
    CAPTION_RELAY_CONFIG: join(dir, 'relay.private.json'),
  };
  let relay = startService('relay', relayEnv);
  const ui = startService('ui', {
    LOG_LEVEL: 'warn',
    UI_BIND: '127.0.0.1',
    UI_PORT: String(uiPort),
    RELAY_URL: relayUrl,
    CAPTURE_URL: `${captureOrigin}/`,
  });
  const services = (): ServiceProcess[] => [gateway, relay, ui];
  const proxy = new CaptureProxy(capturePort, gatewayPort);
  const logs = () =>
    services()
      .map((service) => `--- ${service.name}\n${service.output()}`)
      .join('\n');
  const relayReady = () =>
    until('the relay', async () => (await fetch(`http://127.0.0.1:${relayPort}/health`)).ok, 30_000);

  try {
    const auth = { headers: { Authorization: `Bearer ${apiKey}` } };
    await until(
      'the gateway',
      async () => (await fetch(`http://127.0.0.1:${gatewayPort}/health`, auth)).ok,
      60_000,
    );
    await relayReady();
    await until('the ui', async () => (await fetch(`${uiOrigin}/health`)).ok, 30_000);
    await proxy.start(captureDir);
  } catch (error) {
    await Promise.all(services().map((service) => service.stop()));
    throw new Error(`${(error as Error).message}\n${logs()}`);
  }

  return {
    dir,
    apiKey,
    rooms,
    tokens,
    captureUrl: `${captureOrigin}/`,
    uiUrl: `${uiOrigin}/`,
    relayUrl,
    proxy,
    logs,
    async restartRelay() {
      await relay.stop();
      relay = startService('relay', relayEnv);
      await relayReady();
    },
    async stop() {
      await proxy.stop();
      await Promise.all(services().map((service) => service.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A canonical PCM WAV of the clip (fmt + data only) for chromium's fake microphone, with
 * `silenceSeconds` of silence appended so that every loop ends with a pause the page detects.
 */
export function fakeMicrophoneWav(source: string, dir: string, silenceSeconds = 0.6): string {
  const wav = readFileSync(source);
  let offset = 12;
  let fmt: Buffer | undefined;
  let data: Buffer | undefined;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    const chunk = wav.subarray(offset + 8, offset + 8 + size);
    if (id === 'fmt ') fmt = chunk;
    if (id === 'data') data = chunk;
    offset += 8 + size + (size % 2);
  }
  if (!fmt || !data) throw new Error(`${source}: not a PCM WAV`);
  const bytesPerSecond = fmt.readUInt32LE(8);
  const blockAlign = fmt.readUInt16LE(12);
  const silence = Buffer.alloc(Math.round((silenceSeconds * bytesPerSecond) / blockAlign) * blockAlign);
  data = Buffer.concat([data, silence]);
  const header = Buffer.alloc(12);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(4 + 8 + fmt.length + 8 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  const chunkHeader = (id: string, size: number) => {
    const b = Buffer.alloc(8);
    b.write(id, 0, 'ascii');
    b.writeUInt32LE(size, 4);
    return b;
  };
  const path = join(dir, 'microphone.wav');
  writeFileSync(
    path,
    Buffer.concat([header, chunkHeader('fmt ', fmt.length), fmt, chunkHeader('data', data.length), data]),
  );
  return path;
}
