/**
 * The editor's scenarios of the operator's loop (issue 26), on the session of operator-loop.test.ts
 * (its editor in timed 5 s, its overlay keeping 20 captions): timed review as a pipeline, the
 * shortcuts, live mode with corrections replacing what is on screen, line breaks, a caption longer
 * than the relay takes, and "Copy overlay link" from the hub's editor link.
 */
import { readFileSync } from 'node:fs';
import { expect } from '@jest/globals';
import { parseSrt, parseWebVtt } from '@live-captions/caption-files';
import { RELAY_TEXT_MAX } from '@live-captions/protocol';
import type { Page } from 'playwright-core';
import { screenshot, watchErrors } from './browser.js';
import { type OperatorLoop, speak } from './operator-loop.js';
import { until } from './session.js';

/** The lines as rendered (innerText: a line break on screen is a `\n`). */
const lines = (page: Page) =>
  page.$$eval('.caption-line', (nodes) =>
    // biome-ignore lint/performance/useDomNodeTextContent: the rendering, line breaks included, is what is tested
    nodes.map((node) => (node as HTMLElement).innerText),
  );

/** Records in the page when each caption line first showed (the browser's clock is the test's). */
async function recordArrivals(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: Record<string, number> = {};
    (window as unknown as { seen: Record<string, number> }).seen = seen;
    new MutationObserver(() => {
      for (const node of Array.from(document.querySelectorAll('.caption-line'))) {
        const text = node.textContent ?? '';
        if (!(text in seen)) seen[text] = Date.now();
      }
    }).observe(document.getElementById('captions')!, { childList: true, subtree: true, characterData: true });
  });
}

const shows = (page: Page, text: string) =>
  page.waitForFunction(
    (wanted) => Array.from(document.querySelectorAll('.caption-line')).some((n) => n.textContent === wanted),
    text,
    { timeout: 20_000 },
  );

export async function timedPipeline(loop: OperatorLoop): Promise<void> {
  const { overlay, session } = loop;
  await recordArrivals(overlay);
  const spokenAt = new Map<string, number>();
  for (let index = 1; index <= 10; index += 1) {
    const text = `Pipeline caption ${index}`;
    spokenAt.set(text, speak(loop, text));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  await overlay.waitForFunction(() => document.querySelectorAll('.caption-line').length === 10, null, {
    timeout: 20_000,
  });
  const seen = await overlay.evaluate(() => (window as unknown as { seen: Record<string, number> }).seen);
  expect(Object.keys(seen)).toEqual([...spokenAt.keys()]);
  const lags = [...spokenAt].map(([text, at]) => seen[text]! - at);
  for (const lag of lags) {
    expect(lag).toBeGreaterThanOrEqual(4_500);
    expect(lag).toBeLessThanOrEqual(5_500);
  }
  // None was skipped or sent twice.
  const ids = session.outputCaptions.filter((c) => c.final?.startsWith('Pipeline')).map((c) => c.id);
  expect(new Set(ids).size).toBe(10);
}

export async function shortcuts(loop: OperatorLoop): Promise<void> {
  const { editor, overlay } = loop;
  await editor.focus('#draft');
  await editor.keyboard.press('Alt+X');
  await overlay.waitForFunction(() => document.querySelectorAll('.caption-line').length === 0);
  await editor.check('input[name="mode"][value="manual"]');
  speak(loop, 'Skip me');
  await editor.waitForFunction(
    () => (document.querySelector('#draft') as HTMLTextAreaElement).value === 'Skip me',
  );
  await editor.keyboard.press('Escape');
  expect(await editor.inputValue('#draft')).toBe('');
  expect(await editor.getAttribute('#skip', 'aria-keyshortcuts')).toBe('Escape');
  expect(await editor.getAttribute('#clear-overlay', 'aria-keyshortcuts')).toBe('Alt+X');
  expect(loop.session.outputCaptions.some((c) => c.final === 'Skip me')).toBe(false);
}

export async function liveCorrections(loop: OperatorLoop): Promise<void> {
  const { editor, overlay, session } = loop;
  await editor.check('input[name="mode"][value="live"]');
  speak(loop, 'Live caption with a typo');
  await shows(overlay, 'Live caption with a typo');
  await editor.waitForFunction(
    () => (document.querySelector('#draft') as HTMLTextAreaElement).value === 'Live caption with a typo',
  );
  await editor.fill('#draft', 'Live caption, corrected');
  await editor.press('#draft', 'Enter');
  await shows(overlay, 'Live caption, corrected');
  expect(await lines(overlay)).toEqual(['Live caption, corrected']);
  const published = session.outputCaptions.filter((c) => c.final?.startsWith('Live caption'));
  expect(published.map((c) => c.final)).toEqual(['Live caption with a typo', 'Live caption, corrected']);
  expect(published[0]!.id).toBe(published[1]!.id);
}

export async function lineBreaks({ editor, overlay, session }: OperatorLoop): Promise<void> {
  await editor.fill('#draft', '');
  await editor.focus('#draft');
  await editor.keyboard.type('First line');
  await editor.keyboard.press('Shift+Enter');
  await editor.keyboard.type('second line');
  await editor.keyboard.press('Enter');
  await until(session, 'the caption with a break', () =>
    session.outputCaptions.find((c) => c.final === 'First line\nsecond line'),
  );
  await shows(overlay, 'First line\nsecond line');
  // innerText follows the rendering: the break is a line break on screen.
  expect(await lines(overlay)).toContain('First line\nsecond line');
  await screenshot(overlay, 'overlay-line-break');
}

export async function longCaption(loop: OperatorLoop): Promise<void> {
  const { editor, overlay } = loop;
  const words = Array.from({ length: 1_500 }, (_, index) => `w${String(index).padStart(4, '0')}`);
  const text = words.join(' ');
  expect(text.length).toBeGreaterThan(2 * RELAY_TEXT_MAX);
  await editor.click('#clear-overlay');
  await overlay.waitForFunction(() => document.querySelectorAll('.caption-line').length === 0);
  await editor.fill('#draft', text);
  await editor.press('#draft', 'Enter');
  // Whole, in pieces the relay takes: three captions whose text together is the caption.
  const pieces = await until(loop.session, 'the three pieces in the output room', () => {
    const found = loop.session.outputCaptions.filter(
      (c) => c.final?.startsWith('w') && /^w\d{4}/.test(c.final),
    );
    return found.length >= 3 && found;
  });
  expect(pieces).toHaveLength(3);
  expect(pieces.map((c) => c.final).join(' ')).toBe(text);
  for (const piece of pieces) expect(piece.final!.length).toBeLessThanOrEqual(RELAY_TEXT_MAX);
  expect(new Set(pieces.map((c) => c.id)).size).toBe(3);
  // The overlay shows the newest piece (its last lines: far more than the overlay's line limit).
  await shows(overlay, pieces[2]!.final!);
  // The room keeps working: the next caption arrives, and the editor's output is still joined.
  speak(loop, 'After the long caption');
  await shows(overlay, 'After the long caption');
  expect(await editor.textContent('#output-status')).toMatch(/^Output: joined; queued 0/);
}

export async function copyOverlayFromHub({ session }: OperatorLoop): Promise<void> {
  const { stack, context, errors } = session;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
    origin: new URL(stack.uiUrl).origin,
  });
  const hub = await context.newPage();
  errors.links = watchErrors(hub);
  await hub.goto(stack.uiUrl);
  await hub.fill('#api-key', stack.apiKey);
  await hub.click('#fetch');
  await hub.waitForFunction(
    () => document.querySelector('#fetch-status')?.textContent === 'Filled in from the capture host.',
  );
  await hub.fill('#maxlines', '5');
  await hub.fill('#fontsize', '60');
  const editorLink = await hub.inputValue('#editor-link');
  const overlayLink = await hub.inputValue('#overlay-link');
  await hub.close();
  const fromHub = await context.newPage();
  errors.hubEditor = watchErrors(fromHub);
  await fromHub.goto(editorLink);
  await fromHub.click('#copy-overlay');
  await fromHub.waitForFunction(
    () => document.querySelector('#settings-status')?.textContent === 'Overlay link copied.',
  );
  const copied = await fromHub.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(overlayLink);
  expect(new URL(copied).search).toBe('?maxlines=5&showtime=12000&fontsize=60');
  await fromHub.close();
  const opened = await context.newPage();
  await opened.goto(copied);
  await opened.waitForFunction(() => document.body.dataset.relay === 'joined');
  await opened.close();
}

/** The editor's downloads: what went out, corrections included, parse as SRT and WebVTT. */
export async function exports({ editor }: OperatorLoop): Promise<void> {
  const download = async (format: string) => {
    const [file] = await Promise.all([
      editor.waitForEvent('download'),
      editor.click(`button[data-export="${format}"]`),
    ]);
    const path = await file.path();
    return { name: file.suggestedFilename(), text: readFileSync(path, 'utf8') };
  };
  const srt = await download('srt');
  expect(srt.name).toMatch(/^reviewed-captions-\d{4}-\d{2}-\d{2}-\d{4}\.srt$/);
  const cues = parseSrt(srt.text);
  const texts = cues.map((cue) => cue.text);
  expect(texts).toContain('Pipeline caption 1');
  expect(texts).toContain('Live caption, corrected');
  expect(texts).not.toContain('Live caption with a typo');
  expect(texts).toContain('First line\nsecond line');
  // The times they went out: the pipeline's captions 1 s apart.
  const first = cues.find((cue) => cue.text === 'Pipeline caption 1')!;
  const second = cues.find((cue) => cue.text === 'Pipeline caption 2')!;
  expect(second.startMs - first.startMs).toBeGreaterThan(500);
  expect(second.startMs - first.startMs).toBeLessThan(1_500);
  const vtt = await download('vtt');
  expect(parseWebVtt(vtt.text)).toEqual(cues);
  expect((await download('txt')).text).toContain('Live caption, corrected');
}
