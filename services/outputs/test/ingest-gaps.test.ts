/**
 * Gaps at acceptance (issue 42): the publishers' delivery sequences tell a relay restart that lost
 * nothing from one that lost captions; the marker goes where they were, the destinations'
 * `lastError` says what to do and clears once delivery is healthy again.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { type Database, openDatabase } from '@live-captions/sql';
import { destinationsRepo } from '../src/adapters/destinations-repo.js';
import { ingestRepo } from '../src/adapters/ingest-repo.js';
import { migrate } from '../src/adapters/migrations.js';
import { gapMessage } from '../src/domain/gaps.js';
import { GAP_MARK } from '../src/domain/sessions.js';
import { createDatabase } from './helpers/index.js';

let db: Database;
const ARCHIVED_ONLY = { archived: true, sent: false, queued: false };

beforeAll(async () => {
  db = await openDatabase({ url: await createDatabase(), dataDir: '' });
  await migrate(db.knex);
});

afterAll(async () => {
  await db?.close();
});

test('publishers’ delivery sequences: a relay restart alone marks nothing; skipped ones mark one gap; a resend is taken once', async () => {
  const room = 'deliveries';
  const ingest = ingestRepo(db.knex, { sessionIdleMs: 60_000 });
  const destinations = destinationsRepo(db.knex);
  await destinations.add(room, 'archive', null, null);
  const t0 = Date.now() - 60_000;
  let position = 0;
  const accept = (
    epoch: string,
    text: string,
    run: { client: string; from: number; sequence: number },
    track = 'original',
  ) =>
    ingest.accept(room, {
      cursor: { epoch, sequence: ++position },
      id: `${run.client}-${run.sequence}`,
      text,
      at: t0 + position * 1000,
      track,
      clear: false,
      delivery: run,
    });
  const editor = 'editor_0000000000000001';
  expect(await accept('e1', 'Aye.', { client: editor, from: 1, sequence: 1 })).toEqual(ARCHIVED_ONLY);
  expect(await accept('e1', 'Aye.', { client: editor, from: 1, sequence: 2 })).toEqual(ARCHIVED_ONLY);
  await ingest.accept(room, {
    cursor: { epoch: 'e1', sequence: ++position },
    id: 'es-1',
    text: 'Sí.',
    at: t0,
    track: 'es',
    clear: false,
    delivery: { client: 'translator_000000001', from: 1, sequence: 1 },
  });
  // The relay restarted: the cursor moves to its new epoch, nothing is marked.
  await ingest.gap(room, { epoch: 'e2', sequence: 0 }, Date.now());
  position = 0;
  // The editor's caption 2 had no ack before the restart: resent, a new relay position, taken once.
  expect(await accept('e2', 'Aye.', { client: editor, from: 2, sequence: 2 })).toBeUndefined();
  expect(await accept('e2', 'No.', { client: editor, from: 2, sequence: 3 })).toEqual(ARCHIVED_ONLY);
  const rows = async () =>
    (
      await db
        .knex('out_archive')
        .join('out_sessions', 'out_sessions.id', 'out_archive.session_id')
        .where('out_sessions.room', room)
        .orderBy('out_archive.id')
        .select('track', 'text')
    ).map((r: { track: string; text: string }) => `${r.track}:${r.text}`);
  expect(await rows()).toEqual(['original:Aye.', 'original:Aye.', 'es:Sí.', 'original:No.']);
  const archiveError = async () => (await destinations.list(room))[0]?.lastError ?? null;
  expect(await archiveError()).toBeNull();

  // Sequences 4-6 never came (taken by a relay that restarted before this service read them):
  // one mark in every track, before caption 7, and the error says what to do.
  expect(await accept('e2', 'Carried.', { client: editor, from: 7, sequence: 7 })).toEqual({
    ...ARCHIVED_ONLY,
    missed: 3,
  });
  expect(await rows()).toEqual([
    'original:Aye.',
    'original:Aye.',
    'es:Sí.',
    'original:No.',
    `original:${GAP_MARK}`,
    `es:${GAP_MARK}`,
    'original:Carried.',
  ]);
  expect(await archiveError()).toMatch(
    /^3 captions missed before .* UTC: the relay restarted without its history/,
  );
  // A translation's own publishes lost: only its track is marked.
  await ingest.accept(room, {
    cursor: { epoch: 'e2', sequence: ++position },
    id: 'es-5',
    text: 'Llevado.',
    at: Date.now(),
    track: 'es',
    clear: false,
    delivery: { client: 'translator_000000001', from: 5, sequence: 5 },
  });
  expect((await rows()).slice(-2)).toEqual([`es:${GAP_MARK}`, 'es:Llevado.']);
  expect(await archiveError()).toMatch(/^3 captions missed/);
  // Delivery healthy again: the next caption clears it.
  await accept('e2', 'Next.', { client: editor, from: 7, sequence: 8 });
  expect(await archiveError()).toBeNull();

  // The relay's history no longer held what came after the cursor: marked at once with what to do;
  // the publishers' sequences start afresh (no second mark for the same loss).
  await ingest.gap(
    room,
    { epoch: 'e2', sequence: 20 },
    Date.now(),
    gapMessage({ kind: 'history-expired', next: 21 }),
  );
  expect(await archiveError()).toBe(
    "captions missed before caption 21: the relay's history no longer held them (this service was away longer than the relay keeps captions). The archive marks the place; to keep more, raise the relay's replayMs and its byte bounds",
  );
  position = 20;
  expect(await accept('e2', 'Later.', { client: editor, from: 30, sequence: 30 })).toEqual(ARCHIVED_ONLY);
  expect((await rows()).filter((row) => row === `original:${GAP_MARK}`)).toHaveLength(2);
  expect(await archiveError()).toBeNull();
});
