/**
 * Issue 41: the scheduler conducts the archive. `PUT /rooms/:room/archive/event` cuts the room's
 * sessions at talk boundaries, each talk's transcript is public under /transcripts, and the open
 * talk survives a restart. Real processes (the relay with a rooms store, the outputs service) on
 * PostgreSQL and on PGlite, captions published through the relay.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import type { ArchiveEventAnswer, ArchiveSession, PublicTranscript } from '@live-captions/protocol';
import type { RelayPublisher } from '@live-captions/relay-client/node';
import {
  api,
  createDatabase,
  freePort,
  kill,
  publisher,
  ROOM,
  type Running,
  reading,
  relayConfigFile,
  startOutputs,
  startRelay,
  TOKENS,
  until,
} from './helpers/index.js';

jest.setTimeout(180_000);

const KEY = 'outputs-events-test-key-0123456789abcdef';
const EVENT_PATH = `/rooms/${ROOM}/archive/event`;
const minutes = (n: number) => new Date(Date.UTC(2030, 4, 4, 9, 0) + n * 60_000).toISOString();
/** A 30-minute talk `from` minutes after 09:00 UTC. */
const talk = (id: number, title: string, from: number) => ({
  id,
  title,
  start: minutes(from),
  end: minutes(from + 30),
});
const A = talk(101, 'Opening keynote', 0);
const B = talk(102, 'Captions for everyone', 30);
const C = talk(103, 'Closing', 90);

const pgliteDir = async () => ({ OUTPUTS_DATA_DIR: mkdtempSync(join(tmpdir(), 'outputs-events-')) });
const backends: [string, { store: () => Promise<Record<string, string>>; stop: NodeJS.Signals }][] = [
  ['PostgreSQL', { store: async () => ({ DATABASE_URL: await createDatabase() }), stop: 'SIGKILL' }],
  ['PGlite', { store: pgliteDir, stop: 'SIGTERM' }],
];

describe.each(backends)('the scheduler conducts the archive (%s)', (_name, backend) => {
  let relay: Running | undefined;
  let outputs: Running | undefined;
  let writer: RelayPublisher | undefined;
  let env: Record<string, string>;
  /** Session ids by talk (`between`: the untagged one). */
  const ids = {} as Record<'A' | 'B' | 'between' | 'C' | 'D', string>;

  beforeAll(async () => {
    const configPath = relayConfigFile();
    relay = await startRelay(configPath, await freePort(), undefined, {
      RELAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'outputs-events-relay-')),
      CAPTION_API_KEY: KEY,
    });
    env = {
      CAPTION_RELAY_CONFIG: configPath,
      RELAY_URL: `ws://127.0.0.1:${relay.port}/ws`,
      CAPTION_API_KEY: KEY,
      ...(await backend.store()),
    };
    outputs = await startOutputs(env);
  });

  afterAll(async () => {
    writer?.close();
    await kill(outputs);
    await kill(relay);
  });

  const port = () => outputs!.port;
  const put = (body: unknown, token = KEY) => api(port(), 'PUT', EVENT_PATH, token, body);
  const putEvent = async (event: typeof A | null, token = KEY) => {
    const answer = await put({ event }, token);
    expect(answer.status).toBe(200);
    return (answer.json as ArchiveEventAnswer).session!;
  };
  const sessions = async () =>
    ((await api(port(), 'GET', `/rooms/${ROOM}/archive`, TOKENS.read)).json as { sessions: ArchiveSession[] })
      .sessions;
  const captionsOf = async (id: string) => (await sessions()).find((s) => s.id === id)?.captions;
  const publicGet = (path: string, init?: RequestInit) =>
    fetch(new URL(path, `http://127.0.0.1:${port()}/`), init);
  const destinations = async () =>
    (
      (await api(port(), 'GET', `/rooms/${ROOM}/destinations`, TOKENS.write)).json as {
        destinations: { id: string; kind: string }[];
      }
    ).destinations;
  /** Publishes `texts` as finals and waits until `session` holds `total` original captions. */
  const say = async (session: string, texts: string[], total: number) => {
    for (const text of texts) writer!.publish({ final: text, id: text });
    await until(`${total} captions in ${session}`, async () => (await captionsOf(session)) === total);
  };

  test('refuses bad bodies and wrong tokens, and changes nothing then', async () => {
    const raw = (body: string, token = KEY) =>
      fetch(`http://127.0.0.1:${port()}${EVENT_PATH}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
    for (const token of ['', TOKENS.read, TOKENS.otherWrite, 'x'.repeat(43)])
      expect([token, (await put({ event: A }, token)).status]).toEqual([token, 401]);
    const cases: [string, number, string | RegExp][] = [
      ['{', 400, 'body: not valid JSON'],
      ['[]', 400, /^body: /],
      ['{}', 400, /^event: /],
      [JSON.stringify({ event: { ...A, id: -1 } }), 400, /^event\.id: /],
      [JSON.stringify({ event: { ...A, title: 'a\u0000b' } }), 400, /^event\.title: /],
      [
        JSON.stringify({ event: { ...A, end: minutes(-1) } }),
        400,
        'event.end: must not be before event.start',
      ],
      [JSON.stringify({ event: { ...A, start: 'tomorrow' } }), 400, /^event\.start: /],
      [JSON.stringify({ event: null, room: 'x' }), 400, 'room: unknown field'],
      [JSON.stringify({ event: { ...A, title: 'x'.repeat(20_000) } }), 413, 'Body over 16 KiB'],
    ];
    for (const [body, status, message] of cases) {
      const res = await raw(body);
      const answer = (await res.json()) as { error: { message: string; code: string } };
      expect([body.slice(0, 40), res.status]).toEqual([body.slice(0, 40), status]);
      expect(answer.error.message).toMatch(message);
    }
    // The service token passes for any room, but only for a name a room can have.
    expect((await api(port(), 'PUT', '/rooms/a%20b/archive/event', KEY, { event: A })).status).toBe(404);
    expect(await sessions()).toEqual([]);
    expect(await destinations()).toEqual([]);
  });

  test('a first talk opens its session and gives the room an archive', async () => {
    const session = await putEvent(A);
    expect(session).toEqual({
      id: expect.any(String),
      event: A,
      startedAt: expect.any(String),
      endedAt: null,
    });
    ids.A = session.id;
    expect((await destinations()).map((d) => d.kind)).toEqual(['archive']);
    await reading(port());
    writer = publisher(relay!.port);
    await say(ids.A, ['A one.', 'A two.'], 2);
    writer.publish({ final: 'A eins.', id: 'A one.', label: 'translation', ln: 'de' });
    await until('the German track', async () =>
      (await sessions())[0]!.tracks.some((t) => t.track === 'de' && t.captions === 1),
    );
  });

  test('the same event again changes nothing; a renamed one keeps its session', async () => {
    expect((await putEvent(A, TOKENS.write)).id).toBe(ids.A);
    expect((await putEvent(A)).id).toBe(ids.A);
    const renamed = { ...A, title: 'Opening keynote (moved)', end: minutes(35) };
    expect(await putEvent(renamed)).toMatchObject({ id: ids.A, event: renamed });
    await say(ids.A, ['A three.'], 3);
    const [only] = await sessions();
    expect(only).toMatchObject({ id: ids.A, event: renamed, endedAt: null, captions: 3 });
  });

  test('the next talk, between talks and a later talk: each caption lands in the open session', async () => {
    ids.B = (await putEvent(B)).id;
    expect(ids.B).not.toBe(ids.A);
    await say(ids.B, ['B one.', 'B two.'], 2);
    const between = await putEvent(null);
    expect(between.event).toBeNull();
    ids.between = between.id;
    await say(ids.between, ['Coffee break chatter.'], 1);
    ids.C = (await putEvent(C)).id;
    await say(ids.C, ['C one.'], 1);
    const list = await sessions();
    expect(list.map((s) => [s.event?.id ?? null, s.captions])).toEqual([
      [A.id, 3],
      [B.id, 2],
      [null, 1],
      [C.id, 1],
    ]);
    // Each cut ends the session before it: endedAt is when the next began.
    for (const [index, session] of list.slice(0, -1).entries())
      expect(session.endedAt).toBe(list[index + 1]!.startedAt);
    expect(list.at(-1)!.endedAt).toBeNull();
  });

  test('public transcripts: a talk holds only its own captions, for any origin; nothing else is public', async () => {
    const index = await publicGet(`transcripts/${ids.A}`, { headers: { origin: 'https://talks.example' } });
    expect([
      index.status,
      index.headers.get('access-control-allow-origin'),
      index.headers.get('cross-origin-resource-policy'),
    ]).toEqual([200, '*', 'cross-origin']);
    const transcript = (await index.json()) as PublicTranscript;
    expect(transcript).toMatchObject({ session: ids.A, event: { id: A.id }, endedAt: expect.any(String) });
    expect(transcript.tracks).toEqual([
      {
        track: 'original',
        captions: 3,
        srt: `transcripts/${ids.A}.srt`,
        vtt: `transcripts/${ids.A}.vtt`,
        txt: `transcripts/${ids.A}.txt`,
      },
      {
        track: 'de',
        captions: 1,
        srt: `transcripts/${ids.A}.de.srt`,
        vtt: `transcripts/${ids.A}.de.vtt`,
        txt: `transcripts/${ids.A}.de.txt`,
      },
    ]);
    const texts = async (path: string) => {
      const res = await publicGet(path);
      expect([path, res.status, res.headers.get('access-control-allow-origin')]).toEqual([path, 200, '*']);
      return res.text();
    };
    const original = await texts(transcript.tracks[0]!.txt);
    expect(original.match(/[ABC] (one|two|three)\./g)).toEqual(['A one.', 'A two.', 'A three.']);
    expect(await texts(transcript.tracks[0]!.srt)).toMatch(/^1\r?\n00:00:0/);
    expect(await texts(transcript.tracks[1]!.vtt)).toMatch(/^WEBVTT[\s\S]*A eins\./);
    const b = await texts(`transcripts/${ids.B}.txt`);
    expect(b.match(/[ABC] (one|two|three)\./g)).toEqual(['B one.', 'B two.']);
    expect(b).not.toContain('Coffee');
    // The untagged session, an unknown id, a track the talk lacks, a name no file has: 404, readable anywhere.
    for (const path of [
      `transcripts/${ids.between}`,
      `transcripts/${ids.between}.txt`,
      'transcripts/00000000-0000-4000-8000-000000000000.vtt',
      `transcripts/${ids.A}.fr.vtt`,
      `transcripts/${ids.A}.pdf`,
      'transcripts/%00',
    ]) {
      const res = await publicGet(path);
      expect([path, res.status, res.headers.get('access-control-allow-origin')]).toEqual([path, 404, '*']);
    }
    const preflight = await publicGet(`transcripts/${ids.A}.vtt`, {
      method: 'OPTIONS',
      headers: { origin: 'https://talks.example', 'access-control-request-method': 'GET' },
    });
    expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([204, '*']);
  });

  test('a restart keeps the open talk: the same event again is the same session, and it goes on', async () => {
    writer?.close();
    outputs!.proc.child.kill(backend.stop);
    await outputs!.proc.exited;
    outputs = await startOutputs(env);
    expect((await putEvent(C)).id).toBe(ids.C);
    await reading(port());
    writer = publisher(relay!.port);
    await say(ids.C, ['C two.'], 2);
    expect((await sessions()).at(-1)).toMatchObject({ id: ids.C, event: C, endedAt: null });
  });

  test('an empty between-talks session is not kept, an empty talk is', async () => {
    const between = await putEvent(null);
    const D = talk(104, 'Nobody came', 150);
    ids.D = (await putEvent(D)).id;
    const E = talk(105, 'Lightning talks', 180);
    await putEvent(E);
    const list = await sessions();
    expect(list.map((s) => s.id)).not.toContain(between.id);
    expect(list.slice(-3).map((s) => [s.event?.id ?? null, s.captions])).toEqual([
      [C.id, 2],
      [D.id, 0],
      [E.id, 0],
    ]);
    expect((await publicGet(`transcripts/${ids.D}.txt`)).status).toBe(200);
  });

  test('a room whose archive the operator removed during a talk is not archived again until the next', async () => {
    const [archive] = await destinations();
    const path = `/rooms/${ROOM}/destinations/${archive!.id}`;
    expect((await api(port(), 'DELETE', path, TOKENS.write)).status).toBe(204);
    const E = (await sessions()).at(-1)!;
    // The scheduler's retry of the running talk: its closed session, no archive added.
    const again = await putEvent(talk(105, 'Lightning talks', 180));
    expect(again).toMatchObject({ id: E.id, endedAt: expect.any(String) });
    expect((await api(port(), 'PUT', EVENT_PATH, KEY, { event: null })).json).toEqual({ session: null });
    expect(await destinations()).toEqual([]);
    // The next talk is the schedule's again.
    const F = talk(106, 'Panel', 210);
    expect((await putEvent(F)).event).toEqual(F);
    expect((await destinations()).map((d) => d.kind)).toEqual(['archive']);
  });

  test('the same event PUT at once by replicas and retries opens one session', async () => {
    const G = talk(107, 'Everyone at once', 240);
    const answers = await Promise.all(Array.from({ length: 8 }, () => putEvent(G)));
    expect(new Set(answers.map((answer) => answer.id)).size).toBe(1);
    expect((await sessions()).filter((s) => s.endedAt === null).map((s) => s.event?.id)).toEqual([G.id]);
  });
});
