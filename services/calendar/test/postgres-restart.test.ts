import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type PostgresCluster, startPostgresCluster } from '@live-captions/test-services';
import { ROOT, startTestApi, type TestApi } from './helpers.js';

// PostgreSQL restarted under the calendar (issue 11): a PRIVATE cluster that this file starts,
// stops and kills while writes and reads run; never the run's shared cluster.

let cluster: PostgresCluster;
let api: TestApi;
const states: string[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
  api = await startTestApi({ adminUrl: cluster.url(), onDatabaseState: (state) => states.push(state) });
}, 60_000);

afterAll(async () => {
  await api?.close();
  await cluster?.destroy();
});

interface Seen {
  status: number;
  body: { code?: string; message?: string };
  retryAfter?: string;
}

/** Requests in a loop until `stop`: every answer kept, every 201 event id (and title) acknowledged. */
class Traffic {
  readonly seen: Seen[] = [];
  readonly acked = new Map<number, string>();
  private stopped = false;
  private readonly loops: Promise<void>[] = [];
  private n = 0;

  constructor(tag: string, writers: number, readers: number) {
    for (let i = 0; i < writers; i++) this.loops.push(this.loop(() => this.write(`${tag} ${i}`)));
    for (let i = 0; i < readers; i++) this.loops.push(this.loop(() => this.read()));
  }

  private async loop(step: () => Promise<void>) {
    while (!this.stopped) {
      await step();
      await sleep(10);
    }
  }

  private record(res: { status: number; body: Seen['body']; headers: Record<string, string> }) {
    this.seen.push({ status: res.status, body: res.body, retryAfter: res.headers['retry-after'] });
  }

  private async write(prefix: string) {
    const title = `${prefix} #${this.n++}`;
    const res = await api.by('admin').post('events', {
      title,
      start_date: '2030-06-20 20:00',
      end_date: '2030-06-20 22:00',
      categories: ['Load'],
    });
    this.record(res);
    if (res.status === 201) this.acked.set(res.body.id, title);
  }

  private async read() {
    const last = [...this.acked.keys()].at(-1);
    const res = await api.request.get(last ? `${ROOT}/events/${last}` : `${ROOT}/events?per_page=5`);
    this.record(res);
  }

  async stop() {
    this.stopped = true;
    await Promise.all(this.loops);
  }
}

async function until(what: string, check: () => Promise<boolean> | boolean, seconds = 30) {
  const deadline = Date.now() + seconds * 1000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${seconds} s: ${what}`);
    await sleep(50);
  }
}

/** While the cluster is down: reads and writes answer 503 + Retry-After, quickly, no driver text. */
async function expectUnavailable() {
  for (const request of [
    () => api.request.get(`${ROOT}/events`),
    () =>
      api.by('admin').post('events', {
        title: 'During outage',
        start_date: '2030-06-20 20:00',
        end_date: '2030-06-20 22:00',
      }),
  ]) {
    const started = Date.now();
    const res = await request();
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(res.body).toEqual({
      code: 'rest_service_unavailable',
      message: 'The calendar is temporarily unavailable; retry shortly.',
      data: { status: 503 },
    });
  }
}

/** Every answer was a success or a clean 503, and every acknowledged event is stored and readable. */
async function expectNothingLost(traffic: Traffic) {
  const statuses = new Set(traffic.seen.map((s) => s.status));
  expect([...statuses].filter((s) => ![200, 201, 503].includes(s))).toEqual([]);
  for (const s of traffic.seen.filter((one) => one.status === 503)) {
    expect(s.body.code).toBe('rest_service_unavailable');
    expect(s.retryAfter).toMatch(/^[1-9]\d*$/);
  }
  expect(traffic.acked.size).toBeGreaterThan(0);
  for (const [id, title] of traffic.acked) {
    const res = await api.request.get(`${ROOT}/events/${id}`);
    expect([res.status, res.body.title]).toEqual([200, title]);
  }
  const stored = (await api
    .knex('cal_events')
    .whereIn('id', [...traffic.acked.keys()])
    .pluck('id')) as number[];
  expect(stored.length).toBe(traffic.acked.size);
}

describe('PostgreSQL restart under the calendar', () => {
  for (const [how, down] of [
    ['a fast shutdown (connections terminated)', () => cluster.stop()],
    ['a crash (immediate stop, recovery at start)', () => cluster.kill()],
  ] as const) {
    it(`answers 503 + Retry-After during ${how}, full service after, no acknowledged write lost`, async () => {
      states.length = 0;
      const traffic = new Traffic(how, 2, 2);
      try {
        await until('writes acknowledged before the outage', () => traffic.acked.size >= 5);
        await down();
        await expectUnavailable();
        await sleep(500); // the loops keep hitting the dead database meanwhile
        await cluster.start();
        await until(
          'reads answered again',
          async () => (await api.request.get(`${ROOT}/events`)).status === 200,
        );
        const before = traffic.acked.size;
        await until('writes acknowledged after the restart', () => traffic.acked.size >= before + 5);
      } finally {
        await traffic.stop();
      }
      expect(traffic.seen.some((s) => s.status === 503)).toBe(true);
      await expectNothingLost(traffic);
      // One report per state change, not one per failed request: down first, up last, alternating
      // (a connection that died idle in the pool may fail once more right after the restart).
      expect(states[0]).toBe('down');
      expect(states.at(-1)).toBe('up');
      expect(states.length).toBeLessThanOrEqual(4);
      expect(states.every((state, i) => state === (i % 2 === 0 ? 'down' : 'up'))).toBe(true);
      // The term counts written during the outage are consistent again.
      const res = await api.request.get(`${ROOT}/categories`).query({ search: 'Load' });
      const stored = await api.knex('cal_event_terms').count({ n: '*' });
      expect(res.body.categories[0].count).toBe(Number(stored[0]!.n));
    }, 120_000);
  }
});
