import type { RequestHandler } from 'express';

interface Entry {
  expires: number;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * A short-lived cache of GET answers, keyed by URL and caller, dropped whole by any write of
 * this process. `ttlMs` bounds how stale an answer can be when another process writes (and how
 * far the default date window, which moves with the clock, can lag); 0 turns it off.
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
    const now = Date.now();
    const hit = entries.get(key);
    if (hit && hit.expires > now) {
      res.status(hit.status).set(hit.headers).json(hit.body);
      return;
    }
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      if (res.statusCode === 200) {
        const headers: Record<string, string> = {};
        for (const name of ['X-TEC-Total', 'X-TEC-TotalPages', 'X-WP-Total', 'X-WP-TotalPages']) {
          const value = res.get(name);
          if (value !== undefined) headers[name] = value;
        }
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
        entries.set(key, { expires: Date.now() + ttlMs, status: 200, headers, body });
      }
      return json(body);
    };
    next();
  };
}
