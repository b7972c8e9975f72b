/**
 * The whole path with real processes: the relay (history in Redis, so that a relay restart keeps
 * it), the outputs service on PostgreSQL, and the YouTube and Zoom stand-ins. Faults on the way:
 * a 503, a timeout and a lost answer at each platform, a meeting that starts late and whose seq
 * counter is already at 41, a SIGKILL of the outputs service and one of the relay. Every caption
 * must arrive once, in order, at each stand-in, and in the archive.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import { parseSrt, parseWebVtt } from '@live-captions/caption-files';
import type { RelayPublisher } from '@live-captions/relay-client/node';
import {
  runRedisUrl,
  type StandIn,
  startYouTubeStandIn,
  startZoomStandIn,
  youtubeBlocks,
  type ZoomStandIn,
} from '@live-captions/test-services';
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
  words,
} from './helpers/index.js';
import {
  addDestination,
  startRelayStack,
  youtubeWords as wordsAt,
  zoomWords as zoomWordsAt,
} from './helpers/stack.js';

jest.setTimeout(180_000);

/** What the platforms must get, in order (a correction is a new caption there). */
const published: string[] = [];
/** What the archive must hold: the latest text per caption id, in first-seen order. */
const archived = new Map<string, string>();
/** The second stream (track `en`): the archive keeps it as a track of its own. */
const translated: string[] = [];
let youtube: StandIn;
let zoom: ZoomStandIn;
let relay: Running | undefined;
let outputs: Running | undefined;
let writer: RelayPublisher | undefined;
const logs: string[] = [];
let env: Record<string, string>;
let relayPort: number;
let configPath: string;
const relayRedis = { url: '', prefix: `outputs-test-${randomBytes(4).toString('hex')}:` };

beforeAll(async () => {
  youtube = await startYouTubeStandIn({ skewMs: 60_000 });
  zoom = await startZoomStandIn({ started: false, lastSeq: 41 });
  relayRedis.url = runRedisUrl();
  const stack = await startRelayStack({ allowed: [youtube.port, zoom.port], relayRedis });
  ({ relay, configPath } = stack);
  relayPort = stack.relay.port;
  env = {
    ...stack.env,
    OUTPUTS_YOUTUBE_INTERVAL_MS: '200',
    OUTPUTS_ZOOM_INTERVAL_MS: '300',
    OUTPUTS_REQUEST_TIMEOUT_MS: '1000',
    OUTPUTS_FAILING_RETRY_MS: '500',
    OUTPUTS_RETRY_MAX_MS: '1000',
  };
  outputs = await startOutputs(env);
});

afterAll(async () => {
  writer?.close();
  for (const running of [outputs, relay]) {
    if (running) logs.push(running.proc.output());
    await kill(running);
  }
  await youtube?.close();
  await zoom?.close();
});

/** Publishes captions n..m; long ones exercise line shaping, the last of each batch is corrected. */
function publish(from: number, to: number): void {
  for (let n = from; n <= to; n++) {
    const long =
      n % 4 === 0 ? ' and then a much longer sentence that no caption window can hold on two lines' : '';
    const text = `Caption ${n} says ünïcödé hello${long}.`;
    writer?.publish({ final: text, id: `c${n}`, ln: 'fr' });
    // The second stream of a room carrying both is the track `en`: the platforms here take the
    // original, the archive keeps it apart (same id: not a correction either).
    writer?.publish({ final: `Translation ${n}`, id: `c${n}`, ln: 'en', label: 'translation' });
    translated.push(`Translation ${n}`);
    archived.set(`c${n}`, text);
    // Interim captions and clears go nowhere.
    writer?.publish({ interm: `Caption ${n + 1} say`, id: `c${n + 1}`, ln: 'en' });
    published.push(text);
  }
  writer?.publish({ interm: '', id: 'clear', c: true });
}

const youtubeWords = () => wordsAt(youtube);
const zoomWords = () => zoomWordsAt(zoom);
const arrivedAt = (got: () => string[]) => () => got().length === words(published).length;
const arrived = () =>
  youtubeWords().length === words(published).length && zoomWords().length === words(published).length;

test('every caption reaches YouTube, Zoom and the archive once, in order, through restarts and faults', async () => {
  for (const kind of ['youtube', 'zoom'] as const) {
    const url = kind === 'youtube' ? youtube.url : zoom.url;
    const added = await api(outputs!.port, 'POST', `/rooms/${ROOM}/destinations`, TOKENS.write, {
      kind,
      url,
    });
    expect(added.status).toBe(201);
    expect(added.text).not.toContain('SIG');
  }
  expect(await addDestination(outputs!.port, { kind: 'archive' })).toBe(201);
  await reading(outputs!.port);
  youtube.script({ status: 503 }, 'timeout', 'lose-answer');
  // 403: our bug or a bad token for Zoom: `failing`, retried slowly (500 ms here), then accepted.
  zoom.script('lose-answer', { status: 500 }, 'timeout', { status: 403 });

  writer = publisher(relayPort);
  publish(1, 8);
  // The editor corrects caption 3: the platforms get it as a new caption, the archive replaces it.
  writer.publish({ final: 'Caption 3 corrected.', id: 'c3', ln: 'fr' });
  published.push('Caption 3 corrected.');
  archived.set('c3', 'Caption 3 corrected.');
  await until('YouTube got the first captions', () => youtubeWords().length === words(published).length);

  // The meeting has not started: Zoom answers 400, retried; the editor sees why.
  const listed = await api(outputs!.port, 'GET', `/rooms/${ROOM}/destinations`, TOKENS.write);
  const zoomView = (
    listed.json as {
      destinations: { kind: string; state: string; lastError: { message: string } | null; behind: number }[];
    }
  ).destinations.find((d) => d.kind === 'zoom');
  expect(zoomView?.state).toBe('waiting');
  expect(zoomView?.lastError?.message).toMatch(/400/);
  expect(zoom.accepted).toHaveLength(0);
  zoom.start();
  await until('Zoom got the first captions', () => zoomWords().length === words(published).length).catch(
    (error) => {
      console.log(zoom.accepted, zoom.violations, zoom.counts, outputs?.proc.output().slice(-5000));
      throw error;
    },
  );
  expect(zoom.accepted[0]?.seq).toBe(42);

  // SIGKILL the outputs service mid-stream; captions published meanwhile wait in the relay.
  await kill(outputs);
  logs.push(outputs!.proc.output());
  publish(9, 16);
  youtube.script('lose-answer');
  outputs = await startOutputs(env);
  publish(17, 20);
  await until('all captions after the outputs restart', arrived, 60_000);

  // YouTube goes away (connections refused) and comes back: retried, nothing lost or repeated.
  await youtube.down();
  publish(21, 24);
  await until('Zoom got them meanwhile', arrivedAt(zoomWords), 30_000);
  await youtube.up();
  await until('YouTube caught up', arrivedAt(youtubeWords), 30_000);

  // SIGKILL the relay; the publisher resends what it did not get acked once the relay is back.
  await kill(relay);
  logs.push(relay!.proc.output());
  publish(25, 30);
  relay = await startRelay(configPath, relayPort, relayRedis);
  publish(31, 34);
  await until('all captions after the relay restart', arrived, 60_000);

  expect(youtube.violations).toEqual([]);
  expect(zoom.violations).toEqual([]);
  expect(youtubeWords()).toEqual(words(published));
  expect(zoomWords()).toEqual(words(published));
  // The scripted failures were retried with the same seq and body (the stand-ins check both).
  expect(youtube.counts.retries).toBeGreaterThanOrEqual(2);
  // Zoom's seq counter was at 41: resynced, then +1 per POST without a hole.
  expect(zoom.accepted.map((post) => post.seq)).toEqual(zoom.accepted.map((_, i) => 42 + i));
  // The answer to seq 42 was lost, and the service is killed right after: either it retried the
  // same seq and body in time, or the new process asked Zoom, which had it, and marked it
  // delivered instead of sending it again.
  const resynced = [...logs, outputs!.proc.output()]
    .join('\n')
    .match(/"accepted":(\d+),"captions":(\d+),"msg":"zoom seq resynced"/g);
  const recovered = resynced?.some((line) => !line.includes('"captions":0')) ?? false;
  expect(recovered || zoom.counts.retries > 0).toBe(true);
  // YouTube's clock is 60 s ahead: once measured, timestamps follow it.
  const last = youtube.accepted.at(-1)!;
  const stamp = Date.parse(`${youtubeBlocks(last.body)[0]?.at}Z`);
  expect(Math.abs(stamp - (last.at + 60_000))).toBeLessThan(10_000);

  // What the editor sees: all delivered, counted once.
  await until('the senders report idle', async () => {
    const list = (await api(outputs!.port, 'GET', `/rooms/${ROOM}/destinations`, TOKENS.write)).json as {
      destinations: { state: string; behind: number }[];
    };
    return list.destinations.every((d) => d.state === 'sending' && d.behind === 0);
  });
  const views = (await api(outputs!.port, 'GET', `/rooms/${ROOM}/destinations`, TOKENS.write)).json as {
    destinations: { kind: string; sent: number }[];
  };
  expect(views.destinations.map((d) => [d.kind, d.sent])).toEqual([
    ['youtube', published.length],
    ['zoom', published.length],
    ['archive', archived.size],
  ]);

  // The archive: one session, valid files, in order, with times; read token downloads.
  const archive = await api(outputs!.port, 'GET', `/rooms/${ROOM}/archive`, TOKENS.read);
  const sessions = (archive.json as { sessions: { id: string; captions: number; endedAt: null | string }[] })
    .sessions;
  expect(sessions).toHaveLength(1);
  const session = sessions[0]!;
  expect(session).toMatchObject({
    captions: archived.size,
    endedAt: null,
    tracks: [
      { track: 'original', captions: archived.size },
      { track: 'en', captions: translated.length },
    ],
  });
  const en = await fetch(`http://127.0.0.1:${outputs!.port}/rooms/${ROOM}/archive/${session.id}.en.srt`, {
    headers: { authorization: `Bearer ${TOKENS.read}` },
  });
  expect(en.headers.get('content-disposition')).toMatch(
    /^attachment; filename="captions-output-\d{4}-\d{2}-\d{2}-\d{4}\.en\.srt"$/,
  );
  expect(parseSrt(await en.text()).map((cue) => cue.text)).toEqual(translated);
  const srt = await api(outputs!.port, 'GET', `/rooms/${ROOM}/archive/${session.id}.srt`, TOKENS.read);
  expect(srt.status).toBe(200);
  expect(parseSrt(srt.text).map((cue) => cue.text)).toEqual([...archived.values()]);
  const vtt = await api(outputs!.port, 'GET', `/rooms/${ROOM}/archive/${session.id}.vtt`, TOKENS.read);
  const cues = parseWebVtt(vtt.text);
  expect(cues.map((cue) => cue.text)).toEqual([...archived.values()]);
  expect(cues.at(-1)!.startMs).toBeGreaterThan(cues[0]!.startMs);
  const txt = await api(outputs!.port, 'GET', `/rooms/${ROOM}/archive/${session.id}.txt`, TOKENS.read);
  expect(txt.text.split('\n').filter((line) => line.startsWith('[')).length).toBe(archived.size);
  expect(txt.text).toContain('Caption 3 corrected.');
  for (const other of [TOKENS.otherRead, TOKENS.otherWrite, ''])
    expect((await api(outputs!.port, 'GET', `/rooms/${ROOM}/archive/${session.id}.srt`, other)).status).toBe(
      401,
    );
  expect(
    (await api(outputs!.port, 'DELETE', `/rooms/${ROOM}/archive/${session.id}`, TOKENS.read)).status,
  ).toBe(401);
  expect(
    (await api(outputs!.port, 'DELETE', `/rooms/${ROOM}/archive/${session.id}`, TOKENS.write)).status,
  ).toBe(204);
  expect((await api(outputs!.port, 'GET', `/rooms/${ROOM}/archive`, TOKENS.read)).json).toEqual({
    sessions: [],
  });

  // Nothing secret or spoken in any log line of either service.
  logs.push(outputs!.proc.output(), relay!.proc.output());
  const text = logs.join('\n');
  for (const url of [youtube.url, zoom.url]) {
    const signature = new URL(url).searchParams.get('signature')!;
    expect(text).not.toContain(signature);
  }
  expect(text).not.toContain('ünïcödé');
  expect(JSON.stringify([youtube.accepted, zoom.accepted])).not.toContain('Translation');
  expect(text).toContain('destination sending');
  expect(text).toContain('"error":"HTTP 403: URL or token refused"');
  expect(text).toContain('"error":"no answer within 1000 ms"');
  expect(text).toContain('"error":"connection failed (ECONNREFUSED)"');
});
