/**
 * A seeded random stream of hostile captions through the real path (issue 36 item 1): the relay
 * (history in Redis) -> the outputs service on PostgreSQL -> the archive and the YouTube and Zoom
 * stand-ins. Texts mix astral characters, combining marks, right-to-left script and marks, lone
 * surrogates, C0/C1 controls, NUL, noncharacters, 4,000-character captions, empty and
 * whitespace-only finals, corrections, interims and clears. Most go through the relay-client
 * publisher (which cleans to the caption text rule, and the relay checks it); some are written
 * raw into the relay's Redis history, as a relay of an older version kept them.
 *
 * After every poison step a well-formed marker caption is published and must reach the archive
 * and both stand-ins (nothing stalls); at the end: no reopen loop (health ok, no database
 * outage logged), every caption id once in the archive with its latest text, the platforms got
 * every caption's characters in order, the archive files parse, and every stored text keeps the
 * caption text rule.
 *
 * The seed is printed; `FUZZ_SEED=<n>` replays a run, `FUZZ_STEPS=<n>` changes its length.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import { parseSrt, parseWebVtt } from '@live-captions/caption-files';
import { captionTextFault, cleanCaptionText } from '@live-captions/protocol';
import type { RelayPublisher } from '@live-captions/relay-client/node';
import {
  runRedisUrl,
  type StandIn,
  startYouTubeStandIn,
  startZoomStandIn,
  youtubeBlocks,
  type ZoomStandIn,
} from '@live-captions/test-services';
import { Redis } from 'ioredis';
import knexFactory, { type Knex } from 'knex';
import { hostileText } from './helpers/hostile-text.js';
import { api, publisher, ROOM, type Running, reading, startOutputs, TOKENS, until } from './helpers/index.js';
import { addDestination, startRelayStack, stopAll } from './helpers/stack.js';

jest.setTimeout(300_000);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 32));
const STEPS = Number(process.env.FUZZ_STEPS ?? 40);
const { random, int, pick, randomText, longText } = hostileText(SEED);

interface Step {
  kind: 'text' | 'long' | 'empty' | 'blank' | 'correction' | 'clear' | 'interim' | 'raw';
  id: string;
  text: string;
}

let youtube: StandIn;
let zoom: ZoomStandIn;
let relay: Running;
let outputs: Running;
let writer: RelayPublisher;
let db: Knex;
let redis: Redis;
const prefix = `fuzz-${randomBytes(4).toString('hex')}:`;

beforeAll(async () => {
  console.log(`fuzz seed ${SEED} (replay: FUZZ_SEED=${SEED}), ${STEPS} steps`);
  youtube = await startYouTubeStandIn();
  zoom = await startZoomStandIn();
  const stack = await startRelayStack({
    allowed: [youtube.port, zoom.port],
    relayRedis: { url: runRedisUrl(), prefix },
  });
  relay = stack.relay;
  db = knexFactory({ client: 'pg', connection: stack.env.DATABASE_URL, pool: { min: 0, max: 2 } });
  redis = new Redis(runRedisUrl());
  outputs = await startOutputs({
    ...stack.env,
    OUTPUTS_YOUTUBE_INTERVAL_MS: '200',
    OUTPUTS_ZOOM_INTERVAL_MS: '200',
  });
  expect(await addDestination(outputs.port, { kind: 'youtube', url: youtube.url })).toBe(201);
  expect(await addDestination(outputs.port, { kind: 'zoom', url: zoom.url })).toBe(201);
  expect(await addDestination(outputs.port, { kind: 'archive' })).toBe(201);
  await reading(outputs.port);
  writer = publisher(relay.port);
});

afterAll(async () => {
  await stopAll(writer, [outputs, relay], [youtube, zoom]);
  await db?.destroy();
  redis?.disconnect();
});

/** The original track's archive rows in order (gap markers have no key). */
const archive = async () =>
  (await db('out_archive')
    .where({ track: 'original' })
    .whereNotNull('caption_key')
    .orderBy('id')
    .select('caption_key', 'text')) as { caption_key: string; text: string }[];

/** What a platform shows, without the whitespace its line shaping may change. */
const squeezed = (text: string) => text.replace(/\s+/g, '');
const youtubeText = () =>
  squeezed(youtube.accepted.flatMap((post) => youtubeBlocks(post.body).flatMap((b) => b.lines)).join(''));
const zoomText = () => squeezed(zoom.accepted.map((post) => post.body).join(''));

/** Where `actual` first differs from `expected`, with a little context (escaped); undefined if equal. */
function difference(actual: string, expected: string) {
  if (actual === expected) return undefined;
  let index = 0;
  while (index < actual.length && actual[index] === expected[index]) index += 1;
  const around = (text: string) => JSON.stringify(text.slice(Math.max(0, index - 20), index + 20));
  return {
    index,
    lengths: [actual.length, expected.length],
    actual: around(actual),
    expected: around(expected),
  };
}

/** Writes `text` raw into the relay's Redis history, as a relay without the text rule kept it. */
async function inject(id: string, text: string): Promise<void> {
  // Only while the publisher has nothing in flight: the relay's own publish script takes the
  // next sequence too, and the stream must stay in sequence order.
  await until('publisher idle', () => writer.queued === 0);
  const base = `${prefix}{${ROOM}}`;
  const epoch = await redis.get(`${base}:epoch`);
  const sequence = await redis.incr(`${base}:seq`);
  const body = JSON.stringify({ msg: true, final: text, id });
  await redis.xadd(
    `${base}:log`,
    '*',
    's',
    String(sequence),
    'e',
    String(epoch),
    'd',
    `old:${sequence}`,
    'b',
    body,
  );
}

test('a random stream of hostile captions stalls nothing and loses nothing', async () => {
  /** The archive's expectation: the latest text per id, in first-seen order. */
  const archived = new Map<string, string>();
  /** What the platforms must show, in order (a correction is a new caption there). */
  let platforms = '';
  const latency = { archive: 0, youtube: 0, zoom: 0 };
  const counts: Record<string, number> = {};
  const ids: string[] = [];
  let delivered = 0;

  for (let step = 1; step <= STEPS; step++) {
    const kind = pick<Step['kind']>([
      'text',
      'text',
      'text',
      'long',
      'empty',
      'blank',
      'correction',
      'clear',
      'interim',
      'raw',
      'raw',
    ]);
    counts[kind] = (counts[kind] ?? 0) + 1;
    // Ids carry poison too; the step number keeps them apart once cleaned.
    const id =
      kind === 'correction' && ids.length > 0
        ? pick(ids)
        : `f${step}${random() < 0.3 ? randomText(int(1, 6)) : ''}`;
    const text =
      kind === 'long'
        ? longText()
        : kind === 'empty'
          ? ''
          : kind === 'blank'
            ? randomText(int(1, 30), ['space'])
            : randomText(int(1, 300));
    if (kind === 'raw') await inject(id, text);
    else if (kind === 'clear') expect(writer.publish({ final: '', id, c: true })).toBe(true);
    else if (kind === 'interim') expect(writer.publish({ interm: text, id })).toBe(true);
    else expect(writer.publish({ final: text, id })).toBe(true);

    const key = cleanCaptionText(id);
    const clean = cleanCaptionText(text);
    if (kind !== 'clear' && kind !== 'interim' && clean.trim() !== '') {
      if (!archived.has(key)) ids.push(id);
      archived.set(key, clean);
      platforms += squeezed(clean);
      delivered += 1;
    }

    // A well-formed caption right after it: it must get everywhere, whatever came before.
    const marker = `Marker ${step}.`;
    const started = Date.now();
    writer.publish({ final: marker, id: `m${step}` });
    archived.set(`m${step}`, marker);
    platforms += squeezed(marker);
    delivered += 1;
    const what = `step ${step} (${kind}, seed ${SEED})`;
    await until(`${what}: marker archived`, async () => (await archive()).at(-1)?.text === marker, 15_000);
    latency.archive = Math.max(latency.archive, Date.now() - started);
    await until(`${what}: marker at YouTube`, () => youtubeText().endsWith(squeezed(marker)), 15_000);
    latency.youtube = Math.max(latency.youtube, Date.now() - started);
    await until(`${what}: marker at Zoom`, () => zoomText().endsWith(squeezed(marker)), 15_000);
    latency.zoom = Math.max(latency.zoom, Date.now() - started);
  }
  console.log(
    `fuzz seed ${SEED}: steps ${JSON.stringify(counts)}; slowest marker after publish: archive ${latency.archive} ms, YouTube ${latency.youtube} ms, Zoom ${latency.zoom} ms`,
  );

  // No reopen loop: never handled as an outage, healthy throughout.
  expect(outputs.proc.logLines(/^database write failed/)).toEqual([]);
  expect(outputs.proc.logLines(/^caption refused by the database/)).toEqual([]);
  expect(((await api(outputs.port, 'GET', '/health', '')).json as { status: string }).status).toBe('ok');

  // Nothing lost or twice: every id once, with its latest text, in first-seen order.
  const rows = await archive();
  expect(rows.map((row) => row.caption_key)).toEqual([...archived.keys()]);
  expect(rows.map((row) => row.text)).toEqual([...archived.values()]);
  for (const row of rows) expect(captionTextFault(row.text)).toBeUndefined();

  // The platforms got every caption's characters in order, and nothing else.
  expect(difference(youtubeText(), platforms)).toBeUndefined();
  expect(difference(zoomText(), platforms)).toBeUndefined();
  expect(youtube.violations).toEqual([]);
  expect(zoom.violations).toEqual([]);
  const { destinations } = (await api(outputs.port, 'GET', `/rooms/${ROOM}/destinations`, TOKENS.write))
    .json as { destinations: { kind: string; sent: number; behind: number; lastError: unknown }[] };
  for (const destination of destinations.filter((d) => d.kind !== 'archive')) {
    expect(destination).toMatchObject({ sent: delivered, behind: 0, lastError: null });
  }

  // The archive's files parse and hold the captions.
  const sessions = (await api(outputs.port, 'GET', `/rooms/${ROOM}/archive`, TOKENS.read)).json as {
    sessions: { id: string }[];
  };
  expect(sessions.sessions).toHaveLength(1);
  const session = sessions.sessions[0]?.id;
  const file = async (ext: string) => {
    const answer = await api(outputs.port, 'GET', `/rooms/${ROOM}/archive/${session}.${ext}`, TOKENS.read);
    expect(answer.status).toBe(200);
    return answer.text;
  };
  const srt = parseSrt(await file('srt'));
  const vtt = parseWebVtt(await file('vtt'));
  const txt = await file('txt');
  expect(srt.length).toBeGreaterThanOrEqual(STEPS);
  expect(vtt.map((cue) => cue.text)).toEqual(srt.map((cue) => cue.text));
  for (let step = 1; step <= STEPS; step++) {
    expect(srt.some((cue) => cue.text === `Marker ${step}.`)).toBe(true);
    expect(txt).toContain(`Marker ${step}.`);
  }
  for (const text of [srt.map((c) => c.text).join('\n'), txt]) expect(captionTextFault(text)).toBeUndefined();
});
