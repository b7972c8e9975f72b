/**
 * What the YouTube and Zoom stand-ins share: an HTTP server on a free loopback port that checks
 * the `seq` rule of both platforms (+1 for each new piece of caption data, unchanged with the
 * same body on a retry), records what it accepted and every contract violation, and plays
 * scripted faults on the next new POSTs (an error status, no answer, or an answer lost after the
 * data was accepted).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** One POST the stand-in accepted as new caption data. */
export interface AcceptedPost {
  seq: number;
  body: string;
  contentType: string;
  /** Its own clock when accepted (ms). */
  at: number;
}

/**
 * `status`: answer that status without accepting; `timeout`: never answer (the client must give
 * up and retry); `lose-answer`: accept the data, then drop the connection without an answer (as a
 * crash between the platform's 200 and the client's bookkeeping looks).
 */
export type Fault = { status: number } | 'timeout' | 'lose-answer';

export interface StandIn {
  readonly port: number;
  /** The secret URL to give the service (as the platform would show it). */
  readonly url: string;
  readonly accepted: AcceptedPost[];
  /** Contract violations seen; a test fails when this is not empty. */
  readonly violations: string[];
  /** POSTs that repeated the last seq with its body (retries), and requests answered in all. */
  readonly counts: { retries: number; requests: number };
  /** Faults for the next POSTs that carry new data, in order. */
  script(...faults: Fault[]): void;
  /** The platform goes away (connections refused) and comes back on the same port, state kept. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export interface Check {
  status: number;
  message: string;
}

export interface StandInRules {
  /** The query parameters of the secret URL, which every request must carry unchanged. */
  params: Record<string, string>;
  /** Checks method, path, parameters, content type; a refusal the platform documents. */
  refuse(req: IncomingMessage, url: URL): Check | undefined;
  /** Answers a request that is not a POST of caption data (Zoom's GET .../seq). */
  other?(req: IncomingMessage, url: URL, res: ServerResponse, last: () => number): boolean;
  /** Problems with the body's format (recorded as violations). */
  bodyProblems(body: string): string[];
  /** The answer's body for an accepted POST. */
  answer(): string;
  initialSeq: number;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startStandIn(path: string, rules: StandInRules): Promise<StandIn> {
  const accepted: AcceptedPost[] = [];
  const violations: string[] = [];
  const counts = { retries: 0, requests: 0 };
  const faults: Fault[] = [];
  const held = new Set<ServerResponse>();
  let last = rules.initialSeq;
  const lastBody = new Map<number, string>();

  const server: Server = createServer(async (req, res) => {
    counts.requests += 1;
    const url = new URL(req.url ?? '/', 'http://stand-in');
    if (rules.other?.(req, url, res, () => last)) return;
    const refused = rules.refuse(req, url);
    if (refused) {
      res.writeHead(refused.status, { 'Content-Type': 'text/plain' }).end(refused.message);
      return;
    }
    const body = await readBody(req);
    const seq = Number(url.searchParams.get('seq'));
    if (seq === last && lastBody.has(seq)) {
      if (lastBody.get(seq) !== body) violations.push(`seq ${seq} repeated with a different body`);
      counts.retries += 1;
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end(rules.answer());
      return;
    }
    if (seq !== last + 1) {
      violations.push(`seq ${seq} after ${last} (expected ${last + 1})`);
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end('bad seq');
      return;
    }
    const fault = faults.shift();
    if (fault === 'timeout') {
      held.add(res);
      return;
    }
    if (fault !== undefined && fault !== 'lose-answer') {
      res.writeHead(fault.status, { 'Content-Type': 'text/plain' }).end('scripted failure');
      return;
    }
    for (const problem of rules.bodyProblems(body)) violations.push(`seq ${seq}: ${problem}`);
    last = seq;
    lastBody.clear();
    lastBody.set(seq, body);
    accepted.push({ seq, body, contentType: String(req.headers['content-type']), at: Date.now() });
    if (fault === 'lose-answer') {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end(rules.answer());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const query = new URLSearchParams(rules.params).toString();
  async function stop(): Promise<void> {
    if (!server.listening) return;
    for (const res of held) res.socket?.destroy();
    held.clear();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
  return {
    port,
    url: `http://127.0.0.1:${port}${path}?${query}`,
    accepted,
    violations,
    counts,
    script: (...next) => {
      faults.push(...next);
    },
    close: () => stop(),
    down: () => stop(),
    up: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
  };
}

/** Whether `url` carries every parameter of `params` with its value. */
export function hasParams(url: URL, params: Record<string, string>): boolean {
  return Object.entries(params).every(([key, value]) => url.searchParams.get(key) === value);
}
