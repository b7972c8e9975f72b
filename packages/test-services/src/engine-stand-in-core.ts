/**
 * What the LibreTranslate and DeepL stand-ins share: an HTTP server on a free loopback port that
 * records every request, answers through the platform's rules (which record contract violations),
 * and plays scripted faults on the next requests: an error status with the platform's error body,
 * a redirect, no answer at all (a hanging engine), or a connection reset.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';

export interface EngineRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The raw body (UTF-8). */
  body: string;
  at: number;
}

export interface EngineAnswer {
  status: number;
  json: unknown;
  headers?: Record<string, string>;
}

/**
 * `{ status }`: that status with the platform's error body (`message`: its text instead of the
 * stand-in's; `retryAfter`: a Retry-After header);
 * `{ redirect }`: a 302 to that location; `{ answer }`: a 200 with that JSON (an answer that breaks
 * the contract); `hang`: never answer; `reset`: drop the connection.
 */
export type EngineFault =
  | { status: number; retryAfter?: number; message?: string }
  | { redirect: string }
  | { answer: unknown }
  | 'hang'
  | 'reset';

export interface EngineStandIn {
  readonly port: number;
  /** The engine's base URL, as an operator would give it. */
  readonly url: string;
  /** `host:port` to put in the allowed hosts. */
  readonly hostPort: string;
  readonly requests: EngineRequest[];
  /** Contract violations seen; a test fails when this is not empty. */
  readonly violations: string[];
  /** Faults for the next requests (any route), in order. */
  script(...faults: EngineFault[]): void;
  /** The engine goes away (connections refused) and comes back on the same port. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export interface EngineRules {
  handle(request: EngineRequest, violations: string[]): EngineAnswer;
  /** The platform's error body for a scripted status. */
  errorBody(status: number, message?: string): unknown;
}

function readBody(req: import('node:http').IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startEngineStandIn(rules: EngineRules): Promise<EngineStandIn> {
  const requests: EngineRequest[] = [];
  const violations: string[] = [];
  const faults: EngineFault[] = [];
  const held = new Set<ServerResponse>();
  let stopping = false;

  const server: Server = createServer(async (req, res) => {
    // A request on a kept-alive connection may arrive while the server stops: drop it.
    if (stopping) {
      req.socket.destroy();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const body = await readBody(req);
    const request: EngineRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      at: Date.now(),
    };
    requests.push(request);
    const fault = faults.shift();
    if (stopping) {
      req.socket.destroy();
      return;
    }
    if (fault === 'hang') {
      held.add(res);
      return;
    }
    if (fault === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault !== undefined && 'redirect' in fault) {
      res.writeHead(302, { Location: fault.redirect }).end();
      return;
    }
    if (fault !== undefined && 'answer' in fault) {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(fault.answer));
      return;
    }
    const answer: EngineAnswer =
      fault !== undefined
        ? {
            status: fault.status,
            json: rules.errorBody(fault.status, fault.message),
            ...(fault.retryAfter !== undefined
              ? { headers: { 'Retry-After': String(fault.retryAfter) } }
              : {}),
          }
        : rules.handle(request, violations);
    res
      .writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers })
      .end(JSON.stringify(answer.json));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  async function stop(): Promise<void> {
    if (!server.listening) return;
    stopping = true;
    for (const res of held) res.socket?.destroy();
    held.clear();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    stopping = false;
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    requests,
    violations,
    script: (...next) => {
      faults.push(...next);
    },
    down: () => stop(),
    up: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    close: () => stop(),
  };
}

/**
 * The stand-ins' translation: deterministic, reversible and visibly a translation. Every word of
 * two or more lower-case letters is written backwards ("the council met." -> "eht licnuoc tem.");
 * words with capitals or digits (names, the vocabulary's placeholders, numbers) pass unchanged, as
 * a real engine passes names.
 */
export function standInTranslation(text: string): string {
  return text.replace(/[\p{L}\p{N}]+/gu, (word) =>
    /^\p{Ll}{2,}$/u.test(word) ? [...word].reverse().join('') : word,
  );
}

/** The JSON object of a body, or undefined when it is not one. */
export function jsonObject(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
