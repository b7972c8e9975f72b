import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * Security headers: a self-only CSP (scripts and styles from files only; connect-src adds the
 * relay and the capture host), no referrer, nosniff. Pages may be framed by nobody except the
 * overlay, which OBS loads as a top-level page anyway.
 */
export function securityHeaders(connectSources: string[]): RequestHandler[] {
  return [
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          baseUri: ["'none'"],
          objectSrc: ["'none'"],
          frameAncestors: ["'none'"],
          formAction: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'data:'],
          fontSrc: ["'self'"],
          connectSrc: ["'self'", ...connectSources],
        },
      },
      referrerPolicy: { policy: 'no-referrer' },
      crossOriginEmbedderPolicy: false,
    }),
  ];
}
