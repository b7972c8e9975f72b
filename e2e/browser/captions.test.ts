/**
 * The pages end to end in chromium, on a stack started here: capture -> gateway -> source room ->
 * editor -> output room -> overlay, a relay restart, gateway failures, the links hub, and the
 * capture page over the realtime transport (WebSocket, server VAD) to the overlay.
 * The scenarios run in order on one stack and one capture session, as an operator would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, jest, test } from '@jest/globals';
import type { RelayCaption } from '@live-captions/protocol';
import { createReader } from '@live-captions/relay-client/node';
import { buildPages, captureDir } from '@live-captions/web';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, screenshot, watchErrors } from './browser.js';
import type { RecordedWindow } from './capture-proxy.js';
import { fakeMicrophoneWav } from './microphone.js';
import { CLIP, type Stack, startStack } from './stack.js';

const SAMPLE_RATE = 16_000;

jest.setTimeout(60_000);

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let capture: Page;
let editor: Page;
let overlay: Page;
let scratch: string;
const errors: Record<string, string[]> = {};
const sourceCaptions: RelayCaption[] = [];
const outputCaptions: RelayCaption[] = [];
const readers: { close(): void }[] = [];

async function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}\n${stack.logs()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const fragment = (params: Record<string, string>) => new URLSearchParams(params).toString();
/** The editor on the test stack, reading the source room and writing the output room. */
const editorAddress = (settings: Record<string, string>) =>
  `${stack.uiUrl}editor.html#${fragment({
    relayUrl: stack.relayUrl,
    sourceRoom: stack.rooms.source,
    sourceReadToken: stack.tokens.sourceRead,
    outputRoom: stack.rooms.output,
    outputWriteToken: stack.tokens.outputWrite,
    ...settings,
  })}`;

/**
 * No audio lost between two answered windows of a stream: the later one starts with the 0.5 s of
 * context before the earlier one's committed point, followed by everything after it.
 */
function assertContiguous(earlier: RecordedWindow, later: RecordedWindow): void {
  const committed = Math.round(earlier.answer!.committed_seconds * SAMPLE_RATE);
  const context = Math.round(Number(later.query.context_seconds) * SAMPLE_RATE);
  expect(context).toBe(Math.round(0.5 * SAMPLE_RATE));
  const tail = earlier.samples.subarray(committed - context);
  expect(later.samples.length).toBeGreaterThanOrEqual(tail.length);
  // Index of the first sample that differs (-1: the later window continues the earlier exactly).
  expect(tail.findIndex((sample, index) => sample !== later.samples[index])).toBe(-1);
}

function answered(windows: RecordedWindow[]): RecordedWindow[] {
  return windows.filter((window) => window.status === 200);
}

/**
 * Every answered window after an unfinished one continues it exactly; after a final one the next
 * either continues it too or starts afresh after silence (no context). Returns the pairs checked.
 */
function assertNoAudioLost(windows: RecordedWindow[]): number {
  const done = answered(windows);
  let checked = 0;
  for (let i = 1; i < done.length; i++) {
    const [earlier, later] = [done[i - 1]!, done[i]!];
    if (earlier.streamId !== later.streamId) continue;
    if (earlier.query.final === '0' || Number(later.query.context_seconds) > 0) {
      assertContiguous(earlier, later);
      checked += 1;
    }
  }
  return checked;
}

beforeAll(async () => {
  await buildPages();
  stack = await startStack(captureDir);
  scratch = mkdtempSync(join(tmpdir(), 'e2e-browser-'));
  browser = await launchBrowser(fakeMicrophoneWav(CLIP, scratch));
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  for (const [room, token, list] of [
    [stack.rooms.source, stack.tokens.sourceRead, sourceCaptions],
    [stack.rooms.output, stack.tokens.outputRead, outputCaptions],
  ] as const) {
    readers.push(
      createReader({ url: stack.relayUrl, room, token, onCaption: (caption) => list.push(caption) }),
    );
  }
}, 120_000);

afterAll(async () => {
  for (const reader of readers) reader.close();
  await browser?.close();
  await stack?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** With E2E_DEBUG=1: what each page showed after each test (status lines and errors). */
afterEach(async () => {
  if (!process.env.E2E_DEBUG) return;
  for (const [name, page] of [
    ['capture', capture],
    ['editor', editor],
    ['overlay', overlay],
  ] as const) {
    if (!page || page.isClosed()) continue;
    const statuses = await page
      .$$eval('[role=status], #failure-text', (nodes) =>
        nodes.map((node) => node.textContent?.trim()).filter(Boolean),
      )
      .catch(() => []);
    console.log(`${name}: ${statuses.join(' | ')}\nerrors: ${(errors[name] ?? []).join(' | ')}`);
  }
});

const tokenKeys = /Token=/;

describe('live captions in a browser', () => {
  test('1. the capture page streams a clip in rolling windows; captions appear and reach the source room', async () => {
    capture = await context.newPage();
    errors.capture = watchErrors(capture);
    await capture.goto(stack.captureUrl);
    // Protected gateway: the access token unlocks health and fills in the relay settings.
    await capture.fill('#api-key', stack.apiKey);
    await capture.click('#load-relay');
    await capture.waitForFunction(() =>
      document.querySelector('#relay-status')?.textContent?.startsWith('Relay: joined'),
    );
    expect(await capture.inputValue('#relay-url')).toBe(stack.relayUrl);
    expect(await capture.inputValue('#relay-room')).toBe(stack.rooms.source);
    await capture.waitForSelector('#start:not([disabled])');
    expect(await capture.inputValue('#language')).toBe('en');
    await capture.click('#start');

    await capture.waitForSelector('#captions li', { timeout: 30_000 });
    expect(await capture.textContent('#captions li')).toContain('test');
    const first = answered(stack.proxy.windows)[0]!;
    expect(first.query).toMatchObject({ window: '1', language: 'en', mode: 'transcribe' });
    expect(first.streamId).toMatch(/^cap-[0-9a-f]{24}$/);
    expect(first.requestId).toMatch(/^req-[0-9a-f]{24}$/);
    // At most 0.5 s of lead-in before the speech, and never more than 12 s.
    expect(first.samples.length / SAMPLE_RATE).toBeLessThanOrEqual(12);
    await until('a caption in the source room', () =>
      sourceCaptions.find((caption) => caption.final?.includes('test')),
    );
    await capture.waitForFunction(() =>
      /Relay: joined; queued 0/.test(document.querySelector('#relay-status')?.textContent ?? ''),
    );

    // Unfinished windows at the 3 s interval and final ones at the clip's pause, no audio lost.
    await until('an unfinished and a final window', () => {
      const done = answered(stack.proxy.windows);
      return (
        done.some((window) => window.query.final === '0') && done.some((window) => window.query.final === '1')
      );
    });
    await until('a window following an unfinished one', () => {
      const done = answered(stack.proxy.windows);
      return done.findIndex((window) => window.query.final === '0') < done.length - 1;
    });
    expect(assertNoAudioLost(stack.proxy.windows)).toBeGreaterThan(0);
    const ids = answered(stack.proxy.windows).map((window) => window.requestId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(answered(stack.proxy.windows).map((window) => window.streamId)).size).toBe(1);
    await screenshot(capture, 'capture');
  });

  test('2. the editor receives the captions and publishes an edit to the output room', async () => {
    overlay = await context.newPage();
    errors.overlay = watchErrors(overlay);
    await overlay.goto(
      `${stack.uiUrl}overlay.html?showtime=4000#${fragment({ room: stack.rooms.output, relayReadToken: stack.tokens.outputRead })}`,
    );
    await overlay.waitForFunction(() => document.body.dataset.relay === 'joined');
    // The relay address came from /site-config.js; the token left the address bar.
    expect(overlay.url()).not.toMatch(tokenKeys);

    editor = await context.newPage();
    errors.editor = watchErrors(editor);
    await editor.goto(editorAddress({ mode: 'manual' }));
    expect(editor.url()).not.toMatch(tokenKeys);
    await editor.waitForFunction(() =>
      document.querySelector('#output-status')?.textContent?.startsWith('Output: joined'),
    );
    await editor.waitForFunction(
      () => (document.querySelector('#draft') as HTMLTextAreaElement).value.includes('test'),
      null,
      {
        timeout: 30_000,
      },
    );
    await editor.fill('#draft', 'Edited caption one');
    await editor.press('#draft', 'Enter');
    const published = await until('the edit in the output room', () =>
      outputCaptions.find((caption) => caption.final === 'Edited caption one'),
    );
    expect(published.ln).toBe('en');
    await editor.waitForSelector('#sent li');
    expect(await editor.textContent('#sent li')).toBe('Edited caption one');
    await screenshot(editor, 'editor');
  });

  test('3. the overlay shows the edited text, then clears after showtime', async () => {
    await overlay.waitForSelector('.caption-line');
    expect(await overlay.$$eval('.caption-line', (lines) => lines.map((line) => line.textContent))).toEqual([
      'Edited caption one',
    ]);
    await screenshot(overlay, 'overlay');
    await overlay.waitForFunction(() => document.querySelectorAll('.caption-line').length === 0, null, {
      timeout: 15_000,
    });
  });

  test('4. the relay restarts mid-run: the overlay resumes and shows nothing twice', async () => {
    const keeper = await context.newPage();
    errors.keeper = watchErrors(keeper);
    await keeper.goto(
      `${stack.uiUrl}overlay.html?showtime=0&maxlines=10#${fragment({
        relayUrl: stack.relayUrl,
        room: stack.rooms.output,
        relayReadToken: stack.tokens.outputRead,
      })}`,
    );
    await keeper.waitForFunction(() => document.body.dataset.relay === 'joined');
    const lines = () => keeper.$$eval('.caption-line', (nodes) => nodes.map((node) => node.textContent));

    await editor.fill('#draft', 'Before the restart');
    await editor.press('#draft', 'Enter');
    await keeper.waitForFunction(() => document.querySelectorAll('.caption-line').length === 1);

    await stack.restartRelay();
    await keeper.waitForFunction(
      () => document.body.dataset.gap === 'relay-restarted' && document.body.dataset.relay === 'joined',
      null,
      {
        timeout: 20_000,
      },
    );
    await editor.waitForFunction(
      () => document.querySelector('#output-status')?.textContent?.startsWith('Output: joined'),
      null,
      {
        timeout: 20_000,
      },
    );
    await editor.fill('#draft', 'After the restart');
    await editor.press('#draft', 'Enter');
    await keeper.waitForFunction(() => document.querySelectorAll('.caption-line').length === 2, null, {
      timeout: 20_000,
    });
    expect(await lines()).toEqual(['Before the restart', 'After the restart']);
    // The capture page's publisher is back too: new captions reach the editor.
    await capture.waitForFunction(
      () => /Relay: joined/.test(document.querySelector('#relay-status')?.textContent ?? ''),
      null,
      {
        timeout: 20_000,
      },
    );
    const before = sourceCaptions.length;
    await until('a caption published after the restart', () => sourceCaptions.length > before);
    expect(await lines()).toEqual(['Before the restart', 'After the restart']);
    await keeper.close();
  });

  test('5. the gateway answers 503: same request id, no audio lost; after the last retry, Retry / Discard', async () => {
    // Three 503s: the fourth attempt of the same window succeeds.
    let from = stack.proxy.windows.length;
    stack.proxy.failNext(3);
    const retried = await until('a window answered after three 503s', () => {
      const attempts = stack.proxy.windows.slice(from);
      const ok = attempts.find((window) => window.status === 200);
      return ok && attempts.filter((window) => window.requestId === ok.requestId);
    });
    expect(retried.map((window) => window.status)).toEqual([503, 503, 503, 200]);
    expect(new Set(retried.map((window) => window.sha256)).size).toBe(1);
    const after = await until('the next window', () =>
      answered(stack.proxy.windows.slice(from)).find((window) => window.requestId !== retried[0]!.requestId),
    );
    expect(after.streamId).toBe(retried[0]!.streamId);
    assertNoAudioLost(stack.proxy.windows);

    // Four 503s: retries exhausted, capture stops with the audio kept.
    from = stack.proxy.windows.length;
    stack.proxy.failNext(4);
    await capture.waitForSelector('#failure:not([hidden])', { timeout: 30_000 });
    const failed = stack.proxy.windows.slice(from);
    expect(failed.map((window) => window.status)).toEqual([503, 503, 503, 503]);
    expect(new Set(failed.map((window) => `${window.requestId} ${window.sha256}`)).size).toBe(1);
    expect(await capture.textContent('#capture-status')).toContain('audio kept');
    expect(await capture.isEnabled('#retry')).toBe(true);
    expect(await capture.isEnabled('#discard')).toBe(true);
    expect(await capture.isDisabled('#stop')).toBe(true);
    await screenshot(capture, 'capture-failed');

    // Retry: the same window, the same id; then the rest is drained and the stream closed.
    await capture.click('#retry');
    await capture.waitForFunction(() =>
      document.querySelector('#capture-status')?.textContent?.startsWith('Stopped ·'),
    );
    const resent = stack.proxy.windows.slice(from + 4);
    expect(resent[0]).toMatchObject({
      requestId: failed[0]!.requestId,
      sha256: failed[0]!.sha256,
      status: 200,
    });
    expect(resent.at(-1)!.query.final).toBe('1');
    expect(stack.proxy.deletes).toEqual([failed[0]!.streamId]);
    expect(await capture.isHidden('#failure')).toBe(true);

    // Discard: a new session fails the same way; its audio is dropped and its stream closed.
    from = stack.proxy.windows.length;
    stack.proxy.failNext(4);
    await capture.click('#start');
    await capture.waitForSelector('#failure:not([hidden])', { timeout: 30_000 });
    await capture.click('#discard');
    await capture.waitForFunction(() =>
      document.querySelector('#capture-status')?.textContent?.startsWith('Stopped ·'),
    );
    const discarded = stack.proxy.windows.slice(from);
    expect(discarded).toHaveLength(4);
    expect(discarded[0]!.streamId).not.toBe(failed[0]!.streamId);
    expect(stack.proxy.deletes).toEqual([failed[0]!.streamId, discarded[0]!.streamId]);
  });

  test('6. the links hub builds links from /relay-config, each carrying only its own token', async () => {
    const hub = await context.newPage();
    errors.links = watchErrors(hub);
    await hub.goto(stack.uiUrl);
    expect(await hub.title()).toBe('Links · Live captions');
    expect(await hub.inputValue('#capture-url')).toBe(stack.captureUrl);
    await hub.fill('#api-key', stack.apiKey);
    await hub.click('#fetch');
    await hub.waitForFunction(
      () => document.querySelector('#fetch-status')?.textContent === 'Filled in from the capture host.',
    );
    await hub.waitForFunction(
      () => document.querySelector('#links-status')?.textContent === 'All three links are ready.',
    );
    const links = {
      capture: await hub.inputValue('#capture-link'),
      editor: await hub.inputValue('#editor-link'),
      overlay: await hub.inputValue('#overlay-link'),
    };
    const { tokens } = stack;
    const carried = (link: string) =>
      Object.entries(tokens)
        .filter(([, value]) => link.includes(value))
        .map(([name]) => name);
    expect(carried(links.capture)).toEqual(['sourceWrite']);
    expect(carried(links.editor)).toEqual(['sourceRead', 'outputWrite']);
    expect(carried(links.overlay)).toEqual(['outputRead']);
    for (const link of Object.values(links)) {
      expect(link).not.toContain(stack.apiKey);
      const url = new URL(link);
      expect(`${url.origin}${url.pathname}${url.search}`).not.toMatch(tokenKeys);
    }
    expect(links.capture.startsWith(`${stack.captureUrl}#`)).toBe(true);
    expect(links.editor.startsWith(`${stack.uiUrl}editor.html#`)).toBe(true);
    expect(links.overlay.startsWith(`${stack.uiUrl}overlay.html?maxlines=3&showtime=5000#`)).toBe(true);
    await screenshot(hub, 'links');

    // The overlay link works as it is.
    const fromLink = await context.newPage();
    await fromLink.goto(links.overlay);
    await fromLink.waitForFunction(() => document.body.dataset.relay === 'joined');
    await fromLink.close();

    const home = await context.newPage();
    errors.home = watchErrors(home);
    await home.goto(`${stack.uiUrl}index.html`);
    expect(await home.textContent('#relay-address')).toBe(stack.relayUrl);
    await screenshot(home, 'index');
    await home.close();
    await hub.close();
  });

  test('7. the realtime transport: partial text while speaking, finals through the relay and the editor to the overlay', async () => {
    // A fresh editor (timed, 3 s) and overlay join now: they see only what the realtime run sends.
    await editor.close();
    editor = await context.newPage();
    errors.timedEditor = watchErrors(editor);
    await editor.goto(editorAddress({ mode: 'timed', delay: '3' }));
    await editor.waitForFunction(() =>
      document.querySelector('#output-status')?.textContent?.startsWith('Output: joined'),
    );
    const shown = await context.newPage();
    errors.realtimeOverlay = watchErrors(shown);
    await shown.goto(
      `${stack.uiUrl}overlay.html?showtime=0&maxlines=10#${fragment({ room: stack.rooms.output, relayReadToken: stack.tokens.outputRead })}`,
    );
    await shown.waitForFunction(() => document.body.dataset.relay === 'joined');

    // The transport comes from the address; settings it has no use for are disabled.
    await capture.goto(`${stack.captureUrl}?transport=realtime`);
    expect(await capture.inputValue('#transport')).toBe('realtime');
    await capture.waitForSelector('#start:not([disabled])');
    expect(await capture.isDisabled('#interval')).toBe(true);
    expect(await capture.isDisabled('input[name="mode"][value="both"]')).toBe(true);
    expect(await capture.isEnabled('input[name="mode"][value="translate"]')).toBe(true);
    await capture.waitForFunction(() =>
      document.querySelector('#relay-status')?.textContent?.startsWith('Relay: joined'),
    );
    // Every partial text the page shows, as it shows it.
    await capture.evaluate(() => {
      const partial = document.querySelector('#partial')!;
      const seen: string[] = [];
      (window as unknown as { partials: string[] }).partials = seen;
      new MutationObserver(() => {
        if (partial.textContent) seen.push(partial.textContent);
      }).observe(partial, { childList: true, characterData: true, subtree: true });
    });
    const windowsBefore = stack.proxy.windows.length;
    const sourceBefore = sourceCaptions.length;
    await capture.click('#start');

    const upgrade = await until('the realtime WebSocket', () => stack.proxy.upgrades[0]);
    expect(upgrade.path).toBe('/v1/realtime?intent=transcription');
    // Browsers cannot set headers: the key travels as a subprotocol, as with OpenAI.
    expect(upgrade.protocols).toEqual(['realtime', `openai-insecure-api-key.${stack.apiKey}`]);
    // One utterance per loop of the clip, cut by the server's VAD at the clip's pause.
    await until(
      'two realtime finals in the source room',
      () => sourceCaptions.length >= sourceBefore + 2,
      45_000,
    );
    const finals = sourceCaptions.slice(sourceBefore);
    for (const caption of finals) expect(caption).toMatchObject({ final: 'test', ln: 'en' });
    expect(new Set(finals.map((caption) => caption.id)).size).toBe(finals.length);
    const partials = await capture.evaluate(() => (window as unknown as { partials: string[] }).partials);
    expect(partials).toContain('test');
    await capture.waitForSelector('#captions li');
    // The timed editor sends them on; the overlay shows them.
    await shown.waitForFunction(
      () =>
        Array.from(document.querySelectorAll('.caption-line')).some((line) => line.textContent === 'test'),
      null,
      { timeout: 30_000 },
    );
    expect(outputCaptions.some((caption) => caption.final === 'test')).toBe(true);
    // Nothing went over the rolling transport.
    expect(stack.proxy.windows.length).toBe(windowsBefore);
    await screenshot(capture, 'capture-realtime');
    await screenshot(shown, 'overlay-realtime');

    // Stop: the open utterance is committed, its transcript awaited, the socket closed.
    await capture.click('#stop');
    await capture.waitForFunction(
      () => document.querySelector('#capture-status')?.textContent?.startsWith('Stopped ·'),
      null,
      { timeout: 30_000 },
    );
    expect(await capture.isHidden('#partial')).toBe(true);
    expect(stack.proxy.upgrades).toHaveLength(1);
    await shown.close();
  }, 120_000);

  test('8. the realtime connection drops: the page reconnects and goes on; refused three times: Retry', async () => {
    const from = stack.proxy.upgrades.length;
    let published = sourceCaptions.length;
    await capture.click('#start');
    await until('a realtime final', () => sourceCaptions.length > published, 45_000);

    // A network failure: the page opens a new connection (sending the open utterance again).
    stack.proxy.dropTunnels();
    await until('the reconnect', () => stack.proxy.upgrades.length === from + 2);
    published = sourceCaptions.length;
    await until('a final over the new connection', () => sourceCaptions.length > published, 45_000);
    expect(await capture.isHidden('#failure')).toBe(true);
    expect(await capture.textContent('#capture-status')).toMatch(/^Listening/);

    // The gateway cannot be reached: three reconnects (0.5, 1, 2 s), then Retry / Discard.
    stack.proxy.refuseUpgrades = true;
    stack.proxy.dropTunnels();
    await capture.waitForSelector('#failure:not([hidden])', { timeout: 30_000 });
    expect(stack.proxy.upgrades.slice(from + 2).map((upgrade) => upgrade.refused)).toEqual([
      true,
      true,
      true,
    ]);
    expect(await capture.textContent('#failure-text')).toContain('could not be opened');
    expect(await capture.textContent('#capture-status')).toContain('audio kept');
    await screenshot(capture, 'capture-realtime-failed');

    // Retry: one more connection sends the kept audio, commits it and closes when done.
    stack.proxy.refuseUpgrades = false;
    await capture.click('#retry');
    await capture.waitForFunction(
      () => document.querySelector('#capture-status')?.textContent?.startsWith('Stopped ·'),
      null,
      { timeout: 30_000 },
    );
    expect(stack.proxy.upgrades.slice(from + 5).map((upgrade) => upgrade.refused)).toEqual([false]);
    expect(await capture.isHidden('#failure')).toBe(true);
  }, 120_000);

  test('9. no page broke its CSP or threw', () => {
    const expected = [
      // The capture page's first /health before the access token was typed.
      /status of 401 \(Unauthorized\)/,
      // Injected 503s, and reconnects while the relay restarted.
      /status of 503/,
      /WebSocket connection to .* failed/,
    ];
    const unexpected = Object.entries(errors).flatMap(([page, list]) =>
      list
        .filter((text) => !expected.some((pattern) => pattern.test(text)))
        .map((text) => `${page}: ${text}`),
    );
    expect(unexpected).toEqual([]);
  });
});
