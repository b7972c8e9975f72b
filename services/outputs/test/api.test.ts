/**
 * The destinations API in-process on PGlite (no DATABASE_URL), as the editor calls it: tokens,
 * body checks, duplicates, masking, the archive's routes, CORS, health; and what the service logs
 * of it. Input that can never succeed: api-refusals.test.ts.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { logCapture } from '@live-captions/test-services';
import request from 'supertest';
import type { Outputs } from '../src/app.js';
import { type App, as, ORIGIN, startApp } from './helpers/app.js';
import { ROOM, TOKENS } from './helpers/index.js';

jest.setTimeout(60_000);

const SIGNATURE = 'SECRETsignature0123456789';
const YT = `http://upload.youtube.com/closedcaption?cid=c1&ns=yt&id=stream1234&expire=9&signature=${SIGNATURE}&key=yt_qc`;
const ZOOM = `https://wmcapi.zoom.us/closedcaption?id=987654321&ns=abc&expire=86400&signature=${SIGNATURE}`;
const logs = logCapture();
let app: App | undefined;
let outputs: Outputs;

beforeAll(async () => {
  app = await startApp(logs, { OUTPUTS_ALLOWED_HOSTS: '127.0.0.1:4999' });
  ({ outputs } = app);
});

afterAll(() => app?.close());

const path = `/rooms/${ROOM}/destinations`;

describe('destinations', () => {
  test('add, list (masked), refuse a duplicate, remove', async () => {
    const added = await request(outputs.app)
      .post(path)
      .set(as(TOKENS.write))
      .send({ kind: 'youtube', url: YT });
    expect(added.status).toBe(201);
    expect(added.body.destination).toMatchObject({
      kind: 'youtube',
      label: 'YouTube Live',
      target: 'https://upload.youtube.com/closedcaption?id=…1234',
      behind: 0,
      lastError: null,
      sent: 0,
    });
    // The relay is unreachable: nothing can be read yet.
    expect(added.body.destination.state).toBe('starting');
    const zoom = await request(outputs.app)
      .post(path)
      .set(as(TOKENS.write))
      .send({ kind: 'zoom', url: ZOOM, lang: 'de-DE' });
    expect(zoom.body.destination).toMatchObject({
      kind: 'zoom',
      label: 'Zoom',
      lang: 'de-DE',
      target: 'https://wmcapi.zoom.us/closedcaption?id=…4321',
    });
    const archive = await request(outputs.app).post(path).set(as(TOKENS.write)).send({ kind: 'archive' });
    expect(archive.body.destination).toMatchObject({ kind: 'archive', label: 'Transcript archive' });

    // The http:// form and the https:// form are the same stream.
    const again = await request(outputs.app)
      .post(path)
      .set(as(TOKENS.write))
      .send({ kind: 'youtube', url: YT.replace('http:', 'https:') });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: { message: expect.any(String), code: 'conflict' } });
    expect(
      (await request(outputs.app).post(path).set(as(TOKENS.write)).send({ kind: 'archive' })).status,
    ).toBe(409);

    const listed = await request(outputs.app).get(path).set(as(TOKENS.write));
    expect(listed.body.destinations.map((d: { kind: string }) => d.kind)).toEqual([
      'youtube',
      'zoom',
      'archive',
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(SIGNATURE);

    const id = added.body.destination.id as string;
    expect((await request(outputs.app).delete(`${path}/${id}`).set(as(TOKENS.write))).status).toBe(204);
    expect((await request(outputs.app).delete(`${path}/${id}`).set(as(TOKENS.write))).status).toBe(404);
    // Another room's writer cannot remove this room's destination.
    const zoomId = zoom.body.destination.id as string;
    expect(
      (await request(outputs.app).delete(`/rooms/captions/destinations/${zoomId}`).set(as(TOKENS.otherWrite)))
        .status,
    ).toBe(404);
  });

  test.each([
    ['no token', {}],
    ['the read token', as(TOKENS.read)],
    ["another room's write token", as(TOKENS.otherWrite)],
    ['a wrong token', as('x'.repeat(43))],
  ])('401 with %s', async (_name, headers) => {
    const res = await request(outputs.app).get(path).set(headers);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { message: expect.any(String), code: 'unauthorized' } });
    const unknown = await request(outputs.app).get('/rooms/nope/destinations').set(as(TOKENS.write));
    expect(unknown.status).toBe(401);
  });

  test.each([
    [{ kind: 'fax' }, /kind/],
    [{ kind: 'youtube' }, /url/],
    [{ kind: 'zoom', url: ZOOM, lang: 'english!' }, /lang/],
    [{ kind: 'archive', extra: 1 }, /extra/],
  ])('400 naming the field for %j', async (body, message) => {
    const res = await request(outputs.app).post(path).set(as(TOKENS.write)).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message).toMatch(message);
  });

  test('400 for a body that is not JSON, 413 over 16 KiB', async () => {
    const bad = await request(outputs.app)
      .post(path)
      .set(as(TOKENS.write))
      .set('Content-Type', 'application/json')
      .send('{"kind":');
    expect(bad.status).toBe(400);
    const big = await request(outputs.app)
      .post(path)
      .set(as(TOKENS.write))
      .send({ kind: 'youtube', url: `${YT}&pad=${'x'.repeat(17 * 1024)}` });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('payload_too_large');
  });

  test.each([
    ['youtube', 'https://169.254.169.254/closedcaption?id=1'],
    ['youtube', 'http://127.0.0.1:6379/closedcaption?id=1'],
    ['youtube', 'http://localhost:4999/closedcaption?id=1'],
    ['youtube', 'https://upload.youtube.com.attacker.example/closedcaption?id=1'],
    ['zoom', ZOOM.replace('https:', 'http:')],
    ['zoom', 'https://[::1]/closedcaption?id=1'],
    ['zoom', 'http://127.0.0.1:5000/closedcaption?id=1'],
  ])('422 for %s %s', async (kind, url) => {
    const res = await request(outputs.app)
      .post(path)
      .set(as(TOKENS.write))
      .send({ kind, url: `${url}&signature=${SIGNATURE}` });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('destination_not_allowed');
    expect(res.text).not.toContain(SIGNATURE);
  });

  test('a platform destination gets one track; Zoom speaks its language unless told', async () => {
    const youtube = await request(outputs.app)
      .post(path)
      .set(as(TOKENS.write))
      .send({ kind: 'youtube', url: YT.replace('stream1234', 'streamES01'), track: 'es' });
    expect(youtube.status).toBe(201);
    expect(youtube.body.destination).toMatchObject({ kind: 'youtube', track: 'es' });
    const zoom = await request(outputs.app)
      .post(path)
      .set(as(TOKENS.write))
      .send({ kind: 'zoom', url: ZOOM.replace('987654321', '111111111'), track: 'pt-br' });
    expect(zoom.body.destination).toMatchObject({ track: 'pt-BR', lang: 'pt-BR' });
    const told = await request(outputs.app)
      .post(path)
      .set(as(TOKENS.write))
      .send({ kind: 'zoom', url: ZOOM.replace('987654321', '222222222'), track: 'es', lang: 'es-MX' });
    expect(told.body.destination).toMatchObject({ track: 'es', lang: 'es-MX' });
    const listed = await request(outputs.app).get(path).set(as(TOKENS.write));
    for (const d of listed.body.destinations as { kind: string; track?: string }[])
      expect(d.track === undefined).toBe(d.kind === 'archive');
    for (const body of [
      { kind: 'youtube', url: YT, track: 'Spanish' },
      { kind: 'zoom', url: ZOOM, track: 42 },
    ]) {
      const bad = await request(outputs.app).post(path).set(as(TOKENS.write)).send(body);
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(/^track: /);
    }
    const archive = await request(outputs.app)
      .post(path)
      .set(as(TOKENS.write))
      .send({ kind: 'archive', track: 'es' });
    expect(archive.status).toBe(400);
    expect(archive.body.error.message).toMatch(/track/);
  });

  test('a host listed in OUTPUTS_ALLOWED_HOSTS may be http', async () => {
    const res = await request(outputs.app)
      .post(path)
      .set(as(TOKENS.write))
      .send({ kind: 'zoom', url: `http://127.0.0.1:4999/closedcaption?id=55&signature=${SIGNATURE}` });
    expect(res.status).toBe(201);
    expect(res.body.destination.target).toBe('http://127.0.0.1:4999/closedcaption?id=…55');
  });
});

describe('archive', () => {
  test('unknown sessions are 404 for readers, deleting needs the write token', async () => {
    expect((await request(outputs.app).get(`/rooms/${ROOM}/archive`).set(as(TOKENS.read))).body).toEqual({
      sessions: [],
    });
    const missing = await request(outputs.app)
      .get(`/rooms/${ROOM}/archive/00000000-0000-0000-0000-000000000000.srt`)
      .set(as(TOKENS.read));
    expect(missing.status).toBe(404);
    for (const file of ['x.doc', '00000000-0000-0000-0000-000000000000.es.srt', 'x.es.vtt', 'x..srt'])
      expect(
        (await request(outputs.app).get(`/rooms/${ROOM}/archive/${file}`).set(as(TOKENS.read))).status,
      ).toBe(404);
    expect(
      (await request(outputs.app).delete(`/rooms/${ROOM}/archive/abc`).set(as(TOKENS.read))).status,
    ).toBe(401);
    expect(
      (await request(outputs.app).delete(`/rooms/${ROOM}/archive/abc`).set(as(TOKENS.write))).status,
    ).toBe(404);
    expect((await request(outputs.app).get(`/rooms/${ROOM}/archive`).set(as(TOKENS.otherRead))).status).toBe(
      401,
    );
  });
});

describe('service', () => {
  test('CORS for the allowed origin only', async () => {
    const preflight = await request(outputs.app)
      .options(path)
      .set('Origin', ORIGIN)
      .set('Access-Control-Request-Method', 'POST');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/Authorization/);
    const foreign = await request(outputs.app).options(path).set('Origin', 'https://evil.example');
    expect(foreign.status).toBe(403);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    const get = await request(outputs.app).get(path).set(as(TOKENS.write)).set('Origin', ORIGIN);
    expect(get.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  test('health and metrics', async () => {
    const health = await request(outputs.app).get('/health');
    expect(health.body).toMatchObject({
      status: 'degraded',
      relay: 'connecting',
      db: 'ok',
      leases: { held: 1 },
    });
    expect(health.body.redis).toBeUndefined();
    const metrics = await request(outputs.app).get('/metrics');
    expect(metrics.text).toContain('outputs_leases_held');
    expect(metrics.text).toContain('outputs_captions_sent_total');
  });

  test('the logs never carry a secret URL or token', () => {
    const text = logs.text();
    expect(text).toContain('destination added');
    expect(text).toContain('no REDIS_URL');
    for (const secret of [SIGNATURE, TOKENS.write, TOKENS.read, 'stream1234'])
      expect(text).not.toContain(secret);
  });
});
