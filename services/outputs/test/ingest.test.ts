/**
 * Acceptance is exactly once at the database: the same relay position accepted twice, even
 * concurrently, yields one outbox row per destination; a new epoch (relay restarted) is accepted.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { type Database, openDatabase } from '@live-captions/sql';
import { destinationsRepo } from '../src/adapters/destinations-repo.js';
import { ingestRepo } from '../src/adapters/ingest-repo.js';
import { migrate } from '../src/adapters/migrations.js';
import { createDatabase } from './helpers/index.js';

let db: Database;

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
    key: `${epoch}-${sequence}`,
    text: `text ${sequence}`,
    at: Date.now(),
  });

  const results = await Promise.all([1, 2, 3].map(() => ingest.accept('room', caption(1))));
  expect(results.filter((r) => r !== undefined)).toEqual([{ archived: true }]);
  expect(await ingest.accept('room', caption(2))).toEqual({ archived: true });
  expect(await ingest.accept('room', caption(1))).toBeUndefined();
  // The relay restarted: its new epoch counts from 1 again.
  expect(await ingest.accept('room', caption(1, 'e2'))).toEqual({ archived: true });
  expect(await ingest.cursor('room')).toEqual({ epoch: 'e2', sequence: 1 });

  const [row] = await destinations.list('room');
  expect(row?.behind).toBe(3);
  const rows = await db.knex('out_archive').select('text');
  expect(rows.map((r: { text: string }) => r.text)).toEqual(['text 1', 'text 2', 'text 1']);
});
