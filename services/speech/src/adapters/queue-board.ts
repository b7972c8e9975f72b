/**
 * The ops queue view: bull-board on the gateway's BullMQ queue (Redis backend only). Traefik
 * routes it only through the Basic Auth overlay (compose/compose.auth.yaml) on the UI host, and
 * never from the capture host, so it is not public.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import type { Router } from 'express';

/** Where the board is mounted; its page and API build their links from it. */
export const QUEUE_BOARD_PATH = '/ops/queues';

/**
 * Read-only on purpose: a retried or removed job would bypass the gateway, which answers each
 * request once from its own pending state; an operator looks, the gateway and workers act.
 */
export function queueBoard(queue: Queue): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_BOARD_PATH);
  const adapter = new BullMQAdapter(queue, { readOnlyMode: true });
  // Operators see timings, sizes and failures, never what was said: texts show as their length.
  adapter.setFormatter('returnValue', (value) => hideTexts(value));
  adapter.setFormatter('data', (value) => hideTexts(value));
  createBullBoard({
    queues: [adapter],
    serverAdapter,
    options: { uiConfig: { boardTitle: 'live-captions queue' } },
  });
  return serverAdapter.getRouter() as Router;
}

const TEXT_FIELDS = new Set(['text', 'transcript', 'translation', 'prompt', 'word']);

/** A job result or payload with every text field replaced by `[n characters]`. */
export function hideTexts(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hideTexts);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) =>
      TEXT_FIELDS.has(key) && typeof field === 'string'
        ? [key, `[${field.length} characters]`]
        : [key, hideTexts(field)],
    ),
  );
}
