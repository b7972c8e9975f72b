import type { RequestHandler } from 'express';

/**
 * The headers of a list a page on another origin reads: the totals (paging) and the discovery
 * link, as WordPress exposes them (`rest_exposed_cors_headers`).
 */
const EXPOSED = 'X-WP-Total, X-WP-TotalPages, X-TEC-Total, X-TEC-TotalPages, Link';

/**
 * CORS on the API's reads: a page on any origin may GET what the API shows anonymously (a
 * conference's own site, the UI's pages under `pnpm start` where the calendar has a port of its
 * own), as WordPress's REST API answers any origin. `*` rather than the caller's origin, and no
 * preflight granted: a browser then never sends a token or a cookie cross-origin, so what another
 * origin reads is the public schedule only, and writes stay with the clients that hold a token.
 */
export function publicReadsCors(): RequestHandler {
  return function publicReadsCors(req, res, next) {
    if (req.method === 'GET' || req.method === 'HEAD') {
      res.set('Access-Control-Allow-Origin', '*');
      res.set('Access-Control-Expose-Headers', EXPOSED);
    }
    next();
  };
}
