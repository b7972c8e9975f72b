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
  createBullBoard({
    queues: [new BullMQAdapter(queue, { readOnlyMode: true })],
    serverAdapter,
    options: { uiConfig: { boardTitle: 'live-captions queue' } },
  });
  return serverAdapter.getRouter() as Router;
}
