/**
 * Reading request bodies as streams, with the size and time limits enforced while reading:
 * a body is never taken in whole before its size is known to be acceptable.
 */
import type { Request, Response } from 'express';
import { HttpError, Messages } from '../domain/errors.js';

/** The client went away before its body was complete; there is nobody left to answer. */
export class ClientGone extends Error {
  constructor() {
    super('Client closed the request');
    this.name = 'ClientGone';
  }
}

export interface BodyLimits {
  maxBytes: number;
  /** Whole-body deadline, from the moment reading starts. */
  timeoutMs: number;
  /** The 413 to answer when the body is larger than `maxBytes`. */
  tooLarge: () => HttpError;
}

/**
 * After a 408 the rest of the upload is not worth waiting for: answer with `Connection: close`
 * so Node closes the socket once the response is out.
 */
function closeAfterResponse(res: Response): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
}

/**
 * Keeps a connection the client asked to close open past the answer, and closes it once both the
 * answer is out and the rest of the body has been read (or the deadline destroyed the request).
 */
function closeOnceDrained(req: Request, res: Response): void {
  res.shouldKeepAlive = true;
  const socket = req.socket;
  let pending = 2;
  const done = () => {
    pending -= 1;
    if (pending === 0) socket.end();
  };
  req.once('end', done);
  res.once('finish', done);
}

/**
 * Watches an upload: fails with 413 as soon as more than `maxBytes` arrived (or were announced
 * by Content-Length), with 408 when it is not complete in time, with {@link ClientGone} when the
 * client aborts. After a 413 the remaining bytes are discarded (never stored) until the deadline,
 * so the client can read its answer; after that the socket is closed.
 *
 * A connection that would close after the answer (`Connection: close`) is kept open until the
 * body is drained: Node closes such a socket as soon as the answer is out, and a socket closed
 * while the body still arrives is reset, which can destroy the client's unread 413.
 */
export function watchUpload(
  req: Request,
  res: Response,
  limits: BodyLimits,
  onChunk: (chunk: Buffer) => void,
  attach: () => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let received = 0;
    let settled = false;
    const declared = Number(req.headers['content-length']);

    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
      if (!error) {
        clearTimeout(timer);
        resolve();
        return;
      }
      if (!(error instanceof HttpError && error.status === 413) || req.complete) {
        clearTimeout(timer);
        reject(error);
        return;
      }
      // Keep discarding what the client still sends, but not beyond the upload deadline.
      req.resume();
      req.once('end', () => clearTimeout(timer));
      if (!res.shouldKeepAlive && !res.headersSent) closeOnceDrained(req, res);
      reject(error);
    };

    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limits.maxBytes) return finish(limits.tooLarge());
      onChunk(chunk);
    };
    const onEnd = () => finish();
    const onClose = () => finish(new ClientGone());
    const timer = setTimeout(() => {
      if (!settled) {
        closeAfterResponse(res);
        finish(new HttpError(408, Messages.uploadTimeout));
      } else if (!req.complete) {
        // A 413 was answered and the client is still sending: stop listening.
        req.destroy();
      }
    }, limits.timeoutMs);

    if (req.destroyed) {
      // The client left while the request was being validated.
      finish(new ClientGone());
      return;
    }
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      finish(limits.tooLarge());
      return;
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onClose);
    attach();
  });
}

/** Reads a raw body of at most `maxBytes` into one buffer. */
export async function readBody(req: Request, res: Response, limits: BodyLimits): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await watchUpload(
    req,
    res,
    limits,
    (chunk) => chunks.push(chunk),
    () => undefined,
  );
  return Buffer.concat(chunks);
}
