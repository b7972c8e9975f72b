/**
 * Everything `pnpm bench conference` runs, as real processes from source: a private PostgreSQL
 * (the outputs' and the sources' databases), the relay with a rooms store (RELAY_DATA_DIR) and the
 * service access token, the speech gateway (the service on the synthetic model, or the
 * instant-engine stand-in), the sources service, the outputs service, a real Apertium APy and a
 * private nginx-rtmp the publishers send to. Rooms are made through the relay's `POST /rooms`;
 * sources and outputs find them by polling the relay's `GET /rooms`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CaptionRoom } from '@live-captions/protocol';
import {
  type ApertiumServer,
  callApi,
  freePort,
  GATEWAY_ENTRY,
  gatewayPort,
  killAll,
  type PostgresCluster,
  postgresBinDir,
  type ServiceProcess,
  startApertium,
  startPostgresCluster,
  startServiceProcess,
} from '@live-captions/test-services';
import { commandPid } from './procs.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const RELAY_ENTRY = join(root, 'services/relay/src/index.ts');
const SOURCES_ENTRY = join(root, 'services/sources/src/index.ts');
const OUTPUTS_ENTRY = join(root, 'services/outputs/src/index.ts');
const INSTANT_GATEWAY = fileURLToPath(new URL('./instant-gateway.ts', import.meta.url));

export const API_KEY = 'conference-bench-key-0123456789abcdef';
/** (b)'s model: the realistic-length synthetic tiny (about 2.5 tokens per second of audio). */
export const DEFAULT_MODEL = 'ggml-synthetic-tiny-speech.bin';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await Promise.resolve(probe()).catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

async function portOf(proc: ServiceProcess, message: RegExp): Promise<number> {
  await until(
    `${message} in the log`,
    () => {
      if (proc.child.exitCode !== null) throw new Error(`exited:\n${proc.output().slice(-3000)}`);
      return proc.logLines(message).length > 0;
    },
    120_000,
  ).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}\n${proc.output().slice(-3000)}`);
  });
  return Number(proc.logLines(message)[0]?.port);
}

export type EngineKind = 'instant' | 'model';

export interface Conference {
  engine: EngineKind;
  relayPort: number;
  relayWs: string;
  gatewayUrl: string;
  sourcesPort: number;
  outputsPort: number;
  mediaPort: number;
  /** nginx's HTTP port serving each stream as HLS at `/hls/<stream>.m3u8`. */
  hlsPort: number;
  /** The measured services: name -> root pid (its tree is counted). */
  services(): Record<string, number>;
  createRoom(id: string, name: string): Promise<CaptionRoom>;
  deleteRoom(id: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startConference(options: {
  engine: EngineKind;
  maxRooms: number;
  /** Decode slots of the model gateway (CAPTION_WORKERS) and threads per slot. */
  slots: number;
  threads: number;
  /** A file of models/ for the model gateway; {@link DEFAULT_MODEL} by default. */
  model?: string;
  /** The relay's rooms store: PGlite in RELAY_DATA_DIR (`pnpm start`'s), or PostgreSQL (the compositions'). */
  relayStore?: 'pglite' | 'postgres';
}): Promise<Conference> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-conference-'));
  const relayConfig = join(dir, 'relay.private.json');
  // The file must name a room; it stays unused: every caption room of the run is made through
  // the rooms API.
  const unused = {
    read: 'unusedRead_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    write: 'unusedWrite_bbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
  };
  writeFileSync(
    relayConfig,
    JSON.stringify({ origins: ['http://localhost:8081'], rooms: { lobby: unused } }),
  );
  const procs: ServiceProcess[] = [];
  let postgres: PostgresCluster | undefined;
  let apertium: ApertiumServer | undefined;
  let media: MediaServer | undefined;
  const stop = async () => {
    await killAll(procs.reverse());
    await apertium?.stop().catch(() => undefined);
    await media?.stop();
    await postgres?.destroy();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    postgres = await startPostgresCluster();
    // The sources' database beside the outputs' (each runs its own migrations).
    for (const db of ['sources', 'relay'])
      execFileSync(join(postgresBinDir()!, 'createdb'), [
        '-h',
        '127.0.0.1',
        '-p',
        String(postgres.port),
        '-U',
        'postgres',
        db,
      ]);
    const pgPid = commandPid(['-p', String(postgres.port)], /postgres$/);
    apertium = await startApertium();
    media = await startMediaServer(join(dir, 'nginx'));

    const relay = startServiceProcess(RELAY_ENTRY, {
      CAPTION_RELAY_CONFIG: relayConfig,
      RELAY_PORT: '0',
      ...(options.relayStore === 'postgres'
        ? { DATABASE_URL: postgres.url('relay') }
        : { RELAY_DATA_DIR: join(dir, 'relay') }),
      CAPTION_API_KEY: API_KEY,
    });
    procs.push(relay);
    const relayPort = await portOf(relay, /^relay listening$/);
    const relayWs = `ws://127.0.0.1:${relayPort}/ws`;

    const streams = String(Math.min(256, options.maxRooms + 8));
    const gateway =
      options.engine === 'instant'
        ? startServiceProcess(INSTANT_GATEWAY, { CAPTION_API_KEY: API_KEY, CAPTION_MAX_STREAMS: streams })
        : startServiceProcess(GATEWAY_ENTRY, {
            CAPTION_MODEL: join(root, 'models', options.model ?? DEFAULT_MODEL),
            CAPTION_API_KEY: API_KEY,
            CAPTION_MAX_STREAMS: streams,
            CAPTION_WORKERS: String(options.slots),
            CAPTION_THREADS: String(options.threads),
          });
    procs.push(gateway);
    const gatewayUrl = `http://127.0.0.1:${await gatewayPort(gateway, 120_000)}`;
    await until(
      'the gateway ready',
      async () =>
        (await fetch(`${gatewayUrl}/health`, { headers: { authorization: `Bearer ${API_KEY}` } })).ok,
      120_000,
    );

    const common = { RELAY_URL: relayWs, CAPTION_RELAY_CONFIG: relayConfig, CAPTION_API_KEY: API_KEY };
    const sources = startServiceProcess(SOURCES_ENTRY, {
      ...common,
      SOURCES_PORT: '0',
      CAPTION_URL: gatewayUrl,
      DATABASE_URL: postgres.url('sources'),
      SOURCES_MAX_PER_NODE: String(Math.min(256, options.maxRooms + 4)),
      SOURCES_RTMP_PORT: '0',
      SOURCES_ALLOWED_HOSTS: '127.0.0.1',
      SOURCES_PUBLIC_HOST: '127.0.0.1',
    });
    procs.push(sources);
    const outputs = startServiceProcess(OUTPUTS_ENTRY, {
      ...common,
      OUTPUTS_PORT: '0',
      DATABASE_URL: postgres.url(),
      OUTPUTS_DATA_DIR: join(dir, 'outputs'),
      OUTPUTS_APERTIUM_URL: apertium.url,
    });
    procs.push(outputs);
    // At their default log level (info), as they run in production: logging is part of the cost.
    const sourcesPort = await portOf(sources, /^sources listening$/);
    const outputsPort = await portOf(outputs, /^outputs listening$/);

    const relayApi = (method: string, path: string, body?: unknown) =>
      callApi(relayPort, method, path, API_KEY, body);
    const apy = apertium;
    return {
      engine: options.engine,
      relayPort,
      relayWs,
      gatewayUrl,
      sourcesPort,
      outputsPort,
      mediaPort: media.port,
      hlsPort: media.hlsPort,
      services: () => ({
        relay: relay.child.pid!,
        gateway: gateway.child.pid!,
        sources: sources.child.pid!,
        outputs: outputs.child.pid!,
        postgres: pgPid ?? 0,
        apertium: apy.running ? (commandPid(['-p', String(apy.port)]) ?? 0) : 0,
      }),
      async createRoom(id, name) {
        const res = await relayApi('POST', '/rooms', { id, name });
        if (res.status !== 201) throw new Error(`POST /rooms ${id}: ${res.status} ${res.text}`);
        return (res.json as { room: CaptionRoom }).room;
      },
      async deleteRoom(id) {
        await relayApi('DELETE', `/rooms/${id}`);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface MediaServer {
  port: number;
  hlsPort: number;
  stop(): Promise<void>;
}

/**
 * A private nginx with the RTMP module (Debian's), as the sources tests run it, that also cuts
 * every stream into HLS (1 s fragments) and serves it over HTTP: the two kinds of address a
 * conference's streams come from.
 */
async function startMediaServer(dir: string): Promise<MediaServer> {
  mkdirSync(join(dir, 'logs'), { recursive: true });
  mkdirSync(join(dir, 'hls'));
  const port = await freePort();
  const hlsPort = await freePort();
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      'load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;',
      'daemon off;',
      'master_process off;',
      `pid ${join(dir, 'nginx.pid')};`,
      'error_log stderr warn;',
      'events { worker_connections 1024; }',
      `rtmp { server { listen 127.0.0.1:${port}; application live { live on; record off;`,
      `  hls on; hls_path ${join(dir, 'hls')}; hls_fragment 1s; hls_playlist_length 6s; } } }`,
      `http { access_log off; server { listen 127.0.0.1:${hlsPort}; location /hls/ { root ${dir};`,
      '  types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; } add_header Cache-Control no-cache; } } }',
    ].join('\n'),
  );
  const child = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', 'stderr'], {
    stdio: 'ignore',
    env: { PATH: `${process.env.PATH}:/usr/sbin:/sbin` },
  });
  await sleep(500);
  if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode})`);
  return {
    port,
    hlsPort,
    async stop() {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
