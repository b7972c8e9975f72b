import { gzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { ROOT, useTestApi } from './helpers.js';

// Input PostgreSQL or the HTTP layer cannot take must come back as a 4xx naming the problem,
// never as a 500 from a failed query.
const api = useTestApi();

const event = { title: 'Edge', start_date: '2030-07-01 18:00:00', end_date: '2030-07-01 21:00:00' };
const TOO_BIG = '99999999999';

describe('ids beyond PostgreSQL integers', () => {
  it.each([
    [`${ROOT}/events/${TOO_BIG}`, 'id'],
    [`${ROOT}/venues/${TOO_BIG}`, 'id'],
    [`${ROOT}/categories/${TOO_BIG}`, 'id'],
    [`${ROOT}/events?venue=${TOO_BIG}`, 'venue'],
    [`${ROOT}/events?include=${TOO_BIG}`, 'include'],
    [`${ROOT}/events?post_parent=${TOO_BIG}`, 'post_parent'],
    [`${ROOT}/venues?event=${TOO_BIG}`, 'event'],
    [`${ROOT}/categories?parent=${TOO_BIG}`, 'parent'],
    [`${ROOT}/categories?exclude=${TOO_BIG}`, 'exclude'],
  ])('GET %s answers 400 naming %s', async (url, param) => {
    const res = await api.request.get(url);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('rest_invalid_param');
    expect(res.body.data.params[param]).toContain('2147483647');
  });

  it('reads a category id too large to exist as a name no term has', async () => {
    const res = await api.request.get(`${ROOT}/events?categories=${TOO_BIG}`);
    expect(res.status).toBe(400);
    expect(res.body.data.params.categories).toBe(`categories: unknown term ${TOO_BIG}.`);
  });

  it('refuses them in writes', async () => {
    const venue = await api.by('admin').post('events', { ...event, venue: [Number(TOO_BIG)] });
    expect(venue.status).toBe(400);
    expect(venue.body.code).toBe('rest_invalid_param');
    const parent = await api.by('admin').post('events', { ...event, post_parent: Number(TOO_BIG) });
    expect(parent.status).toBe(400);
    expect(parent.body.data.params.post_parent).toContain('2147483647');
  });
});

describe('NUL characters', () => {
  it('are refused in queries, paths and bodies with 400', async () => {
    for (const url of [`${ROOT}/venues?search=a%00b`, `${ROOT}/events/by-slug/a%00`]) {
      const res = await api.request.get(url);
      expect([url, res.status, res.body.code]).toEqual([url, 400, 'rest_invalid_param']);
    }
    const res = await api.by('admin').post('events', { ...event, title: 'nul\u0000x' });
    expect(res.status).toBe(400);
    expect(res.body.data.params.title).toBe('title must not contain NUL characters.');
  });
});

describe('what the HTTP layer refuses', () => {
  it('answers 400 to a path that does not decode', async () => {
    const res = await api.request.get(`${ROOT}/events/by-slug/%E0%A4%A`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'rest_invalid_request', data: { status: 400 } });
    expect(res.body.message).toBe('The request path is not valid percent-encoded UTF-8.');
  });

  it('answers 413 to a body over 1 MB', async () => {
    const res = await api.by('admin').post('events', { ...event, description: 'x'.repeat(1_100_000) });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 'rest_request_too_large', data: { status: 413 } });
  });

  /** An event POST of JSON `bytes` sent as they are, labelled with Content-Encoding `encoding`. */
  const postEncoded = (encoding: string, bytes: Buffer) =>
    api
      .by('admin')
      .post('events')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', encoding)
      .serialize((body) => body) // the bytes as they are, not JSON of a Buffer
      .send(bytes);

  it('answers 415 to a charset or encoding it cannot read', async () => {
    const charset = await api
      .by('admin')
      .post('events')
      .set('Content-Type', 'application/json; charset=latin1')
      .send(JSON.stringify(event));
    expect(charset.status).toBe(415);
    expect(charset.body.code).toBe('rest_unsupported_media_type');
    const encoding = await postEncoded('x-unknown', Buffer.from(JSON.stringify(event)));
    expect(encoding.status).toBe(415);
    expect([charset.body.message, encoding.body.message]).toEqual([
      'The request body must be UTF-8.',
      'The request body is in a Content-Encoding this API does not read.',
    ]);
  });

  it('reads a gzip body, and answers 400 to a corrupt one', async () => {
    const good = await postEncoded('gzip', gzipSync(JSON.stringify({ ...event, title: 'Zipped' })));
    expect(good.status).toBe(201);
    expect(good.body.title).toBe('Zipped');
    const corrupt = await postEncoded('gzip', Buffer.from('definitely not gzip'));
    expect(corrupt.status).toBe(400);
    expect(corrupt.body.data.status).toBe(400);
    expect(corrupt.body.message).toBe('The request body does not decode with its Content-Encoding.');
  });
});
