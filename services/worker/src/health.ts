// `node dist/health.js`: the worker container's health check (compose and the image's
// HEALTHCHECK). Exit 0 while this worker's heartbeat key lives in Redis, which it writes only once
// its model is downloaded, loaded and warmed up; exit 1 with one `unhealthy: ...` line otherwise.
// Same configuration as the worker (config.ts), same key layout (@live-captions/inference).
import { workerHeartbeatLives } from '@live-captions/inference';
import { loadWorkerConfig } from './config.js';

// Under the 5 s of the HEALTHCHECK's timeout, so that a hung Redis is reported as such.
const TIMEOUT_MS = 4_000;

async function unhealthyReason(): Promise<string | undefined> {
  const config = loadWorkerConfig();
  const workerId = config.workerId;
  const alive = await workerHeartbeatLives({
    redisUrl: config.redisUrl,
    queueName: config.engine.queueName,
    workerId,
    timeoutMs: TIMEOUT_MS,
  });
  return alive ? undefined : `worker ${workerId} has no live heartbeat in Redis (model still loading?)`;
}

// process.exit: a refused ioredis connection keeps the event loop busy for two more seconds.
unhealthyReason().then(
  (reason) => {
    if (reason) console.error(`unhealthy: ${reason}`);
    process.exit(reason ? 1 : 0);
  },
  (error: unknown) => {
    console.error(`unhealthy: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
