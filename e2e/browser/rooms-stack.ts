/**
 * The stack of the caption rooms suites: a real relay with its rooms store (PGlite in a
 * temporary folder) and the service access token, the UI service pointing at it (its
 * RELAY_API_URL derived from the loopback relay), one pair of the relay's file as a `file` room,
 * the speech gateway (synthetic model) as the capture host, whose `/health` the board reads for
 * the workers' line, a calendar when given one (calendar-stack.ts), and the relay's `/rooms` API
 * called from Node to confirm what the pages did.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CaptionRoom } from '@live-captions/protocol';
import { newToken } from '@live-captions/secret-files';
import { buildPages } from '@live-captions/web';
import { freePort, type ServiceProcess, startService, until } from '../deploy/helpers/processes.js';
import { processLogs, type RelayUi, startRelayUi } from './relay-ui.js';
import { boardServicesPorts, startBoardServices } from './rooms-services.js';
import { MODEL } from './stack.js';

export interface RoomsStack {
  ui: RelayUi;
  apiKey: string;
  /** The relay's HTTP API base (http://127.0.0.1:<port>/). */
  api: string;
  /** The hub; its capture host is the gateway (the board reads its `/health`). */
  hub: string;
  captureUrl: string;
  /** The outputs and stream sources services' bases, when the stack has them. */
  outputsUrl?: string;
  sourcesUrl?: string;
  /** Every process's output, for a failure's message. */
  logs(): string;
  rooms(): Promise<CaptionRoom[]>;
  create(name: string): Promise<CaptionRoom>;
  /** `PATCH /rooms/:id` as a script would (a venue binding, a hold). */
  patch(id: string, body: Record<string, unknown>): Promise<CaptionRoom>;
  stop(): Promise<void>;
}

export interface RoomsStackOptions {
  /**
   * Also the outputs and stream sources services (rooms-services.ts), posting only to
   * `outputsHosts`; without: the site has neither.
   */
  services?: { outputsHosts: string };
  /** The calendar's events API the pages read (CALENDAR_API_URL); without: none. */
  calendarApiUrl?: string;
}

export async function startRoomsStack(options: RoomsStackOptions = {}): Promise<RoomsStack> {
  await buildPages();
  const dir = mkdtempSync(join(tmpdir(), 'e2e-rooms-'));
  const apiKey = newToken();
  const gatewayPort = await freePort();
  const captureUrl = `http://127.0.0.1:${gatewayPort}/`;
  const ports = options.services ? await boardServicesPorts() : undefined;
  const ui = await startRelayUi({
    dir,
    rooms: { source: 'plenary', output: 'plenary-output' },
    relayEnv: {
      RELAY_DATA_DIR: join(dir, 'relay-data'),
      CAPTION_API_KEY: apiKey,
      CAPTION_LOCAL_ENV_FILE: join(dir, 'no-caption-local.env'),
    },
    uiEnv: {
      CAPTURE_URL: captureUrl,
      OUTPUTS_URL: ports ? `http://127.0.0.1:${ports.outputs}/` : '',
      SOURCES_URL: ports ? `http://127.0.0.1:${ports.sources}/` : '',
      CALENDAR_API_URL: options.calendarApiUrl ?? '',
    },
  });
  // Started once the UI's origin is known: the gateway answers the hub's browser from there only.
  let gateway: ServiceProcess | undefined;
  let services: ServiceProcess[] = [];
  try {
    await ui.ready();
    gateway = startService('speech', {
      LOG_LEVEL: 'warn',
      CAPTION_BIND: '127.0.0.1',
      CAPTION_PORT: String(gatewayPort),
      CAPTION_MODEL: MODEL,
      CAPTION_OFFLINE: '1',
      CAPTION_THREADS: '1',
      // Not downloaded here: without them the gateway logs a warning per /health, which the board polls.
      CAPTION_VAD_MODEL: 'off',
      CAPTION_REALTIME_VAD_MODEL: join(dir, 'no-realtime-vad.bin'),
      CAPTION_API_KEY: apiKey,
      CAPTION_ALLOWED_ORIGINS: ui.uiOrigin,
      CAPTION_LOCAL_ENV_FILE: join(dir, 'no-caption-local.env'),
    });
    const auth = { headers: { Authorization: `Bearer ${apiKey}` } };
    await until('the gateway', async () => (await fetch(`${captureUrl}health`, auth)).ok, 90_000);
    if (ports && options.services)
      services = await startBoardServices({
        dir,
        ports,
        relayUrl: ui.relayUrl,
        captureUrl,
        uiOrigin: ui.uiOrigin,
        apiKey,
        outputsHosts: options.services.outputsHosts,
      });
  } catch (error) {
    const logs = processLogs([...ui.processes(), ...(gateway ? [gateway] : [])]);
    await Promise.all([ui.stop(), gateway?.stop()]);
    throw new Error(`${(error as Error).message}\n${logs}`, { cause: error });
  }
  const api = ui.relayUrl.replace(/^ws/, 'http').replace(/ws$/, '');
  const call = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(new URL(path, api), {
      ...init,
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    });
    if (!response.ok)
      throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<Record<string, unknown>>;
  };
  return {
    ui,
    apiKey,
    api,
    hub: `${ui.uiOrigin}/`,
    captureUrl,
    ...(ports
      ? { outputsUrl: `http://127.0.0.1:${ports.outputs}/`, sourcesUrl: `http://127.0.0.1:${ports.sources}/` }
      : {}),
    logs: () => processLogs([...ui.processes(), gateway!, ...services]),
    rooms: async () => (await call('rooms')).rooms as CaptionRoom[],
    create: async (name) =>
      (await call('rooms', { method: 'POST', body: JSON.stringify({ name }) })).room as CaptionRoom,
    patch: async (id, body) =>
      (await call(`rooms/${id}`, { method: 'PATCH', body: JSON.stringify(body) })).room as CaptionRoom,
    async stop() {
      await Promise.all([ui.stop(), gateway?.stop(), ...services.map((service) => service.stop())]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
