/**
 * The destinations API in-process on PGlite, refusing input that can never succeed (issue 36):
 * the same destination spelt another way, SSRF and address refusals, tokens checked before the
 * body is read; and that the log of it carries no secret.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { logCapture } from '@live-captions/test-services';
import request from 'supertest';
import type { Outputs } from '../src/app.js';
import { type App, as, startApp } from './helpers/app.js';
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

describe('input that can never succeed (issue 36)', () => {
  const YT2 = `https://upload.youtube.com/closedcaption?cid=c2&ns=yt&id=stream5678&signature=${SIGNATURE}`;

  test('a URL spelt another way is the same destination: 409', async () => {
    const first = await request(outputs.app)
      .post(path)
      .set(as(TOKENS.write))
      .send({ kind: 'youtube', url: YT2 });
    expect(first.status).toBe(201);
    for (const spelling of [
      YT2.replace('https://upload.youtube.com/', 'https://UPLOAD.YouTube.com:443/'),
      YT2.replace('cid=c2&ns=yt', 'ns=yt&cid=c2'),
      YT2.replace('https:', 'HTTP:'),
    ]) {
      const again = await request(outputs.app)
        .post(path)
        .set(as(TOKENS.write))
        .send({ kind: 'youtube', url: spelling });
      expect({ spelling, status: again.status, body: again.body }).toEqual({
        spelling,
        status: 409,
        body: { error: { message: 'This room already has that destination', code: 'conflict' } },
      });
    }
    expect(
      (await request(outputs.app).delete(`${path}/${first.body.destination.id}`).set(as(TOKENS.write)))
        .status,
    ).toBe(204);
  });

  test.each([
    ['a NUL', `${YT2}\u0000`],
    ['a control character', `${YT2.replace('cid=', 'c\u0007id=')}`],
    ['a space inside', YT2.replace('&ns=', ' &ns=')],
  ])('400 for a URL with %s, never 503', async (_what, url) => {
    const res = await request(outputs.app).post(path).set(as(TOKENS.write)).send({ kind: 'youtube', url });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { message: 'url: must not contain spaces or control characters', code: 'invalid_request' },
    });
  });

  test.each([
    ['a destination id with a NUL', `${path}/%00`],
    ['a destination id that is no id', `${path}/not-an-id`],
    ['an archive session with a NUL', `/rooms/${ROOM}/archive/a%00b`],
  ])('404 for %s, never 503', async (_what, url) => {
    const res = await request(outputs.app).delete(url).set(as(TOKENS.write));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  const URL_MESSAGE = 'url: must be the caption URL the platform shows (at most 4096 characters)';
  test.each<[string, unknown, string]>([
    ['lang 42', { kind: 'zoom', url: ZOOM, lang: 42 }, 'lang: must be a language tag like en-US'],
    ['lang null', { kind: 'zoom', url: ZOOM, lang: null }, 'lang: must be a language tag like en-US'],
    ['url 5', { kind: 'youtube', url: 5 }, URL_MESSAGE],
    ['url an array', { kind: 'youtube', url: ['x'] }, URL_MESSAGE],
    ['url of 4097 characters', { kind: 'youtube', url: 'x'.repeat(4097) }, URL_MESSAGE],
    ['no url', { kind: 'youtube' }, URL_MESSAGE],
    ['kind 5', { kind: 5 }, 'kind: must be youtube, zoom or archive'],
    ['no kind', {}, 'kind: must be youtube, zoom or archive'],
    ['an unknown field', { kind: 'archive', extra: 1 }, 'extra: unknown field'],
    ['an array', [1, 2], 'body: must be a JSON object with a kind'],
  ])('400 naming the field in our words for %s', async (_what, body, message) => {
    const res = await request(outputs.app)
      .post(path)
      .set(as(TOKENS.write))
      .send(body as object);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { message, code: 'invalid_request' } });
  });

  test.each([
    ['no token', {}],
    ['the read token', as(TOKENS.read)],
    ['a wrong token', as('x'.repeat(43))],
  ])(
    'with %s: 401 before the body is read (not 400 for bad JSON, not 413 for a large body)',
    async (_what, headers) => {
      const malformed = await request(outputs.app)
        .post(path)
        .set(headers)
        .set('Content-Type', 'application/json')
        .send('{"kind":');
      expect(malformed.status).toBe(401);
      const large = await request(outputs.app)
        .post(path)
        .set(headers)
        .send({ kind: 'youtube', url: `${YT}&pad=${'x'.repeat(17 * 1024)}` });
      expect(large.status).toBe(401);
      expect(large.body.error.code).toBe('unauthorized');
    },
  );
});

test('the logs never carry a secret URL or token', () => {
  const text = logs.text();
  for (const secret of [SIGNATURE, TOKENS.write, TOKENS.read, 'stream5678'])
    expect(text).not.toContain(secret);
});
