/**
 * `docker compose up` for real (`pnpm test:containers`, after prepare.sh): every project image
 * built with the project's own command (`make build`), then the stack run twice on one Docker
 * engine, side by side - the local trial (`make local-secrets local-up`, reached through its
 * published ports) and production (`make secrets`, the README's compose command without Traefik,
 * whose image cannot be had here; the test plays Traefik from a container at its fixed address on
 * the edge network). The synthetic model (always says "test") is placed in each models volume and
 * the workers run with CAPTION_OFFLINE=1. `make down` of production must leave the local stack
 * running; at the end both go `down -v`, and nothing of theirs may remain.
 *
 * The stacks run from a copy of the working tree (tracked and unignored files), so that the
 * secrets and env files the operator's steps write never land in the checkout.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RelayPublisher, RelayReader, type SocketConstructor } from '@live-captions/relay-client';
import { parseEnvFile } from '@live-captions/runtime';
import { repoRoot } from '../deploy/helpers/compose.js';

const { WebSocket } = createRequire(join(repoRoot, 'packages/relay-client/package.json'))('ws') as {
  WebSocket: SocketConstructor;
};

const PROJECT = 'live-captions-ctest';
const LOCAL_PROJECT = `${PROJECT}-local`;
const IMAGES = ['worker', 'speech', 'relay', 'ui', 'calendar'] as const;
/** What runs in production here: everything but Traefik and its socket proxy (no image here). */
const PRODUCTION_SERVICES = ['redis', 'postgres', 'worker', 'speech', 'relay', 'ui', 'calendar'];
const HOSTS = {
  CERT_EMAIL: 'ops@ctest.example.org',
  CAPTURE_HOST: 'capture.ctest.example.org',
  RELAY_HOST: 'relay.ctest.example.org',
  UI_HOST: 'captions.ctest.example.org',
};
const TRAEFIK_ADDRESS = '172.30.240.2';
const EDGE_NETWORK = 'live-captions-edge';
const MODEL_FILE = 'ggml-synthetic-tiny.bin';
const NODE_IMAGE = 'node:24-bookworm-slim';
const LOCAL = {
  speech: 'http://127.0.0.1:8765',
  relay: 'http://127.0.0.1:8080',
  ui: 'http://127.0.0.1:8081',
};
const LOCAL_CALENDAR = 'http://127.0.0.1:8082/wp-json/cal/events/v1';
const CALENDAR_TOKEN = randomBytes(16).toString('hex');

const dockerCompose = (process.env.DOCKER_COMPOSE ?? detectCompose()).split(' ');
const work = mkdtempSync(join(tmpdir(), 'containers-'));
const figures: string[] = [];

function detectCompose(): string {
  return spawnSync('docker', ['compose', 'version']).status === 0 ? 'docker compose' : 'docker-compose';
}

function run(
  command: string,
  args: string[],
  options: { cwd?: string; input?: string } = {},
): SpawnSyncReturns<string> {
  return spawnSync(command, args, {
    cwd: options.cwd ?? work,
    encoding: 'utf8',
    input: options.input,
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, COREPACK_INTEGRITY_KEYS: '0', DOCKER_COMPOSE: dockerCompose.join(' ') },
  });
}

/** Runs and throws with the output when the command fails. */
function must(command: string, args: string[], options: { cwd?: string; input?: string } = {}): string {
  const result = run(command, args, options);
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

/** The README's compose command for a project: production, or local with its overlay. */
function composeArgs(local: boolean): string[] {
  return [
    ...dockerCompose.slice(1),
    '-p',
    local ? LOCAL_PROJECT : PROJECT,
    '--env-file',
    local ? 'compose/local.env' : '.env.production',
    '-f',
    'compose/compose.yaml',
    ...(local ? ['-f', 'compose/compose.local.yaml'] : []),
  ];
}
const compose = (local: boolean, args: string[]) => must(dockerCompose[0]!, [...composeArgs(local), ...args]);

/** A copy of the working tree: tracked files and untracked ones git does not ignore. */
function copyWorkingTree(): void {
  const files = must('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
  })
    .split('\0')
    .filter((file) => file && existsSync(join(repoRoot, file)));
  for (const file of files) {
    mkdirSync(dirname(join(work, file)), { recursive: true });
    copyFileSync(join(repoRoot, file), join(work, file));
  }
}

const projectContainers = (project: string, service?: string) =>
  must('docker', [
    'ps',
    '-aq',
    '--filter',
    `label=com.docker.compose.project=${project}`,
    ...(service ? ['--filter', `label=com.docker.compose.service=${service}`] : []),
  ])
    .split('\n')
    .filter(Boolean);

/** Waits until every container of the project is healthy; fails early on one that died. */
async function waitHealthy(project: string, count: number, timeoutMs = 6 * 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let states = '';
  while (Date.now() < deadline) {
    const ids = projectContainers(project);
    states = must('docker', [
      'inspect',
      '--format',
      '{{index .Config.Labels "com.docker.compose.service"}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}',
      ...ids,
    ]);
    const lines = states.trim().split('\n');
    const dead = lines.find((line) => / (exited|dead) /.test(`${line} `) || line.endsWith(' unhealthy'));
    if (dead) {
      const service = dead.split(' ')[0]!;
      const logs = run(dockerCompose[0]!, [
        ...composeArgs(project === LOCAL_PROJECT),
        'logs',
        '--tail=60',
        service,
      ]);
      throw new Error(`${project}: ${dead}\n${logs.stdout}${logs.stderr}`);
    }
    if (lines.length === count && lines.every((line) => line.endsWith(' healthy'))) return;
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }
  throw new Error(`${project} not healthy after ${timeoutMs / 1000} s:\n${states}`);
}

/** Puts the synthetic model into the project's models volume (created by `up --no-start`). */
function placeModel(project: string): void {
  must('docker', [
    'run',
    '--rm',
    '-v',
    `${project}_models:/models`,
    '-v',
    `${join(repoRoot, 'models')}:/src:ro`,
    'debian:bookworm-slim',
    'sh',
    '-c',
    `cp /src/${MODEL_FILE} /models/ && chown -R 1000:1000 /models`,
  ]);
}

/** The settings the test adds to an env file: the synthetic model, never downloaded. */
const MODEL_SETTINGS = `CAPTION_MODEL=/models/${MODEL_FILE}\nCAPTION_OFFLINE=1\n`;

/** The calendar writer's token: the operator's edit of calendar-tokens.json (kept uid 1000, 0640). */
function grantCalendarWriter(secretsDir: string): void {
  const file = join(secretsDir, 'calendar-tokens.json');
  writeFileSync(file, JSON.stringify({ [CALENDAR_TOKEN]: { user_id: 1, name: 'Ada', role: 'editor' } }));
  chownSync(file, 1000, 1000);
  chmodSync(file, 0o640);
}

/** `make secrets` as root: every file for the services belongs to uid 1000; the password to group 70. */
function checkSecretOwners(secretsDir: string): void {
  for (const file of [
    'relay.private.json',
    'relay-tokens.env',
    'caption-local.env',
    'calendar-tokens.json',
  ]) {
    const stat = statSync(join(secretsDir, file));
    expect([file, stat.uid, stat.gid, stat.mode & 0o777]).toEqual([file, 1000, 1000, 0o640]);
  }
  const password = statSync(join(secretsDir, 'postgres-password'));
  expect([password.uid, password.gid, password.mode & 0o777]).toEqual([1000, 70, 0o440]);
}

/** A mono 16 kHz 16-bit WAV of a 440 Hz tone (the synthetic model says "test" for any audio). */
function wav(seconds: number): Buffer {
  const samples = 16000 * seconds;
  const out = Buffer.alloc(44 + samples * 2);
  out.write('RIFF', 0);
  out.writeUInt32LE(36 + samples * 2, 4);
  out.write('WAVEfmt ', 8);
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(16000, 24);
  out.writeUInt32LE(32000, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36);
  out.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) {
    out.writeInt16LE(Math.round(0.3 * 32767 * Math.sin((2 * Math.PI * 440 * i) / 16000)), 44 + i * 2);
  }
  return out;
}

/** The multipart body of an OpenAI-style transcription request. */
function transcriptionBody(): { contentType: string; body: Buffer } {
  const boundary = `----ctest${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="clip.wav"\r\n` +
        'Content-Type: audio/wav\r\n\r\n',
    ),
    wav(2),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { contentType: `multipart/form-data; boundary=${boundary}`, body };
}

interface ProbeRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  bodyBase64?: string;
}
interface ProbeAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  error?: string;
}

/** Sends requests from a container on the edge network, at `address` (Traefik's) or any other. */
function probe(requests: ProbeRequest[], address?: string): ProbeAnswer[] {
  const out = must('docker', [
    'run',
    '--rm',
    '--network',
    EDGE_NETWORK,
    ...(address ? ['--ip', address] : []),
    '-v',
    `${join(work, 'e2e/containers/probe.mjs')}:/probe.mjs:ro`,
    NODE_IMAGE,
    'node',
    '/probe.mjs',
    JSON.stringify(requests),
  ]);
  return JSON.parse(out) as ProbeAnswer[];
}

/** What Traefik adds to a request it routes for `host`. */
const viaTraefik = (host: string, extra: Record<string, string> = {}) => ({
  Host: host,
  'X-Forwarded-Proto': 'https',
  'X-Forwarded-Host': host,
  'X-Forwarded-For': '203.0.113.7',
  ...extra,
});

/** A WebSocket upgrade request's answer status from the host (101, or the relay's refusal). */
function upgradeStatus(url: string, origin: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
        Origin: origin,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

const upgradeHeaders = (origin: string) => ({
  Connection: 'Upgrade',
  Upgrade: 'websocket',
  'Sec-WebSocket-Version': '13',
  'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
  Origin: origin,
});

const EVENT = { title: 'Container test', start_date: '2030-07-01 18:00:00', end_date: '2030-07-01 21:00:00' };
const PRODUCTION_EVENT = { ...EVENT, title: 'Container test (production)' };

/** The titles of the events in a stack's PostgreSQL container. */
const storedTitles = (local: boolean) =>
  compose(local, [
    'exec',
    '-T',
    'postgres',
    'psql',
    '-U',
    'calendar',
    '-d',
    'calendar',
    '-tAc',
    'select title from cal_events',
  ])
    .trim()
    .split('\n');

function cleanUp(): void {
  for (const local of [true, false]) {
    if (existsSync(join(work, local ? 'compose/local.env' : '.env.production'))) {
      run(dockerCompose[0]!, [...composeArgs(local), 'down', '-v', '--remove-orphans', '--timeout', '20']);
    }
  }
}

beforeAll(() => {
  copyWorkingTree();
  // Leftovers of an interrupted earlier run would make the stacks meet old state.
  cleanUp();
});

afterAll(() => {
  cleanUp();
  rmSync(work, { recursive: true, force: true });
  process.stdout.write(`\ncontainer test figures:\n${figures.map((line) => `  ${line}`).join('\n')}\n`);
});

const imageIds = (): Record<string, string> =>
  Object.fromEntries(
    IMAGES.map((image) => [
      image,
      must('docker', ['image', 'inspect', '--format', '{{.Id}}', `live-captions/${image}:latest`]).trim(),
    ]),
  );
/** The images as `make build` left them: what every later `make ... up` must reuse as they are. */
let built: Record<string, string> = {};

describe('the images', () => {
  it('build with `make build`, one at a time, on the current Node LTS', () => {
    expect(existsSync(join(repoRoot, 'models', MODEL_FILE))).toBe(true);
    for (const image of IMAGES) {
      const started = Date.now();
      must('make', ['build', `IMAGES=${image}`, `PROJECT=${LOCAL_PROJECT}`, 'ENV_FILE=compose/local.env']);
      const seconds = (Date.now() - started) / 1000;
      const bytes = Number(
        must('docker', ['image', 'inspect', '--format', '{{.Size}}', `live-captions/${image}:latest`]),
      );
      figures.push(`${image}: built in ${seconds.toFixed(0)} s, ${(bytes / 1e6).toFixed(0)} MB`);
      const node = must('docker', [
        'run',
        '--rm',
        '--entrypoint',
        'node',
        `live-captions/${image}:latest`,
        '--version',
      ]);
      expect([image, node.trim()]).toEqual([image, expect.stringMatching(/^v24\./)]);
      const user = must('docker', [
        'image',
        'inspect',
        '--format',
        '{{.Config.User}}',
        `live-captions/${image}:latest`,
      ]);
      expect([image, user.trim()]).toEqual([image, '1000:1000']);
    }
  });

  it('rebuild after a source change without compiling whisper.cpp again', () => {
    const before = imageIds();
    // Unique per run: the same change as an earlier run's would come from the cache entirely.
    const change = `// a change outside packages/whisper: ${randomBytes(8).toString('hex')}\n`;
    appendFileSync(join(work, 'services/worker/src/index.ts'), change);
    const started = Date.now();
    const output = must('make', [
      'build',
      'IMAGES=worker',
      `PROJECT=${LOCAL_PROJECT}`,
      'ENV_FILE=compose/local.env',
    ]);
    figures.push(`worker: rebuilt after a source change in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    expect(imageIds().worker).not.toBe(before.worker);
    expect(output).not.toContain('building whisper addon');
    expect(output).toContain('whisper addon is up to date');
    // The other images take the whole tree as their context too: bring them up to date.
    must('make', ['build', `PROJECT=${LOCAL_PROJECT}`, 'ENV_FILE=compose/local.env']);
    built = imageIds();
  });
});

describe('the local trial (make local-secrets local-up)', () => {
  let apiKey: string;

  beforeAll(async () => {
    must('make', ['local-secrets']);
    grantCalendarWriter(join(work, 'secrets/local'));
    appendFileSync(join(work, 'compose/local.env'), MODEL_SETTINGS);
    compose(true, ['up', '--no-start']);
    placeModel(LOCAL_PROJECT);
    const started = Date.now();
    must('make', ['local-up', `PROJECT=${PROJECT}`]);
    await waitHealthy(LOCAL_PROJECT, 7);
    // `make local-up` builds first: with the operator's files (env, secrets) changed and no source
    // change, every layer comes from the cache.
    expect(imageIds()).toEqual(built);
    figures.push(`local stack: up and healthy in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    apiKey = parseEnvFile(readFileSync(join(work, 'secrets/local/caption-local.env'), 'utf8'))
      .CAPTION_API_KEY!;
  });

  it('writes secrets/local/ owned by uid 1000, apart from production’s secrets/', () => {
    checkSecretOwners(join(work, 'secrets/local'));
    expect(existsSync(join(work, 'secrets/relay.private.json'))).toBe(false);
  });

  it('runs each container with its memory limit, Redis with maxmemory, and project-scoped volumes', () => {
    const [worker] = projectContainers(LOCAL_PROJECT, 'worker');
    const memory = must('docker', ['inspect', '--format', '{{.HostConfig.Memory}}', worker!]);
    expect(Number(memory)).toBe(3 * 1024 ** 3);
    // Redis refuses writes past maxmemory instead of evicting BullMQ's keys.
    const redis = compose(true, ['exec', '-T', 'redis', 'redis-cli', 'config', 'get', 'maxmemory*']);
    expect(redis.split('\n').map((line) => line.trim())).toEqual(
      expect.arrayContaining(['maxmemory', String(256 * 1024 ** 2), 'maxmemory-policy', 'noeviction']),
    );
    const volumes = must('docker', [
      'volume',
      'ls',
      '-q',
      '--filter',
      `label=com.docker.compose.project=${LOCAL_PROJECT}`,
    ]);
    expect(volumes.split('\n').filter(Boolean).sort()).toEqual(
      ['models', 'postgres-data', 'redis-data', 'acme'].map((name) => `${LOCAL_PROJECT}_${name}`).sort(),
    );
  });

  it('speech: /health wants the token and reports the worker’s model', async () => {
    expect((await fetch(`${LOCAL.speech}/health`)).status).toBe(401);
    const health = await fetch(`${LOCAL.speech}/health`, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(health.status).toBe(200);
    expect(JSON.stringify(await health.json())).toContain('synthetic');
  });

  it('speech: a /v1 transcription goes through Redis to the worker container', async () => {
    const { contentType, body } = transcriptionBody();
    const response = await fetch(`${LOCAL.speech}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': contentType },
      body: new Uint8Array(body),
    });
    expect(response.status).toBe(200);
    // Decoded by the worker container: the speech image has no whisper.cpp addon at all.
    expect(((await response.json()) as { text: string }).text.trim().toLowerCase()).toContain('test');
  });

  it('speech: serves the capture page', async () => {
    const page = await fetch(`${LOCAL.speech}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('relay: refuses foreign origins, and a caption goes from a publisher to a reader', async () => {
    expect(await upgradeStatus(`${LOCAL.relay}/ws`, 'https://evil.example')).toBe(403);
    expect(await upgradeStatus(`${LOCAL.relay}/ws`, 'http://localhost:8081')).toBe(101);
    const config = await fetch(`${LOCAL.speech}/relay-config`, {
      headers: { Authorization: `Bearer ${apiKey}`, Origin: 'http://localhost:8081' },
    });
    expect(config.status).toBe(200);
    const relay = (await config.json()) as {
      relayUrl: string;
      sourceRoom: string;
      sourceReadToken: string;
      sourceWriteToken: string;
    };
    expect(relay.relayUrl).toMatch(/^ws:\/\/localhost:8080(\/ws)?$/);
    const url = 'ws://127.0.0.1:8080/ws';
    const received: string[] = [];
    const reader = new RelayReader({
      url,
      room: relay.sourceRoom,
      token: relay.sourceReadToken,
      WebSocket,
      onCaption: (caption) => {
        if ('final' in caption && caption.final) received.push(caption.final);
      },
    });
    const publisher = new RelayPublisher({
      url,
      room: relay.sourceRoom,
      token: relay.sourceWriteToken,
      WebSocket,
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(publisher.publish({ final: 'from the container test', id: 1 })).toBe(true);
      const deadline = Date.now() + 10_000;
      while (received.length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(received).toEqual(['from the container test']);
    } finally {
      reader.close();
      publisher.close();
    }
  });

  it('ui: the home page (links hub) and /site-config.js', async () => {
    const home = await fetch(`${LOCAL.ui}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('<title>Links · Live captions</title>');
    const site = await (await fetch(`${LOCAL.ui}/site-config.js`)).text();
    expect(site).toContain('"relayUrl":"ws://localhost:8080/ws"');
    expect(site).toContain('"captureUrl":"http://localhost:8765/"');
  });

  it('calendar: migrated, and a write is read back from the PostgreSQL container', async () => {
    const created = await fetch(`${LOCAL_CALENDAR}/events`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${CALENDAR_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(EVENT),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const read = await fetch(`${LOCAL_CALENDAR}/events/${id}`);
    expect(((await read.json()) as { title: string }).title).toBe(EVENT.title);
    const rows = compose(true, [
      'exec',
      '-T',
      'postgres',
      'psql',
      '-U',
      'calendar',
      '-d',
      'calendar',
      '-tAc',
      `select (select count(*) from cal_migrations) > 0, (select title from cal_events where id = ${id})`,
    ]);
    expect(rows.trim()).toBe(`t|${EVENT.title}`);
  });
});

describe('production (make secrets, compose without Traefik) beside the local trial', () => {
  let apiKey: string;

  beforeAll(async () => {
    copyFileSync(join(work, '.env.production.example'), join(work, '.env.production'));
    // The tracked example names no host: both the secrets and the composition stop on it.
    const secrets = run('make', ['secrets']);
    expect(secrets.status).not.toBe(0);
    expect(`${secrets.stdout}${secrets.stderr}`).toContain('CAPTURE_HOST is missing');
    const config = run(dockerCompose[0]!, [...composeArgs(false), 'config']);
    expect(config.status).not.toBe(0);
    expect(config.stderr).toMatch(/(CERT_EMAIL|CAPTURE_HOST|RELAY_HOST|UI_HOST) is missing/);

    let env = readFileSync(join(work, '.env.production'), 'utf8');
    for (const [key, value] of Object.entries(HOSTS))
      env = env.replace(new RegExp(`^${key}=$`, 'm'), `${key}=${value}`);
    writeFileSync(join(work, '.env.production'), env + MODEL_SETTINGS);
    must('make', ['secrets']);
    grantCalendarWriter(join(work, 'secrets'));
    compose(false, ['up', '--no-start', ...PRODUCTION_SERVICES]);
    placeModel(PROJECT);
    const started = Date.now();
    compose(false, ['up', '-d', ...PRODUCTION_SERVICES]);
    await waitHealthy(PROJECT, PRODUCTION_SERVICES.length);
    figures.push(`production stack: up and healthy in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    apiKey = parseEnvFile(readFileSync(join(work, 'secrets/caption-local.env'), 'utf8')).CAPTION_API_KEY!;
  });

  it('writes secrets/ owned by uid 1000 with the production origins', () => {
    checkSecretOwners(join(work, 'secrets'));
    const relay = readFileSync(join(work, 'secrets/relay.private.json'), 'utf8');
    expect(relay).toContain(`https://${HOSTS.UI_HOST}`);
    expect(relay).toContain(`https://${HOSTS.CAPTURE_HOST}`);
  });

  it('speech behind Traefik: capture page, token-checked health, relay settings for UI_HOST, a /v1 transcription', () => {
    const { contentType, body } = transcriptionBody();
    const [page, noToken, health, relayConfig, transcription] = probe(
      [
        { url: 'http://speech:8765/', headers: viaTraefik(HOSTS.CAPTURE_HOST) },
        { url: 'http://speech:8765/health', headers: viaTraefik(HOSTS.CAPTURE_HOST) },
        {
          url: 'http://speech:8765/health',
          headers: viaTraefik(HOSTS.CAPTURE_HOST, { Authorization: `Bearer ${apiKey}` }),
        },
        {
          url: 'http://speech:8765/relay-config',
          headers: viaTraefik(HOSTS.CAPTURE_HOST, {
            Authorization: `Bearer ${apiKey}`,
            Origin: `https://${HOSTS.UI_HOST}`,
          }),
        },
        {
          method: 'POST',
          url: 'http://speech:8765/v1/audio/transcriptions',
          headers: viaTraefik(HOSTS.CAPTURE_HOST, {
            Authorization: `Bearer ${apiKey}`,
            'Content-Type': contentType,
          }),
          bodyBase64: body.toString('base64'),
        },
      ],
      TRAEFIK_ADDRESS,
    );
    expect([page!.status, page!.headers['content-type']]).toEqual([200, expect.stringMatching(/text\/html/)]);
    expect(noToken!.status).toBe(401);
    expect(health!.status).toBe(200);
    expect(relayConfig!.status).toBe(200);
    expect(relayConfig!.headers['access-control-allow-origin']).toBe(`https://${HOSTS.UI_HOST}`);
    const relay = JSON.parse(relayConfig!.body) as { relayUrl: string; links: { overlay: string } };
    expect(relay.relayUrl).toMatch(new RegExp(`^wss://${HOSTS.RELAY_HOST.replace(/\./g, '\\.')}(/ws)?$`));
    expect(relay.links.overlay.startsWith(`https://${HOSTS.UI_HOST}/overlay.html#`)).toBe(true);
    expect(transcription!.status).toBe(200);
    expect((JSON.parse(transcription!.body) as { text: string }).text.toLowerCase()).toContain('test');
  });

  it('relay behind Traefik: the production origins pass, others are refused', () => {
    const [ui, capture, foreign] = probe(
      [`https://${HOSTS.UI_HOST}`, `https://${HOSTS.CAPTURE_HOST}`, 'https://evil.example'].map((origin) => ({
        url: 'http://relay:8080/ws',
        headers: { ...viaTraefik(HOSTS.RELAY_HOST), ...upgradeHeaders(origin) },
      })),
      TRAEFIK_ADDRESS,
    );
    expect([ui!.status, capture!.status, foreign!.status]).toEqual([101, 101, 403]);
  });

  it('ui behind Traefik: the links hub and /site-config.js with the public addresses', () => {
    const [home, site] = probe(
      [
        { url: 'http://ui:8081/', headers: viaTraefik(HOSTS.UI_HOST) },
        { url: 'http://ui:8081/site-config.js', headers: viaTraefik(HOSTS.UI_HOST) },
      ],
      TRAEFIK_ADDRESS,
    );
    expect(home!.status).toBe(200);
    expect(home!.body).toContain('<title>Links · Live captions</title>');
    expect(site!.body).toContain(`"relayUrl":"wss://${HOSTS.RELAY_HOST}"`);
    expect(site!.body).toContain(`"captureUrl":"https://${HOSTS.CAPTURE_HOST}/"`);
  });

  it('calendar behind Traefik: a write on PostgreSQL, read back with https:// links', () => {
    const base = 'http://calendar:8082/wp-json/cal/events/v1';
    const [created] = probe(
      [
        {
          method: 'POST',
          url: `${base}/events`,
          headers: viaTraefik(HOSTS.UI_HOST, {
            Authorization: `Bearer ${CALENDAR_TOKEN}`,
            'Content-Type': 'application/json',
          }),
          body: JSON.stringify(PRODUCTION_EVENT),
        },
      ],
      TRAEFIK_ADDRESS,
    );
    expect(created!.status).toBe(201);
    const { id } = JSON.parse(created!.body) as { id: number };
    const [read, list] = probe(
      [
        { url: `${base}/events/${id}`, headers: viaTraefik(HOSTS.UI_HOST) },
        { url: `${base}/events`, headers: viaTraefik(HOSTS.UI_HOST) },
      ],
      TRAEFIK_ADDRESS,
    );
    const api = `https://${HOSTS.UI_HOST}/wp-json/cal/events/v1`;
    expect(JSON.parse(read!.body)).toMatchObject({
      title: PRODUCTION_EVENT.title,
      rest_url: `${api}/events/${id}`,
    });
    expect((JSON.parse(list!.body) as { rest_url: string }).rest_url.startsWith(`${api}/events`)).toBe(true);
    expect(storedTitles(false)).toEqual([PRODUCTION_EVENT.title]);
    // The forwarded scheme is believed from Traefik's address only.
    const [other] = probe([{ url: `${base}/events/${id}`, headers: viaTraefik(HOSTS.UI_HOST) }]);
    expect((JSON.parse(other!.body) as { rest_url: string }).rest_url).toBe(
      `http://${HOSTS.UI_HOST}/wp-json/cal/events/v1/events/${id}`,
    );
  });

  it('keeps its own volumes and edge network: neither stack sees the other’s writes', () => {
    expect(storedTitles(true)).toEqual([EVENT.title]);
    expect(storedTitles(false)).toEqual([PRODUCTION_EVENT.title]);
    const networks = must('docker', ['network', 'ls', '--format', '{{.Name}}']).split('\n');
    expect(networks).toContain(EDGE_NETWORK);
    expect(networks).toContain('live-captions-local-edge');
    const volumes = must('docker', [
      'volume',
      'ls',
      '-q',
      '--filter',
      `label=com.docker.compose.project=${PROJECT}`,
    ]);
    expect(volumes).toContain(`${PROJECT}_postgres-data`);
  });

  it('`make down` stops production and leaves the local stack running', async () => {
    const started = Date.now();
    must('make', ['down', `PROJECT=${PROJECT}`]);
    figures.push(`make down (production): ${((Date.now() - started) / 1000).toFixed(0)} s`);
    expect(projectContainers(PROJECT)).toEqual([]);
    expect((await fetch(`${LOCAL.ui}/`)).status).toBe(200);
    // The volumes outlive `make down` (the README's promise); `down -v` below removes them.
    const volumes = must('docker', [
      'volume',
      'ls',
      '-q',
      '--filter',
      `label=com.docker.compose.project=${PROJECT}`,
    ]);
    expect(volumes).toContain(`${PROJECT}_postgres-data`);
  });

  it('`make local-down`, then `down -v`, leave nothing of either stack', () => {
    must('make', ['local-down', `PROJECT=${PROJECT}`]);
    expect(projectContainers(LOCAL_PROJECT)).toEqual([]);
    cleanUp();
    for (const project of [PROJECT, LOCAL_PROJECT]) {
      for (const kind of ['volume', 'network']) {
        const left = must('docker', [
          kind,
          'ls',
          '-q',
          '--filter',
          `label=com.docker.compose.project=${project}`,
        ]);
        expect([project, kind, left.trim()]).toEqual([project, kind, '']);
      }
    }
  });
});
