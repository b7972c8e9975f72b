import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from '@jest/globals';
import express, { type Express } from 'express';
import supertest from 'supertest';
import { responseCache } from '../src/routes/cache.js';

/** An app whose GET answers the current value, after waiting for `gate` when one is set. */
function counterApp() {
  const state = { value: 0, reads: 0, gate: undefined as Promise<void> | undefined };
  const app = express();
  app.use(responseCache(60_000));
  app.get('/value', async (_req, res) => {
    state.reads++;
    const seen = state.value;
    await state.gate;
    res.json({ value: seen });
  });
  app.post('/value', (_req, res) => {
    state.value++;
    res.json({ value: state.value });
  });
  return { app, state };
}

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
    let open!: () => void;
    state.gate = new Promise((resolve) => {
      open = resolve;
    });
    // The read sees value 0, then a write lands and clears the cache, then the read answers.
    const slowRead = request.get('/value').then((res) => res.body);
    while (state.reads === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await request.post('/value')).body).toEqual({ value: 1 });
    open();
    expect(await slowRead).toEqual({ value: 0 });
    state.gate = undefined;
    expect((await request.get('/value')).body).toEqual({ value: 1 });
  });

  it('keeps answers apart per Host', async () => {
    const app = express();
    app.use(responseCache(60_000));
    app.get('/host', (req, res) => {
      res.json({ host: req.get('host') });
    });
    const request = await requestOf(app);
    expect((await request.get('/host').set('Host', 'a.example')).body).toEqual({ host: 'a.example' });
    expect((await request.get('/host').set('Host', 'b.example')).body).toEqual({ host: 'b.example' });
  });
});
