/**
 * What the outputs tests share: a relay configuration file, a fresh PostgreSQL database, the
 * relay and the outputs service as real processes (SIGKILL-able), a publisher, and waiting.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPublisher, type RelayPublisher } from '@live-captions/relay-client/node';
import {
  callApi,
  freePort,
  killAll,
  runPostgresUrl,
  type ServiceProcess,
  startServiceProcess,
} from '@live-captions/test-services';
import knexFactory from 'knex';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
export const RELAY_ENTRY = join(root, 'services/relay/src/index.ts');
export const OUTPUTS_ENTRY = join(root, 'services/outputs/src/index.ts');

export const ROOM = 'captions-output';
export const TOKENS = {
  read: 'outputRead_cccccccccccccccccccccccccccccc',
  write: 'outputWrite_ddddddddddddddddddddddddddddd',
  otherRead: 'sourceRead_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  otherWrite: 'sourceWrite_bbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
};

/**
 * A relay.private.json with the output room and another room (and `limits` of the relay, e.g. a
 * shortened history); returns its path.
 */
export function relayConfigFile(limits?: Record<string, number>): string {
  const dir = mkdtempSync(join(tmpdir(), 'outputs-test-'));
  const path = join(dir, 'relay.private.json');
  writeFileSync(
    path,
    JSON.stringify({
      origins: ['http://localhost:8081'],
      rooms: {
        captions: { read: TOKENS.otherRead, write: TOKENS.otherWrite },
        [ROOM]: { read: TOKENS.read, write: TOKENS.write },
      },
      ...(limits ? { limits } : {}),
    }),
  );
  return path;
}

/** A new empty database on the run's PostgreSQL; its URL. */
export async function createDatabase(): Promise<string> {
  const name = `outputs_test_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: runPostgresUrl(), pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  await admin.destroy();
  const url = new URL(runPostgresUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** Waits until `probe` holds, every 100 ms; the error names what never happened. */
export async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await Promise.resolve(probe()).catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The port `proc` logs with `message`; generous, as a start compiles TypeScript on a loaded machine.
 * A process that never gets there is killed, and the error carries the end of its output.
 */
async function portOf(proc: ServiceProcess, message: RegExp): Promise<number> {
  try {
    await until(`${message} in the log`, () => proc.logLines(message).length > 0, 60_000);
  } catch (error) {
    await killAll([proc]);
    throw new Error(`${(error as Error).message}; it printed:\n${proc.output().slice(-3000)}`);
  }
  return Number(proc.logLines(message)[0]?.port);
}

export interface Running {
  proc: ServiceProcess;
  port: number;
}

/**
 * The relay as a process on `port` (a restart reuses it); `redisUrl` keeps its history across
 * restarts; `env` adds settings (a rooms store: RELAY_DATA_DIR and CAPTION_API_KEY).
 */
export async function startRelay(
  configPath: string,
  port: number,
  redis?: { url: string; prefix: string },
  env: Record<string, string> = {},
): Promise<Running> {
  const proc = startServiceProcess(RELAY_ENTRY, {
    CAPTION_RELAY_CONFIG: configPath,
    RELAY_PORT: String(port),
    ...(redis ? { REDIS_URL: redis.url, RELAY_REDIS_PREFIX: redis.prefix } : {}),
    ...env,
  });
  const listening = await portOf(proc, /^relay listening$/);
  await until('relay ready', async () => (await fetch(`http://127.0.0.1:${listening}/health`)).ok);
  return { proc, port: listening };
}

/** The outputs service as a process on a free port. */
export async function startOutputs(env: Record<string, string>): Promise<Running> {
  const proc = startServiceProcess(OUTPUTS_ENTRY, { OUTPUTS_PORT: '0', LOG_LEVEL: 'debug', ...env });
  return { proc, port: await portOf(proc, /^outputs listening$/) };
}

export const kill = (running: Running | undefined) => (running ? killAll([running.proc]) : Promise.resolve());

/** Calls the outputs API. */
export const api = callApi;

/**
 * Resolves once the replica on `port` holds `rooms` rooms and reads all of them: a room's first
 * join starts at the relay's live edge, so a caption published earlier would not be for it.
 */
export async function reading(port: number, rooms = 1): Promise<void> {
  await until(`reading ${rooms} room(s)`, async () => {
    const health = (await api(port, 'GET', '/health', '')).json as {
      relay: string;
      leases: { held: number };
    };
    return health.leases.held === rooms && health.relay === 'connected';
  });
}

/** A publisher of the output room (as the editor is). */
export function publisher(relayPort: number): RelayPublisher {
  return createPublisher({ url: `ws://127.0.0.1:${relayPort}/ws`, room: ROOM, token: TOKENS.write });
}

export { freePort };

/** Words of texts, to compare what a platform got with what was published (line shaping aside). */
export const words = (texts: string[]) =>
  texts
    .join(' ')
    .split(/\s+/)
    .filter((w) => w !== '');
