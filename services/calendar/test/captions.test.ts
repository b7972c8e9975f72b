import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import supertest from 'supertest';
import { openDatabase } from '../src/adapters/db.js';
import { migrate } from '../src/adapters/migrations.js';
import { parseTokens } from '../src/adapters/tokens.js';
import { buildApp } from '../src/app.js';
import { ROOT, type Role, startTestApi, tokenFile, tokens } from './helpers.js';

// Issue 41: the `captions` extension field, written by the scheduler through the event routes,
// read by anyone who may read the event; on PostgreSQL and on the embedded PGlite, with the
// answer cache on (a write must drop it, and renew the list memo's generation).
jest.setTimeout(120_000);

interface Api {
  request: supertest.Agent;
  by: (who: Role) => { post(path: string, body?: object): supertest.Test; get(path: string): supertest.Test };
  close(): Promise<void>;
}

/** The service on PGlite, as it starts without DATABASE_URL. */
async function startPglite(): Promise<Api> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cal-captions-'));
  const db = await openDatabase({ dataDir, poolSize: 1 });
  await migrate(db.knex);
  const app = buildApp({
    knex: db.knex,
    restRoot: '/wp-json',
    timezone: 'UTC',
    tokens: parseTokens(tokenFile),
    cacheTtlMs: 60_000,
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const request = supertest.agent(server);
  const as = (who: Role) => ({ Authorization: `Bearer ${tokens[who]}` });
  return {
    request,
    by: (who) => ({
      post: (path, body) => request.post(`${ROOT}/${path}`).set(as(who)).send(body),
      get: (path) => request.get(`${ROOT}/${path}`).set(as(who)),
    }),
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const backends: [string, () => Promise<Api>][] = [
  ['PostgreSQL', () => startTestApi({ cacheTtlMs: 60_000 })],
  ['PGlite', startPglite],
];

const OUT = 'https://captions.example.org/outputs/transcripts/3f1b';
const live = {
  room: 'hall-b',
  live: 'https://captions.example.org/audience.html#room=hall-b',
  transcripts: [],
};
const ended = {
  room: 'hall-b',
  live: null,
  transcripts: [
    { track: 'original', srt: `${OUT}.srt`, vtt: `${OUT}.vtt`, txt: `${OUT}.txt` },
    { track: 'de', srt: `${OUT}.de.srt`, vtt: `${OUT}.de.vtt`, txt: `${OUT}.de.txt` },
  ],
};
const talk = {
  title: 'Captions for everyone',
  description: '<p>Why every talk deserves captions.</p>',
  start_date: '2030-05-04 10:00:00',
  end_date: '2030-05-04 10:30:00',
  venue: { venue: 'Hall B' },
  categories: ['Talks'],
  status: 'publish',
};

describe.each(backends)('captions on %s', (_name, start) => {
  let api: Api;
  beforeAll(async () => {
    api = await start();
  });
  afterAll(async () => {
    await api?.close();
  });

  const create = async (body: Record<string, unknown>, who: Role = 'editor') => {
    const res = await api.by(who).post('events', { ...talk, ...body });
    expect(res.status).toBe(201);
    return res.body as Record<string, unknown> & { id: number };
  };
  const anonymous = (path: string) => api.request.get(`${ROOT}/${path}`);
  const listed = async (id: number) =>
    (
      (await anonymous(`events?include=${id}`)).body.events as {
        id: number;
        captions: unknown;
      }[]
    ).find((event) => event.id === id)?.captions;

  it('is null on an event without it, and last of the event keys, before json_ld', async () => {
    const event = await create({});
    expect(event.captions).toBeNull();
    const single = (await anonymous(`events/${event.id}`)).body;
    expect(Object.keys(single).slice(-3)).toEqual(['custom_fields', 'captions', 'json_ld']);
    expect(await listed(event.id)).toBeNull();
  });

  it('is written on create and update, and read by anyone, single and listed, the cache dropped', async () => {
    const event = await create({ captions: live });
    expect(event.captions).toEqual(live);
    expect((await anonymous(`events/${event.id}`)).body.captions).toEqual(live);
    expect(await listed(event.id)).toEqual(live);
    // The talk ended: the scheduler writes the transcripts; every reader sees them at once.
    const updated = await api.by('editor').post(`events/${event.id}`, { captions: ended });
    expect([updated.status, updated.body.captions]).toEqual([200, ended]);
    expect((await anonymous(`events/${event.id}`)).body.captions).toEqual(ended);
    expect(await listed(event.id)).toEqual(ended);
    expect(Object.keys((await anonymous(`events/${event.id}`)).body.captions)).toEqual([
      'room',
      'live',
      'transcripts',
    ]);
  });

  it('changes nothing else of the event on an update carrying only captions, and null clears it', async () => {
    const event = await create({ organizer: [{ organizer: 'Program team' }], cost: '5', featured: true });
    const before = (await anonymous(`events/${event.id}`)).body;
    const without = ({ captions, modified, modified_utc, json_ld, ...rest }: Record<string, unknown>) => rest;
    expect((await api.by('editor').post(`events/${event.id}`, { captions: live })).status).toBe(200);
    const after = (await anonymous(`events/${event.id}`)).body;
    expect(after.captions).toEqual(live);
    expect(without(after)).toEqual(without(before));
    expect(after).toMatchObject({ title: talk.title, start_date: talk.start_date, end_date: talk.end_date });
    const cleared = await api.by('editor').post(`events/${event.id}`, { captions: null });
    expect([cleared.status, cleared.body.captions]).toEqual([200, null]);
    expect(without((await anonymous(`events/${event.id}`)).body)).toEqual(without(before));
    // A form body's empty value clears it too (WordPress clients send forms).
    await api.by('editor').post(`events/${event.id}`, { captions: live });
    const form = await api.request
      .post(`${ROOT}/events/${event.id}`)
      .set({ Authorization: `Bearer ${tokens.editor}` })
      .type('form')
      .send('captions=');
    expect([form.status, form.body.captions]).toEqual([200, null]);
    // An update of other fields keeps it.
    await api.by('editor').post(`events/${event.id}`, { captions: ended });
    const renamed = await api.by('editor').post(`events/${event.id}`, { title: 'Captions for all' });
    expect(renamed.body.captions).toEqual(ended);
  });

  const link = 'https://captions.example.org/t.vtt';
  const one = { track: 'original', srt: link, vtt: link, txt: link };
  it.each([
    ['a string', 'hall-b', /^captions must be null or an object/],
    ['a list', [live], /^captions must be null or an object/],
    ['no room', { live: null, transcripts: [] }, /^captions\[room\] must be a caption room id/],
    ['a room with a space', { ...live, room: 'hall b' }, /^captions\[room\] must be a caption room id/],
    [
      'a javascript: link',
      { ...live, live: 'javascript:alert(1)' },
      /^captions\[live\] must be an http or https URL/,
    ],
    ['an ftp link', { ...live, live: 'ftp://example.org/x' }, /^captions\[live\] must be an http/],
    [
      'a link with credentials',
      { ...live, live: 'https://u:p@example.org/' },
      /^captions\[live\] must be an http/,
    ],
    ['a relative link', { ...live, live: '/audience.html' }, /^captions\[live\] must be an http/],
    [
      'a link too long',
      { ...live, live: `https://example.org/${'a'.repeat(2048)}` },
      /^captions\[live\] must be/,
    ],
    ['a link with a space', { ...live, live: 'https://example.org/a b' }, /^captions\[live\] must be/],
    ['a number as link', { ...live, live: 5 }, /^captions\[live\] must be/],
    [
      'a transcript without vtt',
      { ...live, transcripts: [{ track: 'de', srt: link, txt: link }] },
      /^captions\[transcripts\]\[0\]\[vtt\] must be/,
    ],
    [
      'a data: transcript',
      { ...live, transcripts: [{ ...one, txt: 'data:text/plain,hi' }] },
      /^captions\[transcripts\]\[0\]\[txt\] must be/,
    ],
    [
      'a bad track',
      { ...live, transcripts: [{ ...one, track: 'deutsch!' }] },
      /^captions\[transcripts\]\[0\]\[track\] must be "original" or a language tag/,
    ],
    [
      'a track twice',
      {
        ...live,
        transcripts: [
          { ...one, track: 'de' },
          { ...one, track: 'DE' },
        ],
      },
      /^captions\[transcripts\] must name each track once/,
    ],
    [
      '51 transcripts',
      {
        ...live,
        transcripts: Array.from({ length: 51 }, (_, n) => ({
          ...one,
          track: `x${String.fromCharCode(97 + (n % 26))}-${n}`,
        })),
      },
      /^captions\[transcripts\] must hold at most 50 transcripts/,
    ],
    ['an unknown key', { ...live, title: 'x' }, /^captions\[title\] is not a known field/],
    [
      'an unknown transcript key',
      { ...live, transcripts: [{ ...one, pdf: link }] },
      /^captions\[transcripts\]\[0\]\[pdf\] is not a known field/,
    ],
    ['a NUL', { ...live, room: 'a\u0000' }, /^captions must not contain NUL characters/],
  ])(
    'refuses %s with 400 rest_invalid_param naming captions, changing nothing',
    async (_what, captions, message) => {
      const event = await create({ captions: ended });
      const res = await api.by('editor').post(`events/${event.id}`, { captions, title: 'Changed' });
      expect([res.status, res.body.code, Object.keys(res.body.data.params)]).toEqual([
        400,
        'rest_invalid_param',
        ['captions'],
      ]);
      expect(res.body.message).toBe('Invalid parameter(s): captions');
      expect(res.body.data.params.captions).toMatch(message);
      const stored = (await anonymous(`events/${event.id}`)).body;
      expect([stored.title, stored.captions]).toEqual([talk.title, ended]);
      // A create is refused alike.
      expect((await api.by('editor').post('events', { ...talk, captions })).status).toBe(400);
    },
  );

  it('is refused to a contributor on someone else’s event as any field is, and allowed on its own draft', async () => {
    const theirs = await create({ captions: ended });
    const asContributor = await api.by('contributor').post(`events/${theirs.id}`, { captions: live });
    const titleAsContributor = await api.by('contributor').post(`events/${theirs.id}`, { title: 'Mine' });
    expect([asContributor.status, asContributor.body.code]).toEqual([403, titleAsContributor.body.code]);
    expect(titleAsContributor.status).toBe(403);
    expect((await anonymous(`events/${theirs.id}`)).body.captions).toEqual(ended);
    expect((await api.request.post(`${ROOT}/events/${theirs.id}`).send({ captions: live })).status).toBe(401);
    const own = await create({ status: 'draft' }, 'contributor');
    const mine = await api.by('contributor').post(`events/${own.id}`, { captions: live });
    expect([mine.status, mine.body.captions]).toEqual([200, live]);
  });

  it('is hidden with the rest of a password-protected event until the password is given', async () => {
    const event = await create({ captions: ended, password: 'pw' });
    const refused = await anonymous(`events/${event.id}`);
    expect([refused.status, refused.body.code, refused.body.captions]).toEqual([
      403,
      'event-password-protected',
      undefined,
    ]);
    expect((await anonymous(`events/${event.id}?password=pw`)).body.captions).toEqual(ended);
    expect(await listed(event.id)).toBeNull();
  });

  it('is documented in /doc, as a write argument and in the Event schema', async () => {
    const doc = (await anonymous('doc')).body;
    const event = doc.components.schemas.Event.properties.captions;
    expect(event).toMatchObject({ nullable: true, description: expect.stringMatching(/extension/) });
    expect(Object.keys(event.properties)).toEqual(['room', 'live', 'transcripts']);
    const update = doc.paths['/events/{id}'].post.requestBody.content['application/json'].schema.properties;
    expect(update.captions.description).toMatch(/TEC clients ignore it/);
  });
});
