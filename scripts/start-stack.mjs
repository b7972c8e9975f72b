#!/usr/bin/env node
// `pnpm start`: the whole stack on one machine with embedded defaults, no Docker. Builds what
// changed (scripts/build.mjs; nothing when nothing did), generates the local secrets once (never
// overwriting), downloads a missing official model with the progress bar of `pnpm model`, then
// runs each built service as a child process, each on its port setting (scripts/start-ports.mjs:
// one setting per port, the addresses and origins following a moved one). With REDIS_URL set, a
// separate inference worker takes the jobs. Workspace packages are imported by name once built
// (their `dist`). Apertium APy (the outputs service's translation engine) runs beside them on
// 127.0.0.1:2737 (APERTIUM_PORT) when Debian's `apertium-apy` is installed; without it one line
// says how to install it.
//
// On a terminal the services' JSON log lines are shown as coloured readable lines (pino-pretty)
// and, once every service answers and the model is loaded, a short summary says what to open.
// Otherwise (piped, redirected, CI) stdout carries the services' JSON lines untouched, one per
// line, and everything else (build output, non-JSON lines) goes to stderr.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apertiumCommand } from '@live-captions/apertium';
import { build, run } from './build.mjs';
import { answersOk, apertiumPlan } from './start-checks.mjs';
import { serviceLines } from './start-lines.mjs';
import { serviceEnv, stackPorts } from './start-ports.mjs';
import { modelHelp, readyText } from './start-text.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const started = performance.now();
const tty = Boolean(process.stdout.isTTY);
const SECRETS_DIR = join(root, 'secrets');

const ansi = (code) => (text) => (tty ? `\x1b[${code}m${text}\x1b[0m` : text);
const bold = ansi('1');
const dim = ansi('2');

/** Lines of this script: on the terminal with the services, else on stderr (stdout is JSON). */
const say = (text) => (tty ? console.log(text) : console.error(text));
const seconds = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;

// Every port, one setting each (scripts/start-ports.mjs): checked before anything is built.
let ports;
try {
  ports = stackPorts(process.env);
} catch (error) {
  say(`pnpm start: ${error.message}`);
  process.exit(1);
}

// ---- stopping -------------------------------------------------------------------------------
// Ctrl+C at a terminal reaches every process of the foreground group, the running step or the
// services included; they stop on their own (and ignore a second signal), so forwarding SIGTERM
// here is harmless and covers a signal sent to this process alone.

const children = new Map();
/** Restarts waiting for their backoff (cleared when the stack stops). */
const pending = new Map();
let step; // the build or download running now
let stopping = false;

/** A signal to a child's whole process group (APy and its pipelines). */
function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

function stop(code) {
  if (stopping) return;
  stopping = true;
  process.exitCode = code;
  for (const [name, child] of children) {
    if (name === 'apertium') signalGroup(child, 'SIGTERM');
    else child.kill('SIGTERM');
  }
  for (const timer of pending.values()) clearTimeout(timer);
}

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => {
  step?.kill('SIGTERM');
  stop(0);
});

// Step output keeps stdout for the services' JSON when it is not a terminal.
const stepOptions = (env = process.env) => ({
  env,
  stdout: tty ? 'inherit' : 2,
  onChild: (child) => {
    step = child;
  },
});

// ---- build, secrets, model ------------------------------------------------------------------

say(dim('building what changed (tsc -b, web pages) ...'));
const built = await build(stepOptions());
if (stopping) process.exit(process.exitCode ?? 0);
if (built !== 0) {
  say(`pnpm start: the build failed (exit ${built}); nothing was started`);
  process.exit(built);
}
say(dim(`built in ${seconds()}`));

const { CAPTION_LOCAL_VARS, SECRET_FILES, initSecrets } = await import('@live-captions/secret-files');
try {
  for (const path of initSecrets({ dir: SECRETS_DIR }).written) say(`wrote ${path}`);
} catch (error) {
  say(`pnpm start: cannot write the local secrets: ${error.message}`);
  process.exit(1);
}

// ---- Apertium APy ---------------------------------------------------------------------------
// Where the outputs service looks for it by default (OUTPUTS_APERTIUM_URL): start-checks.mjs.
const APERTIUM_PORT = ports.APERTIUM_PORT;
const APERTIUM_URL = `http://127.0.0.1:${APERTIUM_PORT}`;
const apertium = await apertiumPlan(APERTIUM_URL, { bold, dim });
if (apertium.line) say(apertium.line);

// An official model that is not there yet is downloaded here, before any service starts, so a
// person sees `pnpm model`'s progress bar and ETA instead of a service that is silent for minutes.
{
  const { loadEngineConfig } = await import('@live-captions/inference');
  const { resolveModel } = await import('@live-captions/whisper-models');
  let model;
  let config;
  try {
    config = loadEngineConfig(process.env);
    model = resolveModel(config.model, config.modelDir);
  } catch (error) {
    say(`pnpm start: ${error.message}`);
    process.exit(1);
  }
  if (model.source === 'catalog' && !config.offline && !existsSync(model.path)) {
    const env = { ...process.env, CAPTION_MODEL_DIR: config.modelDir };
    const code = await run(
      process.execPath,
      ['--import', 'tsx', 'packages/whisper-models/scripts/model.ts', model.name],
      stepOptions(env),
    );
    if (stopping) process.exit(process.exitCode ?? 0);
    if (code !== 0) {
      const { DEFAULT_MODEL_BASE_URL } = await import('@live-captions/whisper-models');
      const base = process.env.CAPTION_MODEL_BASE_URL || model.spec?.baseUrl || DEFAULT_MODEL_BASE_URL;
      say(modelHelp(model, `${base.replace(/\/$/, '')}/resolve/main/ggml-${model.name}.bin`, bold));
      process.exit(code);
    }
  }
}

step = undefined;

// ---- services -------------------------------------------------------------------------------

const { readEnvFile } = await import('@live-captions/runtime');
const captionLocal = readEnvFile(join(SECRETS_DIR, SECRET_FILES.captionLocal)) ?? {};
/**
 * What a service needs beyond the shared environment on one machine: where the others are at
 * their ports, the browser origins of the pages that call it cross-origin here (no proxy makes
 * them same-origin), the relay's caption rooms in PGlite under data/ (git-ignored).
 */
const SERVICE_ENV = serviceEnv(ports, captionLocal);

const names = [
  'speech',
  'relay',
  'ui',
  'calendar',
  'outputs',
  'sources',
  ...(process.env.REDIS_URL ? ['worker'] : []),
].filter((name) => existsSync(join(root, 'services', name, 'dist/index.js')));

/** Where each listening service answers, from its `... listening` log line. */
const listeners = new Map();

const onLine = await serviceLines({ tty, ansi, listeners });

// A service that exits is started again after a backoff (1 s, doubled up to 30 s; back to 1 s
// once it ran for a minute) while the others keep running: one crash never stops the stack.
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 30_000;
const RESTART_RESET_MS = 60_000;
const restarts = new Map();

/** What runs as `name`: a built service, or APy through its loopback launcher. */
function commandOf(name) {
  if (name === 'apertium') {
    return apertiumCommand({ address: '127.0.0.1', port: APERTIUM_PORT });
  }
  return { command: process.execPath, args: [join(root, 'services', name, 'dist/index.js')] };
}

function startService(name) {
  const { command, args } = commandOf(name);
  const child = spawn(command, args, {
    // APy may write files (missing-word databases) where it runs: not into the repository.
    cwd: name === 'apertium' ? tmpdir() : root,
    // The operator's own settings win over the stack's defaults.
    env: { ...SERVICE_ENV[name], ...process.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // APy starts a translation pipeline per pair: its own process group, signalled as one, so
    // that no pipeline outlives it (see signalService).
    detached: name === 'apertium',
  });
  const startedAt = performance.now();
  children.set(name, child);
  for (const [stream, fromStderr] of [
    [child.stdout, false],
    [child.stderr, true],
  ]) {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) onLine(name, line, fromStderr);
    });
  }
  child.on('exit', (code, signal) => {
    children.delete(name);
    listeners.delete(name);
    // What APy left behind (pipelines) goes with it.
    if (name === 'apertium') signalGroup(child, 'SIGKILL');
    if (stopping) return;
    const previous = restarts.get(name);
    const again = previous && performance.now() - startedAt < RESTART_RESET_MS;
    const delay = again ? Math.min(RESTART_MAX_MS, previous.delay * 2) : RESTART_FIRST_MS;
    const attempt = again ? previous.attempt + 1 : 1;
    restarts.set(name, { delay, attempt });
    say(
      `${name.padEnd(8)} | exited (${signal ?? code}); restarting in ${delay / 1000} s (restart ${attempt}); the other services keep running`,
    );
    const timer = setTimeout(() => {
      pending.delete(name);
      if (stopping) return;
      startService(name);
      say(`${name.padEnd(8)} | restarted`);
    }, delay);
    pending.set(name, timer);
  });
}

for (const name of names) startService(name);
if (apertium.start) startService('apertium');
if (names.length === 0) say('pnpm start: no built service found under services/*/dist');

// ---- ready: say what to open ----------------------------------------------------------------
// Ready means every service listens and the speech gateway's /health is 200, which it only is
// once a model is loaded: from then on captions work.

// The environment wins over the file, as in the speech service itself.
const apiKey = process.env[CAPTION_LOCAL_VARS.apiKey] || captionLocal[CAPTION_LOCAL_VARS.apiKey];

function speechReady() {
  const speech = listeners.get('speech');
  if (!speech) return false;
  return answersOk(
    `http://${speech.host}:${speech.port}/health`,
    apiKey ? { authorization: `Bearer ${apiKey}` } : {},
  );
}

function summary() {
  const url = (name, path = '/') => {
    const at = listeners.get(name);
    return at ? `http://localhost:${at.port}${path}` : undefined;
  };
  say(
    readyText({
      url,
      apiKey,
      apertiumUrl: apertium.start ? APERTIUM_URL : undefined,
      took: seconds(),
      bold,
      dim,
    }),
  );
}

const expected = names.filter((name) => name !== 'worker');
while (!stopping) {
  if (
    expected.every((name) => listeners.has(name)) &&
    (!expected.includes('speech') || (await speechReady())) &&
    (!apertium.start || (await answersOk(`${APERTIUM_URL}/listPairs`)))
  ) {
    if (!stopping) summary();
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 250));
}
