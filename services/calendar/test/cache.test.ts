import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from '@jest/globals';
import express, { type Express } from 'express';
import supertest from 'supertest';
import { responseCache } from '../src/routes/cache.js';

/**
 * An app whose GET answers the current value (after waiting for `gate` when one is set) and
 * whose POST increments it (after waiting for `writeGate`). Callers with `X-Role: guest` may
 * not write.
 */
function counterApp() {
  const state = {
    value: 0,
    reads: 0,
    writes: 0,
    gate: undefined as Promise<void> | undefined,
    writeGate: undefined as Promise<void> | undefined,
  };
  const app = express();
  app.use((req, res, next) => {
    res.locals.user = req.get('x-role') === 'guest' ? undefined : { id: 1, role: 'editor' };
    next();
  });
  app.use(responseCache(60_000, (caller) => caller !== undefined));
  app.use(express.json());
  app.get('/value', async (_req, res) => {
    state.reads++;
    const seen = state.value;
    await state.gate;
    res.json({ value: seen });
  });
  app.post('/value', async (req, res) => {
    if (req.get('x-role') === 'guest') {
      res.status(401).json({ code: 'rest_forbidden' });
      return;
    }
    state.writes++;
    await state.writeGate;
    state.value++;
    res.json({ value: state.value });
  });
  return { app, state };
}

const gate = () => {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
};
const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
};

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** One listening server per app: supertest would otherwise answer each request on a new port. */
async function requestOf(app: Express) {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return supertest(server);
}

describe('responseCache', () => {
  it('serves a hit without running the route again', async () => {
    const { app, state } = counterApp();
    const request = await requestOf(app);
    expect((await request.get('/value')).body).toEqual({ value: 0 });
    expect((await request.get('/value')).body).toEqual({ value: 0 });
    expect(state.reads).toBe(1);
  });

  it('does not store a read that overlapped a write', async () => {
    const { app, state } = counterApp();
    const request = await requestOf(app);
    const read = gate();
    state.gate = read.promise;
    // The read sees value 0, then a write lands and clears the cache, then the read answers.
    const slowRead = request.get('/value').then((res) => res.body);
    await until(() => state.reads === 1);
    expect((await request.post('/value')).body).toEqual({ value: 1 });
    read.open();
    expect(await slowRead).toEqual({ value: 0 });
    state.gate = undefined;
    expect((await request.get('/value')).body).toEqual({ value: 1 });
  });

  it('drops the cache when a write answers, even after its client went away', async () => {
    const { app, state } = counterApp();
    const request = await requestOf(app);
    const write = gate();
    state.writeGate = write.promise;
    const aborted = request.post('/value').timeout(50);
    await expect(aborted).rejects.toThrow();
    await until(() => state.writes === 1);
    // The client is gone but the write has not committed: a read now stores the old value...
    expect((await request.get('/value')).body).toEqual({ value: 0 });
    write.open();
    await until(() => state.value === 1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    // ...which the write's answer clears.
    expect((await request.get('/value')).body).toEqual({ value: 1 });
  });

  it('ignores requests of callers who may not write', async () => {
    const { app, state } = counterApp();
    const request = await requestOf(app);
    await request.get('/value');
    expect((await request.post('/value').set('X-Role', 'guest')).status).toBe(401);
    await request.get('/value');
    expect(state.reads).toBe(1);
  });

  // Issue 17: a GET body must not turn a cached route into an uncached one (the calendar reads
  // GET parameters from the URL only; see the app test in tec-validation).
  it('serves and stores a GET whatever body it carries', async () => {
    const { app, state } = counterApp();
    const request = await requestOf(app);
    expect((await request.get('/value').send({ q: 'x' })).body).toEqual({ value: 0 });
    expect((await request.get('/value')).body).toEqual({ value: 0 });
    expect((await request.get('/value').send({ q: 'y' })).body).toEqual({ value: 0 });
    expect(state.reads).toBe(1);
  });

  it('holds at most maxBytes of answers, evicting expired then oldest entries', async () => {
    const app = express();
    const cache = responseCache(200, () => true, 3 * 1400);
    let reads = 0;
    app.use(cache);
    app.get('/big/:n', (req, res) => {
      reads++;
      res.json({ n: req.params.n, pad: 'x'.repeat(1000) });
    });
    app.get('/huge', (_req, res) => {
      reads++;
      res.json({ pad: 'x'.repeat(10_000) });
    });
    const request = await requestOf(app);
    for (const n of [1, 2, 3, 4]) await request.get(`/big/${n}`);
    expect(cache.stats().entries).toBe(2 + 1); // 1400 bytes a piece at most: three fit, 1 went
    expect(cache.stats().bytes).toBeLessThanOrEqual(3 * 1400);
    await request.get('/big/4');
    expect(reads).toBe(4); // a hit
    await request.get('/big/1');
    expect(reads).toBe(5); // evicted, computed again
    await request.get('/huge');
    await request.get('/huge');
    expect(reads).toBe(7); // larger than the whole budget: never stored
    await new Promise((resolve) => setTimeout(resolve, 250));
    await request.get('/big/9');
    // Everything else had expired: swept when the new answer was stored.
    expect(cache.stats().entries).toBe(1);
  });

  it('keeps answers apart per Host', async () => {
    const app = express();
    app.use(responseCache(60_000, () => true));
    app.get('/host', (req, res) => {
      res.json({ host: req.get('host') });
    });
    const request = await requestOf(app);
    expect((await request.get('/host').set('Host', 'a.example')).body).toEqual({ host: 'a.example' });
    expect((await request.get('/host').set('Host', 'b.example')).body).toEqual({ host: 'b.example' });
  });
});
