/**
 * Reloads at a live event (issue 37), in chromium on a stack started here (speech gateway with
 * the synthetic model, relay as a child process of this test, UI service): the audience page, the
 * overlay and the editor reloaded mid-stream lose nothing and show nothing twice. Captions are
 * published into the rooms from the test, as a capture page and an editor would. The other
 * faults: event-faults-relay.test.ts, event-faults-files.test.ts.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import type { RelayPublisher } from '@live-captions/relay-client/node';
import type { BrowserContext, Page } from 'playwright-core';
import { screenshot, watchErrors } from './browser.js';
import {
  audienceAddress,
  closeEventSession,
  openEventSession,
  sleep,
  unexpectedPageErrors,
} from './event-session.js';
import { editorAddress, overlayAddress, type Session, until } from './session.js';

jest.setTimeout(120_000);

let session: Session;
let source: RelayPublisher;
let output: RelayPublisher;
let phone: BrowserContext;
let screen: BrowserContext;

beforeAll(async () => {
  ({ session, source, output, phone, screen } = await openEventSession());
}, 120_000);

afterAll(() => closeEventSession({ session, source, output }));

/** The join frames a page sends to the relay, in order (its reload included). */
function joinsOf(page: Page): Record<string, unknown>[] {
  const joins: Record<string, unknown>[] = [];
  page.on('websocket', (socket) =>
    socket.on('framesent', ({ payload }) => {
      const frame = JSON.parse(String(payload)) as Record<string, unknown>;
      if ('join' in frame) joins.push(frame);
    }),
  );
  return joins;
}

/** Publishes `count` finals into the output room, `everyMs` apart; resolves with their texts. */
async function stream(prefix: string, count: number, everyMs: number): Promise<string[]> {
  const texts: string[] = [];
  for (let n = 1; n <= count; n += 1) {
    const text = `${prefix} caption ${n}.`;
    expect(output.publish({ final: text, id: `${prefix}-${n}`, ln: 'en' })).toBe(true);
    texts.push(text);
    await sleep(everyMs);
  }
  return texts;
}

const audienceCaptions = (page: Page) =>
  page.$$eval('#transcript .caption', (nodes) =>
    nodes.map((n) => ({ id: (n as HTMLElement).dataset.id, text: n.textContent })),
  );
const overlayLines = (page: Page) =>
  page.$$eval('.caption-line', (nodes) => nodes.map((n) => n.textContent ?? ''));

describe('a reload loses nothing', () => {
  test('the audience page (375x812) and the overlay (1920x1080) reloaded mid-stream: captions continue, none twice', async () => {
    const { errors } = session;
    const audience = await phone.newPage();
    errors.audience = watchErrors(audience);
    const audienceJoins = joinsOf(audience);
    await audience.goto(audienceAddress(session));
    const overlay = await screen.newPage();
    errors.overlay = watchErrors(overlay);
    const overlayJoins = joinsOf(overlay);
    await overlay.goto(overlayAddress(session, 'showtime=0&maxlines=20', true));
    for (const page of [audience, overlay])
      await page.waitForFunction(() => document.body.dataset.relay === 'joined');

    // As many as the overlay keeps (maxlines 20): all of them must be on it at the end.
    const streamed = stream('reload', 20, 250);
    await audience.waitForFunction(() => document.querySelectorAll('#transcript .caption').length >= 8);
    await overlay.waitForFunction(() => document.querySelectorAll('.caption-line').length >= 8);
    // Both reloaded while captions keep coming (a phone's pull-to-refresh, OBS's "Refresh").
    await Promise.all([audience.reload(), overlay.reload()]);
    const texts = await streamed;
    const last = texts.at(-1)!;
    await audience.waitForFunction(
      (t) => document.querySelector('#transcript')?.textContent?.includes(t),
      last,
      { timeout: 20_000 },
    );
    await overlay.waitForFunction(
      (t) => Array.from(document.querySelectorAll('.caption-line')).some((n) => n.textContent === t),
      last,
      { timeout: 20_000 },
    );
    expect(audience.url()).not.toContain(session.stack.tokens.outputRead);
    // Every caption once, in order, on both (restored from the tab, then resumed by cursor).
    const shown = (await audienceCaptions(audience)).filter((c) => c.id?.startsWith('reload-'));
    expect(shown.map((c) => c.text)).toEqual(texts);
    expect(shown.map((c) => c.id)).toEqual(texts.map((_, i) => `reload-${i + 1}`));
    expect((await overlayLines(overlay)).filter((line) => line.startsWith('reload '))).toEqual(texts);
    for (const page of [audience, overlay])
      expect(Number(await page.evaluate(() => document.body.dataset.restored))).toBeGreaterThanOrEqual(8);
    expect(await audience.textContent('#audience-status')).toBe('Live');

    // The audience page's first join is bounded to the last minutes; its resume takes everything
    // since its cursor. The overlay resumes by cursor too.
    expect(audienceJoins[0]).toMatchObject({ role: 'read', replayMs: 120_000 });
    expect(audienceJoins[0]).not.toHaveProperty('cursor');
    expect(audienceJoins.at(-1)).toHaveProperty('cursor');
    expect(audienceJoins.at(-1)).not.toHaveProperty('replayMs');
    expect(overlayJoins[0]).not.toHaveProperty('cursor');
    expect(overlayJoins.at(-1)).toHaveProperty('cursor');
    await screenshot(audience, 'event-faults-audience-reloaded');
    await screenshot(overlay, 'event-faults-overlay-reloaded');
    await Promise.all([audience.close(), overlay.close()]);
  });

  test('the editor reloaded with a caption under review and two queued: each reaches the output room once', async () => {
    const { stack, context, errors, outputCaptions } = session;
    const editor = await context.newPage();
    errors.editorReload = watchErrors(editor);
    await editor.goto(editorAddress(session, { mode: 'manual', outputReadToken: stack.tokens.outputRead }));
    for (const id of ['#source-status', '#output-status'])
      await editor.waitForFunction(
        (s) => (document.querySelector(s) as HTMLElement).dataset.link === 'joined',
        id,
      );
    const texts = ['Under review at the reload.', 'Queued first.', 'Queued second.'];
    for (const [i, text] of texts.entries()) source.publish({ final: text, id: `ed-${i + 1}`, ln: 'en' });
    await editor.waitForFunction(
      (t) => (document.querySelector('#draft') as HTMLTextAreaElement).value === t,
      texts[0],
    );
    await editor.waitForFunction(() => document.querySelector('#queue-count')?.textContent === '2');

    await editor.reload();
    await editor
      .waitForFunction(
        () =>
          /^Restored after a reload: 3 captions back for review/.test(
            document.querySelector('#settings-status')?.textContent ?? '',
          ),
        null,
        { timeout: 20_000 },
      )
      .catch(async (error: Error) => {
        throw new Error(`${error.message}\nthe editor says: ${await editor.textContent('#settings-status')}`);
      });
    for (const text of texts) {
      await editor.waitForFunction(
        (t) => (document.querySelector('#draft') as HTMLTextAreaElement).value === t,
        text,
      );
      await editor.press('#draft', 'Enter');
    }
    await until(session, 'the three captions in the output room', () =>
      texts.every((text) => outputCaptions.some((c) => c.final === text)),
    );
    // Nothing more goes out a little later (a resend, a second copy of the review).
    await sleep(2_000);
    const out = outputCaptions.filter((c) => texts.includes(c.final ?? ''));
    expect(out.map((c) => c.final)).toEqual(texts);
    expect(new Set(out.map((c) => c.id)).size).toBe(3);
    expect(await editor.$$eval('#sent li', (nodes) => nodes.length)).toBeGreaterThanOrEqual(3);
    expect(await editor.textContent('#settings-status')).not.toMatch(/could not come back/);
    await screenshot(editor, 'event-faults-editor-reloaded');
    await editor.close();
  });
});

test('no page threw or broke its CSP', () => {
  expect(unexpectedPageErrors(session)).toEqual([]);
});
