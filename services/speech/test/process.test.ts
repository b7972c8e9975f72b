/**
 * The gateway as a process (src/index.ts): refuses a wrong configuration, serves with the
 * in-process engine, serves through Redis with a separately started worker, and exits cleanly
 * on SIGTERM.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, jest } from '@jest/globals';
import {
  GATEWAY_ENTRY,
  gatewayPort as listeningPort,
  type ServiceProcess as Started,
  startServiceProcess,
  WORKER_ENTRY,
} from '@live-captions/test-services';
import { sileroModel } from '@live-captions/test-services/fixtures';
import request from 'supertest';
import { WebSocket } from 'ws';
import { deleteKeys, REDIS_URL, until } from './helpers/gateway.js';
import { oneSecond, transcribeOn } from './helpers/native-stack.js';

const startProcess = (env: Record<string, string>, entry = GATEWAY_ENTRY) => startServiceProcess(entry, env);

async function healthy(base: string): Promise<void> {
  await until(async () => (await request(base).get('/health')).status === 200, 'health 200', 40_000);
}

describe('speech gateway process', () => {
  // Spawning tsx and loading the engine can take a while on a busy machine.
  jest.setTimeout(120_000);

  it('refuses to start on a wrong variable, naming it without echoing secrets', async () => {
    const started = startProcess({
      CAPTION_API_KEY: 'too-short-secret',
      CAPTION_MAX_STREAMS: '0',
      CAPTION_WORKERS: '99',
      REDIS_URL: 'http://user:redis-password@host',
    });
    expect(await started.exited).toBe(1);
    expect(started.output()).toContain('CAPTION_API_KEY: must be at least 24 characters');
    expect(started.output()).toContain('CAPTION_MAX_STREAMS="0": must be at least 1');
    expect(started.output()).toContain('CAPTION_WORKERS="99": must be at most 16');
    expect(started.output()).toContain('REDIS_URL: must be a redis:// or rediss:// URL');
    expect(started.output()).not.toContain('too-short-secret');
    expect(started.output()).not.toContain('redis-password');
  });

  it('serves with the in-process engine and exits 0 on SIGTERM', async () => {
    const started = startProcess({});
    try {
      const base = `http://127.0.0.1:${await listeningPort(started)}`;
      await healthy(base);
      const res = await transcribeOn(base).send(oneSecond).expect(200);
      expect(res.body.text).toBe('test');
      started.child.kill('SIGTERM');
      expect(await started.exited).toBe(0);
    } finally {
      started.child.kill('SIGKILL');
    }
  });

  it('starts offline without the Silero file: one warning, no VAD, and serves', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'no-vad-'));
    const started = startProcess({ CAPTION_VAD_MODEL: 'silero', CAPTION_MODEL_DIR: empty });
    try {
      const base = `http://127.0.0.1:${await listeningPort(started)}`;
      await healthy(base);
      const warnings = started.logLines(/^VAD model unavailable: running without speech detection/);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: 40, vadModel: 'silero' });
      expect(String(warnings[0]?.reason)).toContain('missing (offline)');
      const res = await transcribeOn(base).send(oneSecond).expect(200);
      expect(res.body.text).toBe('test');
    } finally {
      started.child.kill('SIGKILL');
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('serves /v1/realtime with its VAD file, and ends realtime sessions on SIGTERM with 1012', async () => {
    const started = startProcess({ CAPTION_REALTIME_VAD_MODEL: sileroModel() });
    try {
      const port = await listeningPort(started);
      await healthy(`http://127.0.0.1:${port}`);
      const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/realtime?intent=transcription`);
      const events: { type: string; error?: { code: string } }[] = [];
      ws.on('message', (data) => events.push(JSON.parse(String(data))));
      await until(async () => events.length > 0, 'session.created', 20_000);
      expect(events[0]!.type).toBe('session.created');
      const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
      started.child.kill('SIGTERM');
      expect(await closed).toBe(1012);
      expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'server_shutdown' } });
      expect(await started.exited).toBe(0);
      expect(started.output()).toContain('realtime session opened');
    } finally {
      started.child.kill('SIGKILL');
    }
  });

  it('serves through Redis with a separately started services/worker process (503 until it is ready)', async () => {
    const queueName = `speech-test-${randomUUID()}`;
    const started = startProcess({ REDIS_URL, CAPTION_QUEUE_NAME: queueName });
    let worker: Started | undefined;
    try {
      const base = `http://127.0.0.1:${await listeningPort(started)}`;
      await until(() => /inference queue started/.test(started.output()), 'the queue connection', 40_000);
      await request(base).get('/health').expect(503);
      worker = startProcess({ REDIS_URL, CAPTION_QUEUE_NAME: queueName, WORKER_ID: queueName }, WORKER_ENTRY);
      await healthy(base);
      const res = await transcribeOn(base, '?mode=translate&language=fr').send(oneSecond).expect(200);
      expect(res.body).toMatchObject({ text: 'test', translation: 'test', transcript: '' });
      started.child.kill('SIGTERM');
      expect(await started.exited).toBe(0);
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    } finally {
      started.child.kill('SIGKILL');
      worker?.child.kill('SIGKILL');
      await deleteKeys([`bull:${queueName}:*`, `captions:${queueName}:*`]);
    }
  });
});
