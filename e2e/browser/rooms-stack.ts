/**
 * The stack of the caption rooms suites: a real relay with its rooms store (PGlite in a
 * temporary folder) and the service access token, the UI service pointing at it (its
 * RELAY_API_URL derived from the loopback relay), one pair of the relay's file as a `file` room,
 * and the relay's `/rooms` API called from Node to confirm what the pages did.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CaptionRoom } from '@live-captions/protocol';
import { newToken } from '@live-captions/secret-files';
import { buildPages } from '@live-captions/web';
import { type RelayUi, startRelayUi } from './relay-ui.js';

export interface RoomsStack {
  ui: RelayUi;
  apiKey: string;
  /** The relay's HTTP API base (http://127.0.0.1:<port>/). */
  api: string;
  /** The hub, with a capture host that is never asked (its links are only checked). */
  hub: string;
  captureUrl: string;
  rooms(): Promise<CaptionRoom[]>;
  create(name: string): Promise<CaptionRoom>;
  stop(): Promise<void>;
}

export async function startRoomsStack(): Promise<RoomsStack> {
  await buildPages();
  const dir = mkdtempSync(join(tmpdir(), 'e2e-rooms-'));
  const apiKey = newToken();
  const captureUrl = 'http://127.0.0.1:9/';
  const ui = await startRelayUi({
    dir,
    rooms: { source: 'plenary', output: 'plenary-output' },
    relayEnv: {
      RELAY_DATA_DIR: join(dir, 'relay-data'),
      CAPTION_API_KEY: apiKey,
      CAPTION_LOCAL_ENV_FILE: join(dir, 'no-caption-local.env'),
    },
    uiEnv: { CAPTURE_URL: captureUrl, OUTPUTS_URL: '' },
  });
  try {
    await ui.ready();
  } catch (error) {
    await ui.stop();
    throw error;
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
    rooms: async () => (await call('rooms')).rooms as CaptionRoom[],
    create: async (name) =>
      (await call('rooms', { method: 'POST', body: JSON.stringify({ name }) })).room as CaptionRoom,
    async stop() {
      await ui.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
