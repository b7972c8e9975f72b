import type { RequestHandler } from 'express';
import { requireOrigin, requireToken } from './middleware.js';

/** Middleware chains in front of API routes: token (401) first, then origin / local header (403). */
export interface ApiGuards {
  /** Token and origin: health, models, /v1, relay-config. */
  api: RequestHandler[];
  /** Token, origin and `X-Caption-Local: 1`: the native route and stream deletion. */
  local: RequestHandler[];
}

export function apiGuards(apiKey: string | undefined, allowedOrigins: ReadonlySet<string>): ApiGuards {
  const token = requireToken(apiKey);
  return {
    api: [token, requireOrigin(allowedOrigins, false)],
    local: [token, requireOrigin(allowedOrigins, true)],
  };
}
