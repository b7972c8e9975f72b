/**
 * The pages end to end in chromium, on a stack started here: capture -> gateway -> source room ->
 * editor -> output room -> overlay, a relay restart, gateway failures, the links hub, and the
 * capture page over the realtime transport (WebSocket, server VAD) to the overlay.
 * The scenarios run in order on one session (session.ts), as an operator would.
 */
import { afterAll, afterEach, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { SAMPLE_RATE } from '@live-captions/audio';
import { screenshot, watchErrors } from './browser.js';
import { gatewayFails, relayRestarts } from './failure-scenarios.js';
import { realtimeOutage, realtimeUnavailable } from './realtime-outage-scenarios.js';
import { realtimeReconnects, realtimeToOverlay } from './realtime-scenarios.js';
import {
  closeSession,
  editorAddress,
  openSession,
  overlayAddress,
  printPages,
  type Session,
  until,
} from './session.js';
import { answered, assertNoAudioLost } from './window-audio.js';

jest.setTimeout(60_000);

let session: Session;

beforeAll(async () => {
  session = await openSession();
}, 120_000);

afterAll(() => closeSession(session));

afterEach(async () => {
  if (process.env.E2E_DEBUG) await printPages(session);
});

const tokenKeys = /Token=/;

describe('live captions in a browser', () => {
  test('1. the capture page streams a clip in rolling windows; captions appear and reach the source room', async () => {
    const { stack, context, sourceCaptions, errors } = session;
    const capture = await context.newPage();
    session.capture = capture;
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
    await until(session, 'a caption in the source room', () =>
      sourceCaptions.find((caption) => caption.final?.includes('test')),
    );
    await capture.waitForFunction(() =>
      /Relay: joined; queued 0/.test(document.querySelector('#relay-status')?.textContent ?? ''),
    );

    // Unfinished windows at the 3 s interval and final ones at the clip's pause, no audio lost.
    await until(session, 'an unfinished and a final window', () => {
      const done = answered(stack.proxy.windows);
      return (
        done.some((window) => window.query.final === '0') && done.some((window) => window.query.final === '1')
      );
    });
    await until(session, 'a window following an unfinished one', () => {
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
    const { context, outputCaptions, errors } = session;
    const overlay = await context.newPage();
    session.overlay = overlay;
    errors.overlay = watchErrors(overlay);
    await overlay.goto(overlayAddress(session, 'showtime=4000'));
    await overlay.waitForFunction(() => document.body.dataset.relay === 'joined');
    // The relay address came from /site-config.js; the token left the address bar.
    expect(overlay.url()).not.toMatch(tokenKeys);

    const editor = await context.newPage();
    session.editor = editor;
    errors.editor = watchErrors(editor);
    await editor.goto(editorAddress(session, { mode: 'manual' }));
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
    const published = await until(session, 'the edit in the output room', () =>
      outputCaptions.find((caption) => caption.final === 'Edited caption one'),
    );
    expect(published.ln).toBe('en');
    await editor.waitForSelector('#sent li');
    expect(await editor.textContent('#sent li')).toBe('Edited caption one');
    await screenshot(editor, 'editor');
  });

  test('3. the overlay shows the edited text, then clears after showtime', async () => {
    const overlay = session.overlay!;
    await overlay.waitForSelector('.caption-line');
    expect(await overlay.$$eval('.caption-line', (lines) => lines.map((line) => line.textContent))).toEqual([
      'Edited caption one',
    ]);
    await screenshot(overlay, 'overlay');
    await overlay.waitForFunction(() => document.querySelectorAll('.caption-line').length === 0, null, {
      timeout: 15_000,
    });
  });

  test('4. the relay restarts mid-run: the overlay resumes and shows nothing twice', () =>
    relayRestarts(session));

  test(
    '5. the gateway fails: 503s retried with the same id; stopped for 20 s mid-speech, capture carries on and resumes by itself; a refusal: Retry / Discard carry on',
    () => gatewayFails(session),
    150_000,
  );

  test('6. the links hub builds links from /relay-config, each carrying only its own token', async () => {
    const { stack, context, errors } = session;
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
      () => document.querySelector('#links-status')?.textContent === 'All four links are ready.',
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
    // The editor carries the output read token too, for its "Copy overlay link" (issue 26).
    expect(carried(links.editor)).toEqual(['sourceRead', 'outputRead', 'outputWrite']);
    expect(carried(links.overlay)).toEqual(['outputRead']);
    for (const link of Object.values(links)) {
      expect(link).not.toContain(stack.apiKey);
      const url = new URL(link);
      expect(`${url.origin}${url.pathname}${url.search}`).not.toMatch(tokenKeys);
    }
    expect(links.capture.startsWith(`${stack.captureUrl}#`)).toBe(true);
    expect(links.editor.startsWith(`${stack.uiUrl}editor.html#`)).toBe(true);
    expect(links.overlay.startsWith(`${stack.uiUrl}overlay.html?maxlines=3&showtime=12000#`)).toBe(true);
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

  test(
    '7. the realtime transport: partial text while speaking, finals through the relay and the editor to the overlay',
    () => realtimeToOverlay(session),
    120_000,
  );

  test(
    '8. the realtime connection drops, then is refused: the page reconnects and goes on by itself',
    () => realtimeReconnects(session),
    120_000,
  );

  test(
    '9. realtime: the gateway stopped for 20 s mid-speech; back with no click, every utterance captioned once',
    () => realtimeOutage(session),
    240_000,
  );

  test(
    '10. a gateway without its VAD model: Realtime is not offered, a realtime link uses rolling windows and says why',
    () => realtimeUnavailable(session),
    120_000,
  );

  test('11. no page broke its CSP or threw', () => {
    const expected = [
      // The capture page's first /health before the access token was typed.
      /status of 401 \(Unauthorized\)/,
      // Injected 503s and 413s, the gateway stopped (502 from the proxy), reconnects while the relay restarted.
      /status of 503/,
      /status of 502/,
      /status of 413/,
      /WebSocket connection to .* failed/,
    ];
    const unexpected = Object.entries(session.errors).flatMap(([page, list]) =>
      list
        .filter((text) => !expected.some((pattern) => pattern.test(text)))
        .map((text) => `${page}: ${text}`),
    );
    expect(unexpected).toEqual([]);
  });
});
