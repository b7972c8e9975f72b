/**
 * A day of talks for the scheduler's tests: the real calendar service (a process on PGlite, or on
 * PostgreSQL given a DATABASE_URL, with an editor's token) that can be killed and started again on its port and data, and its REST API
 * as an organiser (or an import) would call it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import { freePort, killAll, type ServiceProcess, startServiceProcess } from '@live-captions/test-services';
import { API_KEY, api, type Base, createDatabase, type Running, root, sleep, until } from './stack.js';

export const CALENDAR_TOKEN = 'calendar-editor-token-0123456789abcdef';
const CALENDAR_ENTRY = join(root, 'services/calendar/src/index.ts');

export interface Calendar {
  /** The REST API's root (`…/wp-json/cal/events/v1/`). */
  url: string;
  /** SIGKILLs it (an outage); `start()` brings it back on the same port and data. */
  kill(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP (a frozen peer: connections taken, never answered) or SIGCONT. */
  freeze(frozen: boolean): void;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
}

export async function startCalendar(env: Record<string, string> = {}): Promise<Calendar> {
  const dir = mkdtempSync(join(tmpdir(), 'schedule-calendar-'));
  const tokens = join(dir, 'tokens.json');
  writeFileSync(
    tokens,
    JSON.stringify({ [CALENDAR_TOKEN]: { user_id: 1, name: 'Organiser', role: 'editor' } }),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/wp-json/cal/events/v1/`;
  let proc: ServiceProcess | undefined;
  const calendar: Calendar = {
    url,
    async kill() {
      if (proc) await killAll([proc]);
      proc = undefined;
    },
    freeze(frozen) {
      proc?.child.kill(frozen ? 'SIGSTOP' : 'SIGCONT');
    },
    async start() {
      proc = startServiceProcess(CALENDAR_ENTRY, {
        CALENDAR_PORT: String(port),
        CALENDAR_DATA_DIR: join(dir, 'data'),
        CALENDAR_TOKENS_FILE: tokens,
        ...env,
      });
      await until(
        'the calendar listening',
        () => (proc?.logLines(/^calendar listening$/).length ?? 0) > 0,
        90_000,
      );
    },
    async call(method, path, body) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${CALENDAR_TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, json: text ? JSON.parse(text) : undefined };
    },
  };
  await calendar.start();
  return calendar;
}

/** `2026-12-08 10:10:00` (the calendar's zone is UTC here) from minutes after the day's 10:00. */
export const at = (day: string, minutesAfterTen: number) => {
  const ms = Date.parse(`${day}T10:00:00Z`) + minutesAfterTen * 60_000;
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
};

/** The relay's rooms API (`/rooms`), as the board or a script calls it. */
export async function relayApi(base: Base, method: string, path: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${base.relay.port}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as any };
}

/** The archive: the outputs service, told by the scheduler which talk each output room is in. */
export async function startOutputs(base: Base): Promise<Running> {
  const proc = startServiceProcess(`${root}services/outputs/src/index.ts`, {
    OUTPUTS_PORT: '0',
    DATABASE_URL: await createDatabase(),
    RELAY_URL: `ws://127.0.0.1:${base.relay.port}/ws`,
    CAPTION_RELAY_CONFIG: base.relayConfig,
    CAPTION_API_KEY: API_KEY,
  });
  await until('the outputs listening', () => proc.logLines(/^outputs listening$/).length > 0, 90_000);
  return { proc, port: Number(proc.logLines(/^outputs listening$/)[0]?.port) };
}

/**
 * The rehearsal clock both schedule tests play the day on (SOURCES_SCHEDULE_CLOCK): `day` 10:00
 * at the real moment `origin`, `rate` times fast. Minutes count from 10:00.
 */
export class DayClock {
  constructor(
    readonly day: string,
    readonly rate: number,
    readonly origin: number,
  ) {}

  /** The sources service's SOURCES_SCHEDULE_CLOCK for it. */
  get setting(): string {
    return `${this.day}T10:00:00Z@${new Date(this.origin).toISOString().slice(0, 19)}Zx${this.rate}`;
  }

  minute(real = Date.now()): number {
    return ((real - this.origin) * this.rate) / 60_000;
  }

  /** Sleeps until the day's clock reads `minute`. */
  async until(minute: number): Promise<void> {
    const wait = this.origin + (minute * 60_000) / this.rate - Date.now();
    if (wait > 0) await sleep(wait);
  }
}

/** A stopped pull source into the room, once the sources service knows the room (422 until then). */
export async function addPullSource(port: number, room: string, name: string, url: string): Promise<string> {
  let added = { status: 0, json: {} as Record<string, any> };
  await until('the room known to the sources', async () => {
    added = await api(port, 'POST', '/sources', { room, name, input: { kind: 'pull', url }, running: false });
    return added.status !== 422;
  });
  expect(added.status).toBe(201);
  return added.json.source.id as string;
}

export interface RunningWatch {
  /** Each change of the source's `running` flag, at its minute of the day (rounded). */
  changes: { minute: number; running: boolean }[];
  stop(): Promise<void>;
}

/** Watches a source's `running` flag every 200 ms, asking the replica `port()` names at the time. */
export function watchRunning(port: () => number, id: string, clock: DayClock, from: number): RunningWatch {
  const changes: RunningWatch['changes'] = [];
  let watching = true;
  const watch = (async () => {
    let last = false;
    while (watching) {
      const running = (await api(port(), 'GET', `/sources/${id}`).catch(() => undefined))?.json.source
        ?.running;
      if (typeof running === 'boolean' && running !== last) {
        changes.push({ minute: Math.round(clock.minute() - from), running });
        last = running;
      }
      await sleep(200);
    }
  })();
  return {
    changes,
    async stop() {
      watching = false;
      await watch;
    },
  };
}

/** The changes seen are `expected` ([minute, running]), each within `slack` minutes of the day. */
export function expectRuns(changes: RunningWatch['changes'], expected: [number, boolean][], slack = 3): void {
  expect(changes.map((c) => c.running)).toEqual(expected.map(([, running]) => running));
  changes.forEach((change, i) => {
    expect(Math.abs(change.minute - expected[i]![0])).toBeLessThanOrEqual(slack);
  });
}
