/**
 * The capture host the browser sees in the browser suite: forwards everything to the gateway,
 * records every `POST /transcribe` (ids, query, bytes, answer) and can answer 503 on demand;
 * WebSocket upgrades (the realtime transport) are passed through byte for byte and recorded.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { extname, join, normalize } from 'node:path';

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
  private failureStatus = 503;
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

  /**
   * The next `count` windows' answers are held back `ms` (a gateway slow under load): the page's
   * audio piles up meanwhile and its lag watchdog skips to the live edge.
   */
  slowNext(count: number, ms: number): void {
    this.slow = { count, ms };
  }

  private slow = { count: 0, ms: 0 };

  /** The next `count` windows get a 503, or `status` (not forwarded). */
  failNext(count: number, status = 503): void {
    this.failures = count;
    this.failureStatus = status;
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
      record.status = this.failureStatus;
      record.injected = true;
      const detail = this.failureStatus === 503 ? 'Service restarting' : 'Refused by the test';
      res
        .writeHead(this.failureStatus, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ detail }));
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
      if (record && this.slow.count > 0) {
        this.slow.count -= 1;
        // Unref'd: an answer still held when the test ends keeps nothing running.
        await new Promise((resolve) => setTimeout(resolve, this.slow.ms).unref());
      }
      if (record) {
        record.status = answer.statusCode ?? 0;
        if (record.status === 200) record.answer = JSON.parse(text.toString());
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers).end(text);
    });
    upstream.on('error', () => {
      // The gateway is down: the browser sees 502, as behind any reverse proxy.
      if (record) record.status = 502;
      res.writeHead(502).end();
    });
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
