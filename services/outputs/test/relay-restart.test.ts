/**
 * The transcript is the record (issue 42), with real processes: a relay without Redis (the
 * `pnpm start` default), the outputs service on PostgreSQL, the archive and a YouTube stand-in.
 * A roll call keeps every "Aye."; a relay restart that lost nothing leaves no marker and no
 * error; captions published while the outputs service was down and then lost with the relay's
 * history leave exactly one marker, at their place, and a `lastError` that says what happened and
 * what to do, gone once delivery is healthy again. Each file is read back with a strict reader.
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import { parseSrt, parseWebVtt } from '@live-captions/caption-files';
import type { RelayPublisher } from '@live-captions/relay-client/node';
import { type StandIn, startYouTubeStandIn } from '@live-captions/test-services';
import { GAP_MARK } from '../src/domain/sessions.js';
import {
  api,
  kill,
  publisher,
  ROOM,
  type Running,
  reading,
  startOutputs,
  startRelay,
  TOKENS,
  until,
} from './helpers/index.js';
import { addDestination, startRelayStack, stopAll, youtubeWords } from './helpers/stack.js';

jest.setTimeout(180_000);

let youtube: StandIn;
let relay: Running | undefined;
let outputs: Running | undefined;
let writer: RelayPublisher | undefined;
let env: Record<string, string>;
let configPath: string;
/** What the archive must hold, in order: one cue per caption. */
const expected: string[] = [];
let id = 0;

beforeAll(async () => {
  youtube = await startYouTubeStandIn();
  const stack = await startRelayStack({ allowed: [youtube.port] });
  ({ relay, configPath } = stack);
  env = { ...stack.env, OUTPUTS_YOUTUBE_INTERVAL_MS: '200' };
  outputs = await startOutputs(env);
  expect(await addDestination(outputs.port, { kind: 'archive' })).toBe(201);
  expect(await addDestination(outputs.port, { kind: 'youtube', url: youtube.url })).toBe(201);
  await reading(outputs.port);
  writer = publisher(relay.port);
});

afterAll(async () => {
  await stopAll(writer, [outputs, relay], [youtube]);
});

function say(...texts: string[]): void {
  for (const text of texts) {
    id += 1;
    expected.push(text);
    writer!.publish({ final: text, id: `ed-${id}` });
  }
}

const archiveSession = async () => {
  const listed = await api(outputs!.port, 'GET', `/rooms/${ROOM}/archive`, TOKENS.read);
  return (listed.json as { sessions: { id: string; captions: number }[] }).sessions[0];
};

/** The archive's cues as each strict reader reads them (SRT and WebVTT must agree). */
async function archiveTexts(): Promise<string[]> {
  const session = await archiveSession();
  const srt = await api(outputs!.port, 'GET', `/rooms/${ROOM}/archive/${session!.id}.srt`, TOKENS.read);
  const vtt = await api(outputs!.port, 'GET', `/rooms/${ROOM}/archive/${session!.id}.vtt`, TOKENS.read);
  const texts = parseSrt(srt.text).map((cue) => cue.text);
  expect(parseWebVtt(vtt.text).map((cue) => cue.text)).toEqual(texts);
  return texts;
}

const archivedCount = async () => (await archiveSession())?.captions ?? 0;
const captionsOnly = () => expected.filter((text) => text !== GAP_MARK);

async function lastErrors(): Promise<Record<string, string | null>> {
  const listed = await api(outputs!.port, 'GET', `/rooms/${ROOM}/destinations`, TOKENS.write);
  const rows = (listed.json as { destinations: { kind: string; lastError: { message: string } | null }[] })
    .destinations;
  return Object.fromEntries(rows.map((row) => [row.kind, row.lastError?.message ?? null]));
}

async function restartRelay(): Promise<void> {
  const port = relay!.port;
  await kill(relay);
  relay = await startRelay(configPath, port);
}

test('a roll call: every "Aye." is a cue of its own in the archive', async () => {
  say('Council member Hall?', 'Aye.', 'Council member Ito?', 'Aye.', 'Aye.', 'Thank you.', 'Thank you.');
  await until('the roll call archived', async () => (await archivedCount()) === captionsOnly().length);
  expect(await archiveTexts()).toEqual(expected);
});

test('a relay restart that lost nothing leaves no marker and no lasting error', async () => {
  await restartRelay();
  // The editor's publisher reconnects by itself and goes on with its sequence.
  say('After the restart.', 'Aye.');
  await until(
    'captions after the restart archived',
    async () => (await archivedCount()) === captionsOnly().length,
  );
  expect(await archiveTexts()).toEqual(expected);
  await until('YouTube got them', () => youtubeWords(youtube).join(' ').endsWith('restart. Aye.'));
  expect(await lastErrors()).toEqual({ archive: null, youtube: null });
});

test('captions lost with the relay’s history while this service was down: one marker at their place, and an error that says what to do', async () => {
  await kill(outputs);
  // Published and acked while the outputs service is down: only the relay's memory holds them.
  writer!.publish({ final: 'Lost one.', id: 'lost-1' });
  writer!.publish({ final: 'Lost two.', id: 'lost-2' });
  writer!.publish({ final: 'Lost three.', id: 'lost-3' });
  await until('the lost captions acked', () => writer!.queued === 0);
  await restartRelay();
  outputs = await startOutputs(env);
  await reading(outputs.port);
  expected.push(GAP_MARK);
  say('Back again.');
  await until(
    'the caption after the loss archived',
    async () => (await archivedCount()) === captionsOnly().length,
  );
  expect(await archiveTexts()).toEqual(expected);
  expect((await lastErrors()).archive).toMatch(
    /^3 captions missed before \d\d:\d\d:\d\d UTC: the relay restarted without its history .*run the relay with Redis \(REDIS_URL\)$/,
  );
  const log = outputs.proc.output();
  expect(log).toContain('"missed":3');
  expect(log).not.toContain('Lost');

  // Healthy again: the next caption archived and sent clears it everywhere.
  say('And on.');
  await until('the next caption archived', async () => (await archivedCount()) === captionsOnly().length);
  await until('YouTube got it', () => youtubeWords(youtube).join(' ').endsWith('on.'));
  await until('no error left', async () => {
    const errors = await lastErrors();
    return errors.archive === null && errors.youtube === null;
  });
  // Exactly one marker, where the lost captions were.
  const texts = await archiveTexts();
  expect(texts).toEqual(expected);
  expect(texts.filter((text) => text === GAP_MARK)).toHaveLength(1);
});
