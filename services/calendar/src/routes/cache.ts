import type { OutgoingHttpHeaders } from 'node:http';
import type { Request, RequestHandler } from 'express';

interface Entry {
  expires: number;
  /** Status line headers as one flat list, ready for `writeHead`, Content-Length included. */
  head: string[];
  /** The serialized JSON as bytes, so that hits cost neither stringify nor UTF-8 encoding. */
  body: Buffer;
  /** One request is recomputing an expired entry; the others keep getting this one meanwhile. */
  refreshing: boolean;
}

/** The headers a route sets besides the ones `send` derives from the body. */
function routeHeaders(headers: OutgoingHttpHeaders): string[] {
  const flat: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'content-length' || name === 'content-type' || value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) flat.push(name, String(one));
  }
  return flat;
}

interface Caller {
  id: number;
  role: string;
}

/**
 * Answers embed absolute URLs built from the scheme and Host the caller used, and what a
 * caller may see depends on who they are: both are part of the key with the URL.
 */
const keyOf = (req: Request, caller: Caller | undefined) =>
  `${caller ? `${caller.id}/${caller.role}` : '-'} ${req.protocol}://${req.get('host') ?? ''} ${req.originalUrl}`;

/**
 * A short-lived cache of GET answers, dropped whole by the writes of this process. Mount it
 * before the body parsers and the routes: a hit is written straight to the socket from bytes.
 * `ttlMs` bounds how stale an answer can be when another process writes (and how far the
 * default date window, which moves with the clock, can lag); an expired entry is served while
 * one request recomputes it, so a burst never runs the same queries fifty times. 0 disables.
 * `mayWrite` tells callers whose other methods can change data from those always refused, so
 * that anonymous POSTs cannot keep the cache empty. The cache holds at most `maxBytes` of
 * answers (bodies and keys): expired entries go first, then the least recently stored. A GET's
 * body is never read (the routes take GET parameters from the URL only), so sending one cannot
 * make a request bypass the cache.
 */
export function responseCache(
  ttlMs: number,
  mayWrite: (caller: Caller | undefined) => boolean,
  maxBytes = 32 * 1024 * 1024,
): RequestHandler & { stats(): { entries: number; bytes: number } } {
  // Insertion order is age order: a stored entry is deleted and set again, so it moves last.
  const entries = new Map<string, Entry>();
  let bytes = 0;
  const sizeOf = (key: string, entry: Entry) => key.length * 2 + entry.body.length + 256;
  const remove = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    bytes -= sizeOf(key, entry);
  };
  /** Expired entries off the front, then the oldest until `needed` more bytes fit. */
  const makeRoom = (needed: number) => {
    const now = Date.now();
    for (const [key, entry] of entries) {
      if (entry.expires > now || entry.refreshing) break;
      remove(key);
    }
    for (const key of entries.keys()) {
      if (bytes + needed <= maxBytes) break;
      remove(key);
    }
  };
  // Bumped when a write starts and when it answers (after its transaction, even if its client
  // is gone): a read that overlapped a write may have seen the old rows, so it must not store
  // its answer after the write cleared the cache.
  let generation = 0;
  const drop = () => {
    generation++;
    entries.clear();
    bytes = 0;
  };
  const handler: RequestHandler = function responseCache(req, res, next) {
    if (ttlMs <= 0) return next();
    const caller = res.locals.user as Caller | undefined;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      if (!mayWrite(caller)) return next();
      drop();
      const json = res.json.bind(res);
      res.json = (value: unknown) => {
        drop();
        return json(value);
      };
      res.on('close', drop);
      return next();
    }
    const key = keyOf(req, caller);
    const hit = entries.get(key);
    if (hit && (hit.expires > Date.now() || hit.refreshing)) {
      res.writeHead(200, hit.head);
      res.end(req.method === 'HEAD' ? undefined : hit.body);
      return;
    }
    if (hit) hit.refreshing = true;
    const readAt = generation;
    res.on('close', () => {
      if (hit?.refreshing && entries.get(key) === hit) remove(key);
    });
    // `res.json` ends in `send` with the serialized text, and event lists send their bytes.
    const send = res.send.bind(res);
    res.send = (text: unknown) => {
      const serialized = typeof text === 'string' || Buffer.isBuffer(text);
      if (!serialized || !/^application\/json/.test(String(res.get('content-type')))) {
        return send(text);
      }
      const body = Buffer.isBuffer(text) ? text : Buffer.from(text);
      res.type('application/json; charset=utf-8');
      if (res.statusCode === 200 && generation === readAt) {
        const head = [
          ...routeHeaders(res.getHeaders()),
          'content-type',
          'application/json; charset=utf-8',
          'content-length',
          String(body.length),
        ];
        const entry = { expires: Date.now() + ttlMs, head, body, refreshing: false };
        remove(key);
        const size = sizeOf(key, entry);
        if (size <= maxBytes) {
          makeRoom(size);
          entries.set(key, entry);
          bytes += size;
        }
      }
      return send(body);
    };
    next();
  };
  return Object.assign(handler, { stats: () => ({ entries: entries.size, bytes }) });
}
