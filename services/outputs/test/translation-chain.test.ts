/**
 * The whole chain of issue 34's "done when", with real processes: English captions published into
 * an output room are translated by a real Apertium APy into Spanish and Catalan by the outputs
 * service's stage, and the same service sends the Spanish track to a YouTube destination, the
 * Catalan track to a Zoom destination (the stand-ins enforce the platforms' contracts) and keeps
 * both in the archive, each downloadable per language with the text readers ended with.
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import { parseSrt, parseWebVtt } from '@live-captions/caption-files';
import type { ArchiveSession, RelayCaption } from '@live-captions/protocol';
import { createReader, type RelayPublisher, type RelayReader } from '@live-captions/relay-client/node';
import {
  type ApertiumServer,
  COUNCIL_MEETING,
  captionsAsCaptured,
  type StandIn,
  startApertium,
  startYouTubeStandIn,
  startZoomStandIn,
  type ZoomStandIn,
} from '@live-captions/test-services';
import { api, publisher, ROOM, type Running, reading, startOutputs, TOKENS, until } from './helpers/index.js';
import { startRelayStack, stopAll, youtubeWords, zoomWords } from './helpers/stack.js';

jest.setTimeout(300_000);

let apy: ApertiumServer;
let youtube: StandIn;
let zoom: ZoomStandIn;
let relay: Running | undefined;
let outputs: Running | undefined;
let writer: RelayPublisher | undefined;
let reader: RelayReader | undefined;
const received: RelayCaption[] = [];

beforeAll(async () => {
  apy = await startApertium();
  youtube = await startYouTubeStandIn();
  zoom = await startZoomStandIn();
  const stack = await startRelayStack({ allowed: [youtube.port, zoom.port] });
  relay = stack.relay;
  outputs = await startOutputs({
    ...stack.env,
    OUTPUTS_APERTIUM_URL: apy.url,
    // APy's first request of a pair starts its pipeline (seconds under load).
    OUTPUTS_TRANSLATION_TIMEOUT_MS: '20000',
    OUTPUTS_YOUTUBE_INTERVAL_MS: '200',
    OUTPUTS_ZOOM_INTERVAL_MS: '300',
    OUTPUTS_RETRY_MAX_MS: '1000',
  });
  for (const target of ['es', 'ca']) {
    const added = await api(outputs.port, 'POST', `/rooms/${ROOM}/translations`, TOKENS.write, {
      target,
      engine: 'apertium',
    });
    expect(added.status).toBe(201);
  }
  for (const body of [
    { kind: 'youtube', url: youtube.url, track: 'es' },
    { kind: 'zoom', url: zoom.url, track: 'ca' },
    { kind: 'archive' },
  ]) {
    const added = await api(outputs.port, 'POST', `/rooms/${ROOM}/destinations`, TOKENS.write, body);
    expect(added.status).toBe(201);
  }
  await reading(outputs.port);
  reader = createReader({
    url: `ws://127.0.0.1:${relay.port}/ws`,
    room: ROOM,
    token: TOKENS.read,
    onCaption: (caption) => received.push(caption),
  });
  writer = publisher(relay.port);
  await until(
    'the reader and the writer joined',
    () => reader?.state === 'joined' && writer?.state === 'joined',
  );
}, 180_000);

afterAll(async () => {
  reader?.close();
  await stopAll(writer, [outputs, relay], [youtube, zoom]);
  await apy?.stop();
});

/** Every text a track carried (first translations and corrections). */
const versions = (ln: string) =>
  received.filter((c) => c.label === 'translation' && c.ln === ln).map((c) => c.final ?? '');
/** The latest text per id of a track, in the originals' order. */
function finalText(ln: string, ids: (string | number)[]): string[] {
  const latest = new Map<string | number, string>();
  for (const c of received) if (c.label === 'translation' && c.ln === ln) latest.set(c.id, c.final ?? '');
  return ids.map((id) => latest.get(id) ?? '');
}
const wordsOf = (texts: string[]) => new Set(texts.flatMap((text) => text.split(/\s+/)).filter(Boolean));

test('English in; Spanish at YouTube, Catalan at Zoom, both in the archive per language', async () => {
  const captions = captionsAsCaptured(COUNCIL_MEETING.slice(0, 2), { intervalSeconds: 3 });
  const ids = captions.map((c) => c.id);
  for (const caption of captions) {
    writer!.publish({ final: caption.text, id: caption.id });
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  // Settled: every caption translated, none behind, and the platforms have the last one.
  await until(
    'both tracks translated and settled',
    async () => {
      if (finalText('es', ids).includes('') || finalText('ca', ids).includes('')) return false;
      const res = await api(outputs!.port, 'GET', `/rooms/${ROOM}/translations`, TOKENS.write);
      return (res.json as { translations: { behind: number }[] }).translations.every((t) => t.behind === 0);
    },
    180_000,
  );
  const spanish = finalText('es', ids);
  const catalan = finalText('ca', ids);
  const lastWords = (text: string) => text.split(/\s+/).filter(Boolean).slice(-2);
  await until(
    'YouTube and Zoom got the last caption of their track',
    () =>
      lastWords(spanish.at(-1)!).every((word) => youtubeWords(youtube).includes(word)) &&
      lastWords(catalan.at(-1)!).every((word) => zoomWords(zoom).includes(word)),
    60_000,
  );

  // Each platform got its language only: every word it accepted is a word of that track.
  const spanishWords = wordsOf(versions('es'));
  const catalanWords = wordsOf(versions('ca'));
  const englishOnly = [...wordsOf(captions.map((c) => c.text))].filter(
    (word) => !spanishWords.has(word) && !catalanWords.has(word),
  );
  expect(englishOnly.length).toBeGreaterThan(10);
  expect(youtubeWords(youtube).filter((word) => !spanishWords.has(word))).toEqual([]);
  expect(zoomWords(zoom).filter((word) => !catalanWords.has(word))).toEqual([]);
  expect(youtube.violations).toEqual([]);
  expect(zoom.violations).toEqual([]);

  // The archive: one session with the original and both languages, each file as readers ended.
  const list = await api(outputs!.port, 'GET', `/rooms/${ROOM}/archive`, TOKENS.read);
  const [session] = (list.json as { sessions: ArchiveSession[] }).sessions;
  expect(session?.tracks.map((t) => t.track)).toEqual(['original', 'ca', 'es']);
  for (const [ln, expected] of [
    ['es', spanish],
    ['ca', catalan],
  ] as const) {
    const srt = await api(
      outputs!.port,
      'GET',
      `/rooms/${ROOM}/archive/${session!.id}.${ln}.srt`,
      TOKENS.read,
    );
    const vtt = await api(
      outputs!.port,
      'GET',
      `/rooms/${ROOM}/archive/${session!.id}.${ln}.vtt`,
      TOKENS.read,
    );
    expect(srt.status).toBe(200);
    expect(vtt.status).toBe(200);
    const joined = (cues: { text: string }[]) => cues.map((cue) => cue.text.replace(/\n/g, ' ')).join(' ');
    expect(joined(parseSrt(srt.text))).toBe(expected.join(' '));
    expect(joined(parseWebVtt(vtt.text))).toBe(expected.join(' '));
  }
});
