import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * The security headers of every page and API the stack serves: a self-only CSP (scripts and
 * styles from files only, nothing inline; `connect-src` adds the relay and, for the UI, the
 * capture host), no referrer, nosniff, no framing. Audio capture needs `blob:` media only.
 */
export function securityHeaders(connectSources: readonly string[]): RequestHandler {
  return helmet({
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
        mediaSrc: ["'self'", 'blob:'],
        connectSrc: ["'self'", ...connectSources],
      },
    },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginEmbedderPolicy: false,
  });
}
