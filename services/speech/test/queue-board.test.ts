/**
 * The ops queue view at `/ops/queues` (bull-board): on the Redis backend it reads the real BullMQ
 * queue a real worker serves, refuses every change (read-only), and without Redis it is absent.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { queueBoard } from '../src/adapters/queue-board.js';
import { type RunningGateway, redisBackend, startGateway } from './helpers/gateway.js';
import { useInProcessGateway } from './helpers/native-stack.js';
import { pcmBody, sine } from './helpers/wav.js';

interface BoardQueue {
  name: string;
  readOnlyMode: boolean;
  allowRetries: boolean;
  counts: Record<string, number>;
}

describe('/ops/queues on the Redis backend', () => {
  let backend: Awaited<ReturnType<typeof redisBackend>>;
  let gateway: RunningGateway;

  beforeAll(async () => {
    backend = await redisBackend();
    gateway = await startGateway({ queue: backend.queue, opsRouter: queueBoard(backend.queue.bullQueue) });
    // One real decode through the worker, so the board has a completed job to show (and keep).
    await request(gateway.base)
      .post('/transcribe')
      .set({ 'X-Caption-Local': '1', 'Content-Type': 'application/octet-stream' })
      .send(pcmBody(sine(16000, 1, 440, 0.3)))
      .expect(200);
  });

  afterAll(async () => {
    await gateway?.close();
    await backend?.close();
  });

  const queueName = () => backend.queue.bullQueue.name;

  it('lists our queue, with the decoded job, as read-only', async () => {
    const res = await request(gateway.base).get('/ops/queues/api/queues').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const queues = (res.body as { queues: BoardQueue[] }).queues;
    expect(queues.map((queue) => queue.name)).toEqual([queueName()]);
    const [queue] = queues;
    expect(queue!.readOnlyMode).toBe(true);
    expect(queue!.allowRetries).toBe(false);
    expect(queue!.counts.completed).toBe(1);
  });

  it('shows job timings and sizes but no transcript', async () => {
    const res = await request(gateway.base)
      .get(`/ops/queues/api/queues?activeQueue=${queueName()}&status=completed`)
      .expect(200);
    const text = JSON.stringify(res.body);
    // The synthetic model always says " test": the job's result must not show it.
    expect(text).toContain('[4 characters]');
    expect(text).not.toMatch(/"(text|transcript)":"test"/);
  });

  it('serves the board page and its assets under the mount path, with the API security headers', async () => {
    const res = await request(gateway.base).get('/ops/queues').expect(200);
    // The page's asset links are relative to this base: a wrong base path is a blank page.
    expect(res.text).toMatch(/<base href="\/ops\/queues\/"/);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    const script = /<script defer src="(static\/js\/main\.[^"]+\.js)"/.exec(res.text)?.[1];
    expect(script).toBeDefined();
    const asset = await request(gateway.base).get(`/ops/queues/${script}`).expect(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
  });

  it('refuses to retry, clean, add or empty: the queue is unchanged', async () => {
    const name = encodeURIComponent(queueName());
    const [job] = await backend.queue.bullQueue.getJobs(['completed']);
    expect(job).toBeDefined();
    const board = `/ops/queues/api/queues/${name}`;
    const changes = [
      ['retry all', request(gateway.base).put(`${board}/retry/completed`)],
      ['clean all', request(gateway.base).put(`${board}/clean/completed`)],
      ['retry one', request(gateway.base).put(`${board}/${job!.id}/retry`)],
      ['clean one', request(gateway.base).put(`${board}/${job!.id}/clean`)],
      ['empty', request(gateway.base).put(`${board}/empty`)],
      ['add', request(gateway.base).post(`${board}/add`).send({ name: 'decode', data: {}, options: {} })],
    ] as const;
    for (const [change, pending] of changes) {
      const res = await pending;
      expect([change, res.status, res.body]).toEqual([
        change,
        405,
        { error: { key: 'ERRORS.QUEUE_READ_ONLY' } },
      ]);
    }
    const { completed, waiting, delayed } = await backend.queue.bullQueue.getJobCounts();
    expect({ completed, waiting, delayed }).toEqual({ completed: 1, waiting: 0, delayed: 0 });
    expect(await backend.queue.bullQueue.getJobState(job!.id!)).toBe('completed');
  });
});

describe('/ops/queues without the Redis backend', () => {
  let gateway: RunningGateway;
  useInProcessGateway((started) => {
    gateway = started;
  });

  it('is not there', async () => {
    await request(gateway.base).get('/ops/queues').expect(404);
    await request(gateway.base).get('/ops/queues/api/queues').expect(404);
  });
});
