/**
 * The outputs service in-process on PGlite (no DATABASE_URL), as the API suites call it with
 * supertest: the rooms of the test relay configuration, a relay address nobody listens on (the
 * readers stay `connecting`, which the API must not mind), its debug log lines captured; and, for
 * the translation API, a real Apertium APy and the strict LibreTranslate and DeepL stand-ins.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRelayRooms } from '@live-captions/relay-client/node';
import { createLogger } from '@live-captions/runtime';
import {
  type ApertiumServer,
  type DeepLStandIn,
  type LibreTranslateStandIn,
  type LogCapture,
  startApertium,
  startDeepLStandIn,
  startLibreTranslateStandIn,
} from '@live-captions/test-services';
import { createOutputs, type Outputs } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { relayConfigFile } from './index.js';

/** The editor's origin, the one the API suites allow. */
export const ORIGIN = 'http://localhost:8081';

export const as = (token: string) => ({ Authorization: `Bearer ${token}` });

export interface App {
  outputs: Outputs;
  close(): Promise<void>;
}

/** The service with `env` over the defaults above, logging into `logs`. */
export async function startApp(logs: LogCapture, env: Record<string, string> = {}): Promise<App> {
  const dataDir = mkdtempSync(join(tmpdir(), 'outputs-pglite-'));
  const configPath = relayConfigFile();
  const config = loadConfig({
    CAPTION_RELAY_CONFIG: configPath,
    OUTPUTS_DATA_DIR: dataDir,
    RELAY_URL: 'ws://127.0.0.1:9/ws',
    OUTPUTS_ALLOWED_ORIGINS: ORIGIN,
    ...env,
  });
  const rooms = readRelayRooms(configPath);
  const outputs = await createOutputs(
    config,
    createLogger('outputs', { level: 'debug' }, logs.stream),
    () => rooms,
  );
  return {
    outputs,
    async close() {
      await outputs.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const LIBRE_KEY = 'libre-SECRET-key-5678abcd';
export const DEEPL_KEY = 'deepl-SECRET-0000-1111-2222:fx';

export interface Engines {
  apy: ApertiumServer;
  libre: LibreTranslateStandIn;
  deepl: DeepLStandIn;
  /** What the service needs to reach them (allowed hosts, Apertium's address, a short timeout). */
  env: Record<string, string>;
  /** Every breach of their platform's contract the stand-ins recorded. */
  violations(): unknown[];
  stop(): Promise<void>;
}

export async function startEngines(): Promise<Engines> {
  const [apy, libre, deepl] = await Promise.all([
    startApertium(),
    startLibreTranslateStandIn({ apiKey: LIBRE_KEY, requireKey: true }),
    startDeepLStandIn({ key: DEEPL_KEY }),
  ]);
  return {
    apy,
    libre,
    deepl,
    env: {
      OUTPUTS_ALLOWED_HOSTS: `${libre.hostPort},${deepl.hostPort}`,
      OUTPUTS_APERTIUM_URL: apy.url,
      OUTPUTS_TRANSLATION_TIMEOUT_MS: '1500',
    },
    violations: () => [...libre.violations, ...deepl.violations],
    async stop() {
      await Promise.all([apy.stop(), libre.close(), deepl.close()]);
    },
  };
}
