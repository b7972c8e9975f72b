/**
 * Raw HTTP uploads for the gateway tests: requests whose body the test sends piece by piece, to
 * hold an upload open half-way, be slow, or pass a limit without finishing; and a busy native
 * stream held that way.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { type RunningGateway, until } from './gateway.js';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface OpenUpload {
  /** Resolves with the response, even while the request body is still being sent. */
  response: Promise<RawResponse>;
  write(chunk: Buffer): void;
  end(chunk?: Buffer): void;
  destroy(): void;
  /** True once the request body was fully sent. */
  ended(): boolean;
}

/**
 * A request whose body the test sends piece by piece (chunked unless Content-Length is given),
 * to hold an upload open, to be slow, or to exceed a limit without ever finishing.
 */
export function openUpload(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  first?: Buffer,
): OpenUpload {
  let finished = false;
  const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false });
  const response = new Promise<RawResponse>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  // A destroyed upload rejects; tests that destroy on purpose do not await it.
  response.catch(() => undefined);
  if (first) req.write(first);
  else req.flushHeaders();
  return {
    response,
    write: (chunk) => req.write(chunk),
    end: (chunk) => {
      finished = true;
      req.end(chunk);
    },
    destroy: () => req.destroy(),
    ended: () => finished,
  };
}

/**
 * Sends a whole request with `Connection: close` while not reading the answer, then reads what
 * came back: an answer the server sends early sits unread, and is lost if the server resets the
 * connection because the body was still arriving. Resolves with everything read, or rejects with
 * the socket's error (ECONNRESET).
 */
export function uploadThenRead(port: number, head: string, body: Buffer): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.pause();
    socket.write(head);
    socket.end(body, () => socket.resume());
  });
}

/**
 * Makes `streamId` busy: a native upload that sent 8 bytes of its body and never finishes unless
 * the test ends or destroys it. Resolves once the gateway holds a busy session.
 */
export async function holdStream(
  gateway: RunningGateway,
  streamId: string,
  headers: Record<string, string> = {},
): Promise<OpenUpload> {
  const holder = openUpload(
    gateway.port,
    'POST',
    '/transcribe',
    {
      'X-Caption-Local': '1',
      'Content-Type': 'application/octet-stream',
      ...headers,
      'X-Stream-ID': streamId,
    },
    Buffer.alloc(8),
  );
  await until(() => gateway.admission.streams.busyCount >= 1, 'busy session');
  return holder;
}
