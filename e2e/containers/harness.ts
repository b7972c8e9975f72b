/**
 * The Docker side of the container test: the working-tree copy the stacks run from, the README's
 * compose commands for both projects, waiting for health, and the operator's steps the test plays
 * (placing the model, granting the calendar writer).
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { expect } from '@jest/globals';
import { parseEnvFile } from '@live-captions/runtime';
import { modelsDir, sileroModel } from '@live-captions/test-services/fixtures';
import { repoRoot } from '../deploy/helpers/compose.js';

export { repoRoot };
export const PROJECT = 'live-captions-ctest';
export const LOCAL_PROJECT = `${PROJECT}-local`;
export const IMAGES = [
  'worker',
  'speech',
  'relay',
  'ui',
  'calendar',
  'outputs',
  'sources',
  'apertium',
] as const;
/** The images of Node services (all but Apertium's, which is Debian's Python APy). */
export const NODE_IMAGES: readonly string[] = IMAGES.filter((image) => image !== 'apertium');
/** What runs in production here: everything but Traefik and its socket proxy (no image here). */
export const PRODUCTION_SERVICES = [
  'redis',
  'postgres',
  'worker',
  'speech',
  'relay',
  'ui',
  'calendar',
  'outputs',
  'sources',
  'apertium',
];
export const MODEL_FILE = 'ggml-synthetic-tiny.bin';
export const CALENDAR_TOKEN = randomBytes(16).toString('hex');

const dockerCompose = (process.env.DOCKER_COMPOSE ?? detectCompose()).split(' ');
/** The copy of the working tree both stacks run from. */
export const work = mkdtempSync(join(tmpdir(), 'containers-'));
/** Build and start-up times, printed at the end of the run. */
export const figures: string[] = [];

function detectCompose(): string {
  return spawnSync('docker', ['compose', 'version']).status === 0 ? 'docker compose' : 'docker-compose';
}

export function run(
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
export function must(
  command: string,
  args: string[],
  options: { cwd?: string; input?: string } = {},
): string {
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
/** The compose command, without failing on a non-zero exit. */
export const tryCompose = (local: boolean, args: string[]) =>
  run(dockerCompose[0]!, [...composeArgs(local), ...args]);
export const compose = (local: boolean, args: string[]) =>
  must(dockerCompose[0]!, [...composeArgs(local), ...args]);

/** One query in a stack's PostgreSQL container, as psql's unaligned output. */
export const psql = (local: boolean, sql: string) =>
  compose(local, ['exec', '-T', 'postgres', 'psql', '-U', 'calendar', '-d', 'calendar', '-tAc', sql]).trim();

/** The titles of the events in a stack's PostgreSQL container. */
export const storedTitles = (local: boolean) => psql(local, 'select title from cal_events').split('\n');

/** A copy of the working tree: tracked files and untracked ones git does not ignore. */
export function copyWorkingTree(): void {
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

/** Ids of the project's containers (of one service), running or not. */
export const projectContainers = (project: string, service?: string) =>
  projectObjects('container', project, service);

/** Ids or names of the project's containers, volumes or networks, from compose's labels. */
export const projectObjects = (kind: 'container' | 'volume' | 'network', project: string, service?: string) =>
  must('docker', [
    ...(kind === 'container' ? ['ps', '-aq'] : [kind, 'ls', '-q']),
    '--filter',
    `label=com.docker.compose.project=${project}`,
    ...(service ? ['--filter', `label=com.docker.compose.service=${service}`] : []),
  ])
    .split('\n')
    .filter(Boolean);

/** Waits until every container of the project is healthy; fails early on one that died. */
export async function waitHealthy(project: string, count: number, timeoutMs = 6 * 60_000): Promise<void> {
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
      const logs = tryCompose(project === LOCAL_PROJECT, ['logs', '--tail=60', service]);
      throw new Error(`${project}: ${dead}\n${logs.stdout}${logs.stderr}`);
    }
    if (lines.length === count && lines.every((line) => line.endsWith(' healthy'))) return;
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }
  throw new Error(`${project} not healthy after ${timeoutMs / 1000} s:\n${states}`);
}

/**
 * Puts the synthetic model and the Silero VAD (the gateway's, for /v1/realtime; the official file,
 * SHA-1 checked by the gateway) into the project's models volume (created by `up --no-start`).
 */
export function placeModel(project: string): void {
  must('docker', [
    'run',
    '--rm',
    '-v',
    `${project}_models:/models`,
    '-v',
    `${join(repoRoot, 'models')}:/src:ro`,
    '-v',
    `${modelsDir}:/fixtures:ro`,
    'debian:bookworm-slim',
    'sh',
    '-c',
    `cp /src/${MODEL_FILE} /models/ && cp /fixtures/${basename(sileroModel())} /models/ggml-silero-v6.2.0.bin && chown -R 1000:1000 /models`,
  ]);
}

/** The settings the test adds to an env file: the synthetic model, never downloaded. */
export const MODEL_SETTINGS = `CAPTION_MODEL=/models/${MODEL_FILE}\nCAPTION_OFFLINE=1\n`;

/** The calendar writer's token: the operator's edit of calendar-tokens.json (kept uid 1000, 0640). */
export function grantCalendarWriter(secretsDir: string): void {
  const file = join(secretsDir, 'calendar-tokens.json');
  writeFileSync(file, JSON.stringify({ [CALENDAR_TOKEN]: { user_id: 1, name: 'Ada', role: 'editor' } }));
  chownSync(file, 1000, 1000);
  chmodSync(file, 0o640);
}

/** `make secrets` as root: every file for the services belongs to uid 1000; the password to group 70. */
export function checkSecretOwners(secretsDir: string): void {
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

/** The speech API key the secrets step wrote into a secrets folder. */
export const apiKeyIn = (secretsDir: string) =>
  parseEnvFile(readFileSync(join(secretsDir, 'caption-local.env'), 'utf8')).CAPTION_API_KEY!;

/** Both stacks down with their volumes, where their env file exists. */
export function cleanUp(): void {
  for (const local of [true, false]) {
    if (existsSync(join(work, local ? 'compose/local.env' : '.env.production'))) {
      tryCompose(local, ['down', '-v', '--remove-orphans', '--timeout', '20']);
    }
  }
}

/** The image ids of the project's images now. */
export const imageIds = (): Record<string, string> =>
  Object.fromEntries(
    IMAGES.map((image) => [
      image,
      must('docker', ['image', 'inspect', '--format', '{{.Id}}', `live-captions/${image}:latest`]).trim(),
    ]),
  );
