import type { RequestHandler } from 'express';

interface Entry {
  expires: number;
  headers: Record<string, string>;
  /** The serialized JSON as bytes, so that hits cost neither stringify nor UTF-8 encoding. */
  body: Buffer;
  /** One request is recomputing an expired entry; the others keep getting this one meanwhile. */
  refreshing: boolean;
}

const totals = ['X-TEC-Total', 'X-TEC-TotalPages', 'X-WP-Total', 'X-WP-TotalPages'];

/**
 * A short-lived cache of GET answers, keyed by URL and caller, dropped whole by any write of
 * this process. `ttlMs` bounds how stale an answer can be when another process writes (and how
 * far the default date window, which moves with the clock, can lag); an expired entry is served
 * while one request recomputes it, so a burst never runs the same query fifty times. 0 disables.
 */
export function responseCache(ttlMs: number, maxEntries = 2000): RequestHandler {
  const entries = new Map<string, Entry>();
  return function responseCache(req, res, next) {
    if (ttlMs <= 0) return next();
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      entries.clear();
      res.on('finish', () => entries.clear());
      return next();
    }
    const user = res.locals.user as { id: number } | undefined;
    const key = `${user?.id ?? 0} ${req.originalUrl}`;
    const hit = entries.get(key);
    if (hit && (hit.expires > Date.now() || hit.refreshing)) {
      res.status(200).set(hit.headers).type('application/json; charset=utf-8').send(hit.body);
      return;
    }
    if (hit) hit.refreshing = true;
    res.on('close', () => {
      if (hit?.refreshing && entries.get(key) === hit) entries.delete(key);
    });
    res.json = (value: unknown) => {
      const body = Buffer.from(JSON.stringify(value));
      if (res.statusCode === 200) {
        const headers: Record<string, string> = {};
        for (const name of totals) {
          const header = res.get(name);
          if (header !== undefined) headers[name] = header;
        }
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
        entries.set(key, { expires: Date.now() + ttlMs, headers, body, refreshing: false });
      }
      return res.type('application/json; charset=utf-8').send(body);
    };
    next();
  };
}
