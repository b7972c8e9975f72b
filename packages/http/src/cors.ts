import type { RequestHandler } from 'express';
import { parseOrigin } from './urls.js';

/**
 * An `..._ALLOWED_ORIGINS` setting: comma-separated origins (parseOrigin's rule), empty entries
 * skipped. Each wrong entry is one line in `issues`, named by `variable`.
 */
export function parseOriginList(variable: string, value: string, issues: string[]): ReadonlySet<string> {
  const origins = new Set<string>();
  for (const entry of value.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    try {
      origins.add(parseOrigin(entry));
    } catch (error) {
      issues.push(`${variable}: ${(error as Error).message}`);
    }
  }
  return origins;
}

/**
 * CORS for the browser origins a service lists (a page served from another origin calling its API
 * with a bearer token; never cookies): listed origins get `Access-Control-Allow-Origin` on every
 * answer and their preflights 204 with `methods`; another origin's preflight is a 403 with the
 * services' `{error:{message, code}}` body.
 */
export function corsFor(
  allowed: ReadonlySet<string>,
  options: { methods: readonly string[]; exposeHeaders?: readonly string[] },
): RequestHandler {
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (allowed.size > 0) res.vary('Origin');
    const listed = origin !== undefined && allowed.has(origin);
    if (listed) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      if (options.exposeHeaders?.length)
        res.setHeader('Access-Control-Expose-Headers', options.exposeHeaders.join(', '));
    }
    if (req.method !== 'OPTIONS') return next();
    if (!listed) {
      res.status(403).json({ error: { message: 'Origin not allowed', code: 'unauthorized' } });
      return;
    }
    res.setHeader('Access-Control-Allow-Methods', options.methods.join(', '));
    res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
  };
}
