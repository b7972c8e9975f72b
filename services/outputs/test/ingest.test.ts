/**
 * Acceptance is exactly once at the database: the same relay position accepted twice, even
 * concurrently, yields one outbox row per destination; a new epoch (relay restarted) is accepted.
 * Each caption reaches what its track feeds (destinations, the archive per track, translations).
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { type Database, openDatabase } from '@live-captions/sql';
import { DuplicateDestination, destinationsRepo } from '../src/adapters/destinations-repo.js';
import { ingestRepo } from '../src/adapters/ingest-repo.js';
import { MIGRATIONS, migrate } from '../src/adapters/migrations.js';
import { outboxRepo } from '../src/adapters/outbox-repo.js';
import { translationsRepo } from '../src/adapters/translations-repo.js';
import { createDatabase } from './helpers/index.js';

let db: Database;
const ARCHIVED = { archived: true, sent: true, queued: false };

beforeAll(async () => {
  db = await openDatabase({ url: await createDatabase(), dataDir: '' });
  await migrate(db.knex);
});

afterAll(async () => {
  await db?.close();
});

test('a position is accepted once, whoever accepts it', async () => {
  const ingest = ingestRepo(db.knex, { sessionIdleMs: 60_000 });
  const destinations = destinationsRepo(db.knex);
  await destinations.add('room', 'youtube', 'https://upload.youtube.com/closedcaption?id=1', null);
  await destinations.add('room', 'archive', null, null);
  const caption = (sequence: number, epoch = 'e1') => ({
    cursor: { epoch, sequence },
    id: `${epoch}-${sequence}`,
    text: `text ${sequence}`,
    at: Date.now(),
    track: 'original',
    clear: false,
  });

  const results = await Promise.all([1, 2, 3].map(() => ingest.accept('room', caption(1))));
  expect(results.filter((r) => r !== undefined)).toEqual([ARCHIVED]);
  expect(await ingest.accept('room', caption(2))).toEqual(ARCHIVED);
  expect(await ingest.accept('room', caption(1))).toBeUndefined();
  // The relay restarted: its new epoch counts from 1 again.
  expect(await ingest.accept('room', caption(1, 'e2'))).toEqual(ARCHIVED);
  expect(await ingest.cursor('room')).toEqual({ epoch: 'e2', sequence: 1 });

  const [row] = await destinations.list('room');
  expect(row?.behind).toBe(3);
  const rows = await db.knex('out_archive').select('text');
  expect(rows.map((r: { text: string }) => r.text)).toEqual(['text 1', 'text 2', 'text 1']);
});

test('each caption goes to its track: destinations of that track, the archive per track, originals to the translation targets', async () => {
  const room = 'tracks';
  const ingest = ingestRepo(db.knex, { sessionIdleMs: 60_000 });
  const destinations = destinationsRepo(db.knex);
  const translations = translationsRepo(db.knex);
  const youtube = await destinations.add(
    room,
    'youtube',
    'https://upload.youtube.com/closedcaption?id=2',
    null,
  );
  const zoom = await destinations.add(room, 'zoom', 'https://wmcapi.zoom.us/closedcaption?id=3', 'es', 'es');
  await destinations.add(room, 'archive', null, null);
  const targets = [
    await translations.add(
      room,
      { target: 'es', source: 'en', engine: 'apertium', url: null, key: null },
      '{}',
    ),
    await translations.add(
      room,
      { target: 'ca', source: 'en', engine: 'apertium', url: null, key: null },
      '{}',
    ),
  ];
  let sequence = 0;
  const accept = (fields: {
    id: string | number;
    text: string;
    track?: string;
    clear?: boolean;
    at?: number;
  }) =>
    ingest.accept(room, {
      cursor: { epoch: 'e', sequence: ++sequence },
      track: 'original',
      clear: false,
      at: Date.now(),
      ...fields,
    });

  const t0 = Date.now() - 5000;
  expect(await accept({ id: 1, text: 'Hello.', at: t0 })).toEqual({
    archived: true,
    sent: true,
    queued: true,
  });
  // The stage's translation: Zoom on track es gets it, YouTube (original) does not; archived on its
  // own track at the original's time, though it came later.
  expect(await accept({ id: 1, text: 'Hola.', track: 'es' })).toEqual({
    archived: true,
    sent: true,
    queued: false,
  });
  expect(await accept({ id: 1, text: 'Hola!', track: 'es' })).toEqual({
    archived: true,
    sent: true,
    queued: false,
  });
  // A track nobody sends to is still archived.
  expect(await accept({ id: 1, text: 'Hola.', track: 'ca' })).toEqual({
    archived: true,
    sent: false,
    queued: false,
  });
  // A clear of the original reaches only the translation targets.
  expect(await accept({ id: 'x', text: '', clear: true })).toEqual({
    archived: false,
    sent: false,
    queued: true,
  });

  const outbox = async (id: string) =>
    (await db.knex('out_outbox').where({ destination_id: id }).orderBy('id')).map(
      (r: { text: string }) => r.text,
    );
  expect(await outbox(youtube)).toEqual(['Hello.']);
  expect(await outbox(zoom)).toEqual(['Hola.', 'Hola!']);
  for (const target of targets) {
    const queue = await db.knex('out_translation_queue').where({ translation_id: target }).orderBy('id');
    expect(
      queue.map((r: { caption_id: string; text: string; clear: boolean }) => [r.caption_id, r.text, r.clear]),
    ).toEqual([
      ['1', 'Hello.', false],
      ['"x"', '', true],
    ]);
  }
  const archive = await db
    .knex('out_archive')
    .join('out_sessions', 'out_sessions.id', 'out_archive.session_id')
    .where('out_sessions.room', room)
    .orderBy('out_archive.id')
    .select('track', 'caption_key', 'text', 'at');
  expect(archive.map((r: { track: string; text: string }) => [r.track, r.text])).toEqual([
    ['original', 'Hello.'],
    ['es', 'Hola!'],
    ['ca', 'Hola.'],
  ]);
  expect(archive.every((r: { at: unknown }) => Number(r.at) === t0)).toBe(true);

  // A gap is marked in every track of the session, just after its last caption (the captions
  // replayed after it keep their own times), and shown on every destination of the room.
  const [open] = await db.knex('out_sessions').where({ room }).whereNull('ended_at').select('last_at');
  const lastAt = Number(open.last_at);
  await ingest.gap(room, { epoch: 'e2', sequence: 0 }, Date.now() + 60_000, 'captions missed');
  const marks = await db
    .knex('out_archive')
    .join('out_sessions', 'out_sessions.id', 'out_archive.session_id')
    .where('out_sessions.room', room)
    .whereNull('caption_key')
    .orderBy('track')
    .select('track', 'at');
  expect(marks.map((r: { track: string; at: unknown }) => [r.track, Number(r.at)])).toEqual([
    ['ca', lastAt + 1],
    ['es', lastAt + 1],
    ['original', lastAt + 1],
  ]);
  expect((await destinations.list(room)).map((d) => d.lastError)).toEqual(
    (await destinations.list(room)).map(() => 'captions missed'),
  );
});

test('captions too old for a live platform leave the outbox unsent and are counted; a fixed POST stays', async () => {
  const room = 'stale';
  const ingest = ingestRepo(db.knex, { sessionIdleMs: 60_000 });
  const destinations = destinationsRepo(db.knex);
  const outbox = outboxRepo(db.knex);
  const id = await destinations.add(room, 'zoom', 'https://wmcapi.zoom.us/closedcaption?id=9', null);
  const now = Date.now();
  const ages = [300_000, 200_000, 90_000, 59_000, 1000];
  for (const [index, age] of ages.entries())
    await ingest.accept(room, {
      cursor: { epoch: 'e', sequence: index + 1 },
      id: index + 1,
      text: `caption ${index + 1}`,
      at: now - age,
      track: 'original',
      clear: false,
    });
  const bodyOf = (captions: { text: string }[]) => captions.map((c) => c.text).join('\n');
  // One POST fixed before the outage's end: it keeps its seq and body, whatever its age.
  expect(await outbox.fix(id, 1, bodyOf, now - 400_000)).toEqual({
    post: { seq: 1, body: 'caption 1', captions: 1 },
    skipped: 0,
  });
  expect(await outbox.fix(id, 20, bodyOf, now - 60_000)).toEqual({
    post: { seq: 2, body: 'caption 4\ncaption 5', captions: 2 },
    skipped: 2,
  });
  expect(await outbox.pending(id)).toEqual({ seq: 1, body: 'caption 1', captions: 1 });
  expect(await outbox.fix(id, 20, bodyOf, now)).toEqual({ skipped: 0 });
  const [row] = await destinations.list(room);
  expect(row).toMatchObject({ skipped: 2, behind: 3, lastSeq: 2 });
});

test('an earlier schema’s destinations get normalised target keys; two spellings of one stream keep both rows', async () => {
  const url = `${await createDatabase()}`;
  const old = await openDatabase({ url, dataDir: '' });
  try {
    await old.knex.migrate.up(MIGRATIONS); // 0001 only: keys were the URL as typed
    const base = 'https://upload.youtube.com/closedcaption?cid=X&ns=yt';
    const rows = [
      ['a', 'room', base],
      ['b', 'room', 'https://UPLOAD.YouTube.com:443/closedcaption?ns=yt&cid=X'],
      ['c', 'other', 'https://UPLOAD.youtube.com/closedcaption?cid=Y'],
    ];
    for (const [id, room, target] of rows)
      await old
        .knex('out_destinations')
        .insert({ id, room, kind: 'youtube', url: target, target_key: target, created_at: 1 });
    await migrate(old.knex);
    const keys = await old.knex('out_destinations').orderBy('id').select('id', 'target_key');
    expect(keys).toEqual([
      { id: 'a', target_key: base },
      // The same stream as `a`: it keeps its key (unique per room) for the operator to remove.
      { id: 'b', target_key: 'https://UPLOAD.YouTube.com:443/closedcaption?ns=yt&cid=X' },
      { id: 'c', target_key: 'https://upload.youtube.com/closedcaption?cid=Y' },
    ]);
    // From now on a third spelling is the same destination.
    await expect(
      destinationsRepo(old.knex).add(
        'other',
        'youtube',
        'https://upload.youtube.com:443/closedcaption?cid=Y',
        null,
      ),
    ).rejects.toThrow(DuplicateDestination);
  } finally {
    await old.close();
  }
});
