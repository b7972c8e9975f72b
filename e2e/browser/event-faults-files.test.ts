/**
 * The files of a live event and the small traps (issue 37), in chromium on a stack started here
 * (speech gateway with the synthetic model, relay as a child process of this test, UI service):
 * the editor's files from a session with a mode switch and an outage hold no cue shorter than
 * the minimum and none twice (the outputs archive too); and the small traps stay fixed.
 * Captions are published into the rooms from the test, as a capture page would.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { MIN_CUE_MS, parseSrt, parseWebVtt } from '@live-captions/caption-files';
import type { RelayPublisher } from '@live-captions/relay-client/node';
import { startArchive } from './archive.js';
import { watchErrors } from './browser.js';
import { closeEventSession, openEventSession, sleep, unexpectedPageErrors } from './event-session.js';
import { editorAddress, fragment, type Session, until } from './session.js';

jest.setTimeout(120_000);

let session: Session;
let source: RelayPublisher;
let output: RelayPublisher;

beforeAll(async () => {
  ({ session, source, output } = await openEventSession());
}, 120_000);

afterAll(() => closeEventSession({ session, source, output }));

describe('the small traps', () => {
  test('capture: Enter in the token field unlocks Start; a wrong token points at the token, not the settings', async () => {
    const { stack, context, errors } = session;
    const capture = await context.newPage();
    errors.captureTraps = watchErrors(capture);
    await capture.goto(stack.captureUrl);
    await capture.fill('#api-key', 'x'.repeat(43));
    await capture.press('#api-key', 'Enter');
    await capture.waitForFunction(
      () => document.querySelector('#api-key')?.getAttribute('aria-invalid') === 'true',
    );
    expect(await capture.textContent('#service-status')).toMatch(/access token/);
    expect(await capture.isDisabled('#start')).toBe(true);
    await capture.fill('#api-key', stack.apiKey);
    await capture.press('#api-key', 'Enter');
    await capture.waitForSelector('#start:not([disabled])');
    expect(await capture.getAttribute('#api-key', 'aria-invalid')).toBeNull();
    await capture.close();
  });

  test('hub: a token link pasted into the open tab fills it in; a loopback link for phones is warned of', async () => {
    const { stack, context, errors } = session;
    const hub = await context.newPage();
    errors.hubTraps = watchErrors(hub);
    await hub.goto(stack.uiUrl);
    expect(await hub.inputValue('#api-key')).toBe('');
    // The same page, only the fragment changes: no load, a hashchange.
    await hub.goto(`${stack.uiUrl}#${fragment({ token: stack.apiKey })}`);
    await hub.waitForFunction(
      () => document.querySelector('#links-status')?.textContent === 'All four links are ready.',
    );
    expect(hub.url()).not.toContain(stack.apiKey);
    // The stack runs on 127.0.0.1: the audience link cannot work on a phone, and the hub says how to fix it.
    await hub.waitForSelector('#audience-warning', { state: 'visible' });
    expect(await hub.textContent('#audience-warning')).toMatch(/^Phones cannot open this link: .*UI_HOST/);
    await hub.close();
  });
});

/**
 * Cues of a caption file checked as the issue asks; the file's cue count as ffprobe reads it.
 * `gapMark`: the archive's mark where the relay restarted (it cannot know whether captions were
 * lost then), allowed once, in its own cue.
 */
function checkFile(path: string, format: 'srt' | 'vtt', texts: string[], gapMark?: string): void {
  const cues = (format === 'srt' ? parseSrt : parseWebVtt)(readFileSync(path, 'utf8'));
  const marks = cues.filter((cue) => cue.text === gapMark).length;
  expect(marks).toBeLessThanOrEqual(1);
  expect(cues.map((cue) => cue.text).filter((text) => text !== gapMark)).toEqual(texts);
  for (const cue of cues) expect(cue.endMs - cue.startMs).toBeGreaterThanOrEqual(MIN_CUE_MS);
  const packets = execFileSync(
    'ffprobe',
    ['-v', 'error', '-count_packets', '-show_entries', 'stream=nb_read_packets', '-of', 'csv=p=0', path],
    { encoding: 'utf8' },
  ).trim();
  expect({ path, ffprobe: Number(packets) }).toEqual({ path, ffprobe: texts.length + marks });
}

describe('files from a session with a mode switch and an outage', () => {
  test("the editor's exports and the archive, SRT and WebVTT: every cue at least the minimum, none twice, ffprobe reads every cue", async () => {
    const { stack, context, errors, scratch } = session;
    const archive = await startArchive(session);
    try {
      const editor = await context.newPage();
      errors.editorFiles = watchErrors(editor);
      await editor.goto(editorAddress(session, { mode: 'timed', delay: '5' }));
      await editor.waitForFunction(
        () => (document.querySelector('#source-status') as HTMLElement).dataset.link === 'joined',
      );
      const texts: string[] = [];
      let n = 0;
      const speak = () => {
        n += 1;
        const text = `File caption ${n}.`;
        texts.push(text);
        source.publish({ final: text, id: `file-${n}`, ln: 'en' });
      };
      // Timed 5 s: four captions queue; the switch to live releases them at once.
      for (let i = 0; i < 4; i += 1) {
        speak();
        await sleep(300);
      }
      await editor.waitForFunction(() => document.querySelector('#queue-count')?.textContent === '3');
      await editor.check('input[name="mode"][value="live"]');
      for (let i = 0; i < 3; i += 1) {
        speak();
        await sleep(200);
      }
      // An outage with captions spoken through it (the source publisher keeps them until it is back).
      const restarted = stack.restartRelay(4_000);
      await sleep(1_000);
      for (let i = 0; i < 3; i += 1) speak();
      await restarted;
      for (let i = 0; i < 3; i += 1) {
        speak();
        await sleep(150);
      }
      await until(session, 'every caption in the output room', () =>
        texts.every((text) => session.outputCaptions.some((c) => c.final === text)),
      );
      await sleep(1_000);

      for (const format of ['srt', 'vtt'] as const) {
        const [file] = await Promise.all([
          editor.waitForEvent('download'),
          editor.click(`button[data-export="${format}"]`),
        ]);
        const path = join(scratch, `editor.${format}`);
        await file.saveAs(path);
        checkFile(path, format, texts);
      }
      await editor.close();

      // The archive of the same room: one session, every caption once (read by cursor through
      // the outage), the same rule for its cues, and no gap marker: the relay's restart lost
      // nothing (the publishers' delivery sequences say so), so none belongs there.
      const read = { Authorization: `Bearer ${stack.tokens.outputRead}` };
      const archived = await until(session, 'the archive holding every caption', async () => {
        const list = (await (await fetch(`${archive.api}/archive`, { headers: read })).json()) as {
          sessions: { id: string; captions: number }[];
        };
        return list.sessions.length === 1 && list.sessions[0]!.captions >= texts.length && list.sessions[0];
      });
      for (const format of ['srt', 'vtt'] as const) {
        const answer = await fetch(`${archive.api}/archive/${archived.id}.${format}`, { headers: read });
        expect(answer.status).toBe(200);
        const path = join(scratch, `archive.${format}`);
        writeFileSync(path, await answer.text());
        checkFile(path, format, texts);
      }
    } finally {
      await archive.stop();
    }
  }, 300_000);
});

test('no page threw or broke its CSP', () => {
  expect(unexpectedPageErrors(session)).toEqual([]);
});
