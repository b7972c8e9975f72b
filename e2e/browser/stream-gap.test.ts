/**
 * One kind of gap everywhere (issue 42.3 and 42.6), a stream's interruption, in chromium on a
 * stack started here: a stream source of the sources service pulls a stream from a private
 * nginx-rtmp, fed in real time by ffmpeg; the publisher is killed for a while, then resumed. The
 * sources service puts its gap marker into the source room, the editor (live) sends it on with
 * its label, and the outputs service's archive holds exactly one marker, at the interruption's
 * place, with every caption before and after it. The archive's SRT, WebVTT and text files are
 * read back with strict readers.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import type { RelayCaption } from '@live-captions/protocol';
import { createReader } from '@live-captions/relay-client/node';
import { readArchive, startArchive } from './archive.js';
import { watchErrors } from './browser.js';
import { closeSession, editorAddress, openSession, type Session, until } from './session.js';
import { ROOT } from './stack.js';
import { type StreamSource, startStreamSource } from './stream-source.js';

jest.setTimeout(360_000);

/** How long the publisher stays away. */
const DOWN_MS = 12_000;
const INTERRUPTED = /^\[gap: (\d+\.\d) s without sound; the stream was interrupted\]$/;

let session: Session;
let archive: Awaited<ReturnType<typeof startArchive>> | undefined;
let stream: StreamSource | undefined;
/** Every caption of the source room with when it arrived here. */
const heard: { caption: RelayCaption; at: number }[] = [];

beforeAll(async () => {
  session = await openSession();
  const { stack } = session;
  session.readers.push(
    createReader({
      url: stack.relayUrl,
      room: stack.rooms.source,
      token: stack.tokens.sourceRead,
      onCaption: (caption) => heard.push({ caption, at: Date.now() }),
    }),
  );
  // The speech model the sources suite uses: a realistic sentence whose length follows the audio
  // (the plain test model's one word for any window gives a stream's rolling windows nothing new).
  await stack.stopGateway();
  await stack.startGateway({ CAPTION_MODEL: join(ROOT, 'models/ggml-synthetic-tiny-speech.bin') });
  archive = await startArchive(session);
}, 240_000);

afterAll(async () => {
  await stream?.close();
  await archive?.stop();
  await closeSession(session);
});

/** Finals by caption id, in order of their first arrival, each with its latest text and label. */
function byId(captions: RelayCaption[]): { id: string; text: string; label: string }[] {
  const latest = new Map<string, { id: string; text: string; label: string }>();
  for (const caption of captions) {
    if (caption.final === undefined) continue;
    const id = String(caption.id);
    const entry = latest.get(id) ?? { id, text: '', label: '' };
    entry.text = caption.final.trim();
    entry.label = caption.label ?? '';
    latest.set(id, entry);
  }
  return [...latest.values()].filter((entry) => entry.text !== '');
}

/** `until`, its error carrying the sources service's log. */
const waitFor = <T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 30_000,
) =>
  until(session, what, probe, ms).catch((error: Error) => {
    throw new Error(`${error.message}\n${stream?.logs().slice(-6_000)}`);
  });

const isGap = (caption: RelayCaption) => caption.label === 'gap';
const spoken = () => heard.filter(({ caption }) => caption.final?.trim() && !isGap(caption));

test('a stream interrupted and resumed: one marker at its place in the source room, the output room and the archive', async () => {
  const { stack, context, errors, outputCaptions } = session;
  const editor = await context.newPage();
  errors.editor = watchErrors(editor);
  await editor.goto(editorAddress(session, { mode: 'live' }));
  await editor.waitForFunction(() =>
    document.querySelector('#output-status')?.textContent?.startsWith('Output: joined'),
  );
  stream = await startStreamSource(session);
  const { id } = stream;
  await waitFor('two captions from the stream', () => spoken().length >= 2, 120_000);
  expect(await stream.state()).toBe('live');

  // The encoder's connection drops for DOWN_MS, then it comes back on the same stream key.
  await stream.interrupt();
  await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
  expect(['reconnecting', 'failed', 'connecting']).toContain(await stream.state());
  const resumedAt = Date.now();
  stream.resume();
  const marker = await waitFor(
    'the gap marker in the source room',
    () => heard.find(({ caption }) => isGap(caption)),
    90_000,
  );
  await waitFor(
    'two captions after the marker',
    () => spoken().filter(({ at }) => at > marker.at).length >= 2,
    90_000,
  );
  // Stopped: what it had buffered goes out as final; then nothing more comes.
  await stream.remove();
  let count = -1;
  await waitFor('the source room quiet', async () => {
    const quiet = heard.length === count;
    count = heard.length;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    return quiet;
  });

  // The marker says how long nothing could be heard: about as long as the publisher was away.
  const seconds = Number(INTERRUPTED.exec(marker.caption.final ?? '')?.[1]);
  expect(seconds).toBeGreaterThanOrEqual(DOWN_MS / 1000 - 1);
  expect(seconds).toBeLessThan(DOWN_MS / 1000 + 30);
  expect(marker.at).toBeGreaterThan(resumedAt);
  // Where it stands: after every caption heard before the drop, before every one after the resume.
  const source = byId(heard.map(({ caption }) => caption));
  const place = source.findIndex((entry) => entry.label === 'gap');
  expect(source.filter((entry) => entry.label === 'gap')).toHaveLength(1);
  for (const { caption, at } of heard) {
    if (isGap(caption) || !caption.final?.trim()) continue;
    const before = source.findIndex((entry) => entry.id === String(caption.id)) < place;
    if (before) expect(at).toBeLessThan(resumedAt);
    else expect(at).toBeGreaterThan(resumedAt);
  }
  expect(place).toBeGreaterThanOrEqual(2);
  expect(source.length - place - 1).toBeGreaterThanOrEqual(2);
  // Each caption of this source once (its ids numbered on across the drop).
  const finals = heard
    .filter(({ caption }) => caption.final?.trim())
    .map(({ caption }) => String(caption.id));
  expect(new Set(finals).size).toBe(finals.length);
  expect(finals.every((final) => final.startsWith(`${id.slice(0, 8)}-`))).toBe(true);

  // The editor sent every one on in live mode, the marker with its label.
  await waitFor('every caption of the source room in the output room', () =>
    source.every((entry) => byId(outputCaptions).some((out) => out.id === entry.id)),
  );
  const output = byId(outputCaptions);
  expect(output).toEqual(source);
  expect(output[place]).toEqual({ id: String(marker.caption.id), text: marker.caption.final, label: 'gap' });

  // The archive: one cue per caption, the marker where it stood, nothing else marked.
  const read = stack.tokens.outputRead;
  await waitFor('every caption in the archive', async () => {
    const files = await readArchive(archive!.api, read).catch(() => undefined);
    return files !== undefined && files.srt.length >= output.length;
  });
  const files = (await readArchive(archive!.api, read))!;
  console.log(`${files.srt.length} cues archived, the marker at ${place + 1}: ${marker.caption.final}`);
  expect(files.sessions).toBe(1);
  expect(files.srt.map((cue) => cue.text)).toEqual(output.map((entry) => entry.text));
  const marks = files.srt.filter((cue) => /^\[(gap|captions missing)/.test(cue.text));
  expect(marks.map((cue) => cue.text)).toEqual([marker.caption.final]);
  expect(files.srt.findIndex((cue) => cue.text === marker.caption.final)).toBe(place);
  // On the file's clock too: the marker's cue starts no earlier than the resume.
  const first = heard.find(({ caption }) => String(caption.id) === source[0]!.id)!;
  expect(files.srt[place]!.startMs).toBeGreaterThanOrEqual(resumedAt - first.at - 1_000);
  // A stream's own gap is not a loss of the relay's: the archive has no error to report.
  const destinations = (await (
    await fetch(`${archive!.api}/destinations`, {
      headers: { Authorization: `Bearer ${stack.tokens.outputWrite}` },
    })
  ).json()) as { destinations: { kind: string; lastError: unknown }[] };
  expect(destinations.destinations).toEqual([expect.objectContaining({ kind: 'archive', lastError: null })]);
  expect(errors.editor).toEqual([]);
  await editor.close();
});
