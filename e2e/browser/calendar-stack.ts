/**
 * The real calendar service for the browser suites: a process on PGlite in a temporary folder,
 * with an editor's token file, and its REST API as an organiser (or an import) calls it. The UI
 * service is given its `apiUrl` (CALENDAR_API_URL): another origin, as under `pnpm start`, so the
 * pages read it through its CORS.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type ServiceProcess, startService, until } from '../deploy/helpers/processes.js';

export const CALENDAR_TOKEN = 'calendar-editor-token-0123456789abcdef';

export interface CalendarProcess {
  /** The events API base the pages read: `http://127.0.0.1:<port>/wp-json/cal/events/v1/`. */
  apiUrl: string;
  process: ServiceProcess;
  /** An editor's call; throws naming the answer unless it is 2xx. */
  call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>>;
  venue(name: string): Promise<number>;
  /** A published talk at `venue` from `start` to `end` (instants; the calendar's zone is UTC). */
  talk(venue: number, title: string, start: number, end: number): Promise<number>;
  stop(): Promise<void>;
}

/** `2026-12-08 10:10:00` in UTC, as the calendar (CALENDAR_TIMEZONE=UTC) reads its dates. */
const utcText = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

export async function startCalendar(): Promise<CalendarProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-calendar-'));
  const tokens = join(dir, 'tokens.json');
  writeFileSync(
    tokens,
    JSON.stringify({ [CALENDAR_TOKEN]: { user_id: 1, name: 'Organiser', role: 'editor' } }),
  );
  const port = await freePort();
  const apiUrl = `http://127.0.0.1:${port}/wp-json/cal/events/v1/`;
  const process = startService('calendar', {
    LOG_LEVEL: 'warn',
    CALENDAR_BIND: '127.0.0.1',
    CALENDAR_PORT: String(port),
    CALENDAR_DATA_DIR: join(dir, 'data'),
    CALENDAR_TOKENS_FILE: tokens,
    CALENDAR_TIMEZONE: 'UTC',
  });
  const stop = async () => {
    await process.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // PGlite's first start (its files, the migrations) takes a while on a busy machine.
    await until('the calendar', async () => (await fetch(apiUrl)).ok, 120_000);
  } catch (error) {
    const output = process.output();
    await stop();
    throw new Error(`${(error as Error).message}\n${output}`, { cause: error });
  }
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(new URL(path, apiUrl), {
      method,
      headers: {
        Authorization: `Bearer ${CALENDAR_TOKEN}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : {};
  };
  return {
    apiUrl,
    process,
    call,
    venue: async (name) => (await call('POST', 'venues', { venue: name })).id as number,
    talk: async (venue, title, start, end) =>
      (
        await call('POST', 'events', {
          title,
          venue,
          status: 'publish',
          start_date: utcText(start),
          end_date: utcText(end),
        })
      ).id as number,
    stop,
  };
}
