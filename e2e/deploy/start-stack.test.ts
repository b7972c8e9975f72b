/**
 * `pnpm start` (scripts/start-stack.mjs) on this machine, from the sources (issue 26.6): a service
 * that is killed comes back by itself while the others keep running, and clients of the relay
 * (the pages' relay client) reconnect and carry on; the link it prints opens the hub with the
 * access token in the fragment only; an offline first start names what it tried to fetch and the
 * ways forward. It uses the ports of the local secrets (speech 8765, relay 8080, ui 8081), the
 * outputs service's (8083), the stream sources service's (8084) and Apertium APy's (2737): the
 * sources service and APy (Debian's apertium-apy, installed here as in CI) run with the others,
 * and without apertium-apy one line says how to install it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, jest, test } from '@jest/globals';
import type { RelayCaption, RelaySettings } from '@live-captions/protocol';
import { createPublisher, createReader } from '@live-captions/relay-client/node';
import { repoRoot } from './helpers/compose.js';
import { until } from './helpers/processes.js';

jest.setTimeout(600_000);

const MODEL = join(repoRoot, 'models/ggml-synthetic-tiny.bin');

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** The environment of a person's shell: not jest's (NODE_ENV=test silences the logs) nor its Redis and PostgreSQL. */
const shell = Object.fromEntries(
  Object.entries(process.env).filter(
    ([key]) =>
      !/^(NODE_ENV|JEST_|REDIS_URL|DATABASE_URL|PG|CAPTION_|RELAY_|UI_|CALENDAR_|WORKER_|LOG_LEVEL)/.test(
        key,
      ),
  ),
);

function pnpmStart(env: Record<string, string>): Started {
  const child = spawn(process.execPath, [join(repoRoot, 'scripts/start-stack.mjs')], {
    cwd: repoRoot,
    env: { ...shell, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const keep = (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-200_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => text, exited };
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Whether what listens on `port` listens on loopback only (ss, iproute2). */
async function listensOnlyOnLoopback(port: number): Promise<boolean> {
  const { execFileSync } = await import('node:child_process');
  const local = execFileSync('ss', ['-Hltn', `sport = :${port}`])
    .toString()
    .split('\n')
    .filter(Boolean)
    .map((line) => line.trim().split(/\s+/)[3]!);
  return local.length > 0 && local.every((address) => /^(127\.0\.0\.1|\[::1\]):/.test(address));
}

/** The pid of a service started by `pnpm start` (a child of its process). */
async function servicePid(parent: number, name: string): Promise<number> {
  const { execFileSync } = await import('node:child_process');
  const lines = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(parent)])
    .toString()
    .split('\n');
  const line = lines.find((entry) => entry.includes(`services/${name}/dist/index.js`));
  if (!line) throw new Error(`no ${name} under pnpm start:\n${lines.join('\n')}`);
  return Number(line.trim().split(/\s+/)[0]);
}

let running: Started | undefined;
afterAll(async () => {
  if (running && running.child.exitCode === null) {
    running.child.kill('SIGTERM');
    await running.exited;
  }
});

describe('pnpm start', () => {
  test('a killed relay is restarted while the others keep running, and relay clients reconnect; the hub link carries the token in its fragment', async () => {
    for (const port of [8765, 8080, 8081, 8083, 8084, 2737])
      expect({ port, free: await portFree(port) }).toEqual({ port, free: true });
    running = pnpmStart({ CAPTION_MODEL: MODEL, CAPTION_OFFLINE: '1', CAPTION_THREADS: '1' });
    const started = running;
    await until('the summary', () => /Live captions is running/.test(started.output()), 480_000).catch(
      (error: Error) => {
        throw new Error(`${error.message}\n${started.output()}`);
      },
    );
    // Piped, the script writes no colours.
    const hub = /links hub\s+(\S+)/.exec(started.output())?.[1];
    expect(hub).toMatch(/^http:\/\/localhost:8081\/#token=[A-Za-z0-9_-]{32,}$/);
    const apiKey = new URL(hub!).hash.slice('#token='.length);
    // The outputs service runs too, reading the relay, and lets the editor on the hub's origin in.
    await until(
      'the outputs service on the relay',
      async () => {
        const health = await fetch('http://127.0.0.1:8083/health').catch(() => undefined);
        return ((await health?.json()) as { relay?: string } | undefined)?.relay === 'connected';
      },
      30_000,
    );
    const preflight = await fetch('http://127.0.0.1:8083/rooms/any/destinations', {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:8081',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:8081');
    // The stream sources service answers, with its push listeners, and refuses the API without
    // the access token the summary's link carries.
    const sources = await fetch('http://127.0.0.1:8084/health');
    expect(sources.status).toBe(200);
    expect(await sources.json()).toMatchObject({ status: 'ok', push: { rtmp: 1935 } });
    expect((await fetch('http://127.0.0.1:8084/sources')).status).toBe(401);
    const listed = await fetch('http://127.0.0.1:8084/sources', {
      headers: { Authorization: `Bearer ${apiKey}` },
    });
    expect(listed.status).toBe(200);
    // The hub's "Stream sources" panel on the UI's origin is let in (issue 43: it said "cannot
    // be reached" under `pnpm start`).
    const sourcesPreflight = await fetch('http://127.0.0.1:8084/sources?room=captions', {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:8081',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization',
      },
    });
    expect(sourcesPreflight.headers.get('access-control-allow-origin')).toBe('http://localhost:8081');
    expect(started.output()).toMatch(/sources\s+http:\/\/localhost:8084\/health/);
    // Apertium APy on the outputs service's default address, on loopback only, with the pairs.
    const pairs = (await (await fetch('http://127.0.0.1:2737/listPairs')).json()) as {
      responseData: { sourceLanguage: string; targetLanguage: string }[];
    };
    expect(pairs.responseData).toEqual(
      expect.arrayContaining([
        { sourceLanguage: 'eng', targetLanguage: 'spa' },
        { sourceLanguage: 'eng', targetLanguage: 'cat' },
      ]),
    );
    expect(await listensOnlyOnLoopback(2737)).toBe(true);
    expect(started.output()).toMatch(/apertium\s+http:\/\/127\.0\.0\.1:2737\/listPairs/);
    expect(started.output()).not.toMatch(/translation through Apertium is off/);
    const config = (await (
      await fetch('http://127.0.0.1:8765/relay-config', { headers: { Authorization: `Bearer ${apiKey}` } })
    ).json()) as RelaySettings;

    const seen: RelayCaption[] = [];
    const states: string[] = [];
    const reader = createReader({
      url: config.relayUrl,
      room: config.sourceRoom,
      token: config.sourceReadToken!,
      onCaption: (caption) => seen.push(caption),
      onState: (event) => states.push(event.state),
    });
    const publisher = createPublisher({
      url: config.relayUrl,
      room: config.sourceRoom,
      token: config.sourceWriteToken!,
    });
    try {
      await until('both joined', () => reader.state === 'joined' && publisher.state === 'joined', 30_000);
      publisher.publish({ final: 'before the crash', id: 'start-1' });
      await until('the first caption', () => seen.some((c) => c.final === 'before the crash'), 30_000);

      process.kill(await servicePid(started.child.pid!, 'relay'), 'SIGKILL');
      await until(
        'the restart announced',
        () => /relay\s+\| exited \(SIGKILL\); restarting in 1 s/.test(started.output()),
        30_000,
      );
      // The others keep running meanwhile.
      const health = await fetch('http://127.0.0.1:8765/health', {
        headers: { Authorization: `Bearer ${apiKey}` },
      });
      expect(health.status).toBe(200);
      await until('the relay back', () => /relay\s+\| restarted/.test(started.output()), 30_000);
      await until(
        'the clients rejoined',
        () => states.filter((s) => s === 'joined').length >= 2 && publisher.state === 'joined',
        60_000,
      );
      publisher.publish({ final: 'after the crash', id: 'start-2' });
      await until(
        'a caption after the restart',
        () => seen.some((c) => c.final === 'after the crash'),
        30_000,
      );
      expect(started.child.exitCode).toBeNull();
      expect(started.output()).not.toMatch(/stopping the stack/);
    } finally {
      reader.close();
      publisher.close();
    }
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
    // APy and its translation pipelines stop with the stack.
    expect(await portFree(2737)).toBe(true);
  });

  test('offline, a missing model ends with what was fetched and the ways forward; without apertium-apy, one line says how to install it', async () => {
    const modelDir = mkdtempSync(join(tmpdir(), 'start-offline-'));
    // A PATH with node only: a machine where apertium-apy is not installed.
    const bin = mkdtempSync(join(tmpdir(), 'start-path-'));
    symlinkSync(process.execPath, join(bin, 'node'));
    try {
      const started = pnpmStart({
        PATH: bin,
        CAPTION_MODEL: 'tiny',
        CAPTION_MODEL_DIR: modelDir,
        // A mirror nobody answers on: what an offline machine sees.
        CAPTION_MODEL_BASE_URL: 'http://127.0.0.1:9/whisper.cpp',
      });
      running = started;
      const code = await started.exited;
      const output = started.output();
      expect(code).not.toBe(0);
      expect(output).toContain('could not download the speech model "tiny"');
      expect(output).toContain('tried:  http://127.0.0.1:9/whisper.cpp/resolve/main/ggml-tiny.bin');
      expect(output).toContain('CAPTION_OFFLINE=1 CAPTION_MODEL=/path/to/ggml-<name>.bin pnpm start');
      expect(output).toContain('CAPTION_MODEL_BASE_URL=');
      expect(output).toContain('pnpm model tiny');
      expect(output).not.toMatch(/Live captions is running/);
      const apertium = output.split('\n').filter((line) => /apertium/i.test(line));
      expect(apertium).toEqual([
        'translation through Apertium is off: apertium-apy is not installed (sudo apt install apertium-apy apertium-eng-spa apertium-eng-cat, then pnpm start again)',
      ]);
    } finally {
      rmSync(modelDir, { recursive: true, force: true });
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
