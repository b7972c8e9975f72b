/**
 * The project's services as real processes, as an operator runs them from the sources (`node
 * --conditions=@live-captions/source --import tsx <entry>`), with their JSON log lines kept for assertions and figures. Tests and benchmarks that
 * kill, freeze or signal a service start it through here.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Node flags that run a TypeScript entry point with the workspace packages taken from their
 * sources (the `@live-captions/source` export condition of their package.json), as jest does.
 */
export const FROM_SOURCE = ['--conditions=@live-captions/source', '--import', 'tsx'];

export const GATEWAY_ENTRY = `${repoRoot}services/speech/src/index.ts`;
export const WORKER_ENTRY = `${repoRoot}services/worker/src/index.ts`;

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output: () => string;
  /** Its JSON log lines whose `msg` matches. */
  logLines: (msg: RegExp) => Record<string, unknown>[];
  exited: Promise<number | null>;
}

/** A speech gateway or worker on the synthetic tiny model, offline, one thread, port 0. */
export function startServiceProcess(entry: string, env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [...FROM_SOURCE, entry], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LOG_LEVEL: 'info',
      CAPTION_PORT: '0',
      CAPTION_MODEL: `${repoRoot}models/ggml-synthetic-tiny.bin`,
      CAPTION_THREADS: '1',
      CAPTION_OFFLINE: '1',
      // Whether a developer ran `pnpm model silero` must not change what the synthetic model says.
      CAPTION_VAD_MODEL: 'off',
      CAPTION_LOCAL_ENV_FILE: '/nonexistent/caption-local.env',
      CAPTION_RELAY_TOKENS_FILE: '/nonexistent/relay-tokens.env',
      // Several workers run side by side in tests: no fixed metrics port unless asked for.
      WORKER_METRICS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const keep = (chunk: Buffer) => {
    text += chunk.toString();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => text,
    logLines: (msg) =>
      text
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => msg.test(String(entry.msg))),
    exited,
  };
}

/** The gateway's port, from its "listening" log line. */
export async function gatewayPort(gateway: ServiceProcess, timeoutMs = 20_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [line] = gateway.logLines(/^speech gateway listening$/);
    if (line) return line.port as number;
    if (Date.now() > deadline)
      throw new Error(`the gateway did not listen within ${timeoutMs} ms:\n${gateway.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Kills processes (frozen ones too: SIGCONT first) and resolves once every one has exited. */
export async function killAll(procs: Iterable<ServiceProcess>): Promise<void> {
  const list = [...procs];
  for (const proc of list) {
    proc.child.kill('SIGCONT');
    proc.child.kill('SIGKILL');
  }
  await Promise.all(list.map((proc) => proc.exited));
}

/** A gateway and its workers as processes on one Redis queue of their own (fault tests, bench). */
export interface QueueStack {
  base: string;
  queueName: string;
  gateway: ServiceProcess;
  workers: Map<string, ServiceProcess>;
  startWorker(id: string): ServiceProcess;
  /** Resolves once `/health` answers 200 with `count` decode slots (one per default worker). */
  ready(count: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts a gateway and one worker per id on a fresh queue of `redisUrl` (plus `env` for the
 * gateway), and waits until every worker is ready.
 */
export async function startQueueStack(options: {
  redisUrl: string;
  queuePrefix: string;
  model: string;
  workerIds: string[];
  env?: Record<string, string>;
}): Promise<QueueStack> {
  const queueName = `${options.queuePrefix}-${randomUUID()}`;
  const common = { REDIS_URL: options.redisUrl, CAPTION_QUEUE_NAME: queueName, CAPTION_MODEL: options.model };
  const gateway = startServiceProcess(GATEWAY_ENTRY, { ...common, ...options.env });
  const workers = new Map<string, ServiceProcess>();
  const startWorker = (id: string) => {
    const worker = startServiceProcess(WORKER_ENTRY, { ...common, WORKER_ID: id });
    workers.set(id, worker);
    return worker;
  };
  for (const id of options.workerIds) startWorker(id);
  const base = `http://127.0.0.1:${await gatewayPort(gateway)}`;
  const stack: QueueStack = {
    base,
    queueName,
    gateway,
    workers,
    startWorker,
    async ready(count, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      const counted = () =>
        fetch(`${base}/health`)
          .then(
            async (res) =>
              res.status === 200 && ((await res.json()) as { workers: number }).workers === count,
          )
          .catch(() => false);
      while (!(await counted())) {
        if (Date.now() > deadline)
          throw new Error(`${count} ready workers not reported within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    stop: () => killAll([gateway, ...workers.values()]),
  };
  await stack.ready(options.workerIds.length).catch(async (error: unknown) => {
    await stack.stop();
    throw error;
  });
  return stack;
}
