/**
 * One kind of gap everywhere (issue 42), in chromium on a stack started here: the capture page
 * skips audio to catch up with the live edge (its gateway's answers held back at the capture
 * host, as under load); its gap marker reaches the source room, the editor (live) sends it on
 * with its label, and the output room, the audience page and the archive hold the same marker.
 * The archive is read back with the strict SRT and WebVTT readers.
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import { parseSrt, parseWebVtt } from '@live-captions/caption-files';
import { startArchive } from './archive.js';
import { watchErrors } from './browser.js';
import { closeSession, editorAddress, fragment, openSession, type Session, until } from './session.js';

jest.setTimeout(240_000);

let session: Session;

beforeAll(async () => {
  session = await openSession();
}, 120_000);

afterAll(() => closeSession(session));

const SKIPPED = /^\[gap: \d+\.\d s skipped to catch up with the live edge\]$/;

test('the capture page’s skip reaches the source room, the editor, the output room, the audience page and the archive', async () => {
  const { stack, context, errors, sourceCaptions, outputCaptions } = session;
  const archive = await startArchive(session);
  try {
    const editor = await context.newPage();
    errors.editor = watchErrors(editor);
    await editor.goto(editorAddress(session, { mode: 'live' }));
    await editor.waitForFunction(() =>
      document.querySelector('#output-status')?.textContent?.startsWith('Output: joined'),
    );
    const audience = await context.newPage();
    errors.audience = watchErrors(audience);
    await audience.goto(
      `${stack.uiUrl}audience.html#${fragment({
        relayUrl: stack.relayUrl,
        room: stack.rooms.output,
        relayReadToken: stack.tokens.outputRead,
      })}`,
    );
    await audience.waitForFunction(() => document.body.dataset.relay === 'joined');

    const capture = await context.newPage();
    errors.capture = watchErrors(capture);
    await capture.goto(stack.captureUrl);
    await capture.fill('#api-key', stack.apiKey);
    await capture.click('#load-relay');
    await capture.waitForFunction(() =>
      document.querySelector('#relay-status')?.textContent?.startsWith('Relay: joined'),
    );
    await capture.waitForSelector('#start:not([disabled])');
    await capture.click('#start');
    await until(session, 'a caption in the source room', () =>
      sourceCaptions.find((caption) => caption.final?.includes('test')),
    );
    // The gateway slows down: the page's audio piles up past the lag bound (8 s).
    stack.proxy.slowNext(2, 10_000);
    const marker = await until(
      session,
      'a gap marker in the source room',
      () => sourceCaptions.find((caption) => caption.label === 'gap' && SKIPPED.test(caption.final ?? '')),
      90_000,
    );
    expect(await capture.textContent('#captions .caption-gap')).toMatch(/skipped to catch up/);
    // The editor sent it on (live) with its label: the same marker in the output room.
    const sent = await until(session, 'the marker in the output room', () =>
      outputCaptions.find((caption) => caption.label === 'gap' && SKIPPED.test(caption.final ?? '')),
    );
    await audience.waitForFunction(() =>
      Array.from(document.querySelectorAll('#transcript .caption')).some((p) =>
        p.textContent?.startsWith('[gap:'),
      ),
    );
    const read = { Authorization: `Bearer ${stack.tokens.outputRead}` };
    const files = await until(session, 'the marker in the archive', async () => {
      const list = (await (await fetch(`${archive.api}/archive`, { headers: read })).json()) as {
        sessions: { id: string }[];
      };
      const id = list.sessions[0]?.id;
      if (!id) return undefined;
      const [srt, vtt] = await Promise.all(
        ['srt', 'vtt'].map(async (format) =>
          (await fetch(`${archive.api}/archive/${id}.${format}`, { headers: read })).text(),
        ),
      );
      const cues = parseSrt(srt!);
      return cues.some((cue) => SKIPPED.test(cue.text)) && { cues, vtt: parseWebVtt(vtt!) };
    });
    expect(files.vtt.map((cue) => cue.text)).toEqual(files.cues.map((cue) => cue.text));
    // One marker per skip (a stretch of skips grows one marker): the output's latest text is the archive's.
    const latest = outputCaptions.filter((caption) => caption.id === sent.id).at(-1)?.final;
    await until(session, 'the archive with the marker’s latest text', async () => {
      const list = (await (await fetch(`${archive.api}/archive`, { headers: read })).json()) as {
        sessions: { id: string }[];
      };
      const srt = await (
        await fetch(`${archive.api}/archive/${list.sessions[0]!.id}.srt`, { headers: read })
      ).text();
      return parseSrt(srt).filter((cue) => cue.text === latest).length === 1;
    });
    // Its own caption id: no caption of the capture page was replaced by it.
    expect(sourceCaptions.filter((caption) => caption.id === marker.id && caption.label !== 'gap')).toEqual(
      [],
    );
    await capture.click('#stop');
  } finally {
    await archive.stop();
  }
});
