/**
 * The browser suite's realtime scenarios: the capture page over the WebSocket transport (server
 * VAD) to the overlay, then the same connection dropped and refused (outages:
 * realtime-outage-scenarios.ts). They continue the session of
 * captions.test.ts: its capture page, with the access token already typed in.
 */
import { expect } from '@jest/globals';
import { screenshot, watchErrors } from './browser.js';
import { editorAddress, overlayAddress, type Session, until } from './session.js';

/** Partial text while speaking, finals through the relay and a timed editor to the overlay. */
export async function realtimeToOverlay(session: Session): Promise<void> {
  const { stack, context, sourceCaptions, outputCaptions, errors } = session;
  const capture = session.capture!;
  // A fresh editor (timed, 3 s) and overlay join now: they see only what the realtime run sends.
  await session.editor?.close();
  const editor = await context.newPage();
  session.editor = editor;
  errors.timedEditor = watchErrors(editor);
  await editor.goto(editorAddress(session, { mode: 'timed', delay: '3' }));
  await editor.waitForFunction(() =>
    document.querySelector('#output-status')?.textContent?.startsWith('Output: joined'),
  );
  const shown = await context.newPage();
  errors.realtimeOverlay = watchErrors(shown);
  await shown.goto(overlayAddress(session, 'showtime=0&maxlines=10'));
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

  const upgrade = await until(session, 'the realtime WebSocket', () => stack.proxy.upgrades[0]);
  expect(upgrade.path).toBe('/v1/realtime?intent=transcription');
  // Browsers cannot set headers: the key travels as a subprotocol, as with OpenAI.
  expect(upgrade.protocols).toEqual(['realtime', `openai-insecure-api-key.${stack.apiKey}`]);
  // One utterance per loop of the clip, cut by the server's VAD at the clip's pause.
  await until(
    session,
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
    () => Array.from(document.querySelectorAll('.caption-line')).some((line) => line.textContent === 'test'),
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
}

/** The connection drops, then upgrades are refused: the page reconnects and goes on by itself. */
export async function realtimeReconnects(session: Session): Promise<void> {
  const { stack, sourceCaptions } = session;
  const capture = session.capture!;
  const from = stack.proxy.upgrades.length;
  let published = sourceCaptions.length;
  await capture.click('#start');
  await until(session, 'a realtime final', () => sourceCaptions.length > published, 45_000);

  // A network failure: the page opens a new connection (sending the open utterance again).
  stack.proxy.dropTunnels();
  await until(session, 'the reconnect', () => stack.proxy.upgrades.length === from + 2);
  published = sourceCaptions.length;
  await until(session, 'a final over the new connection', () => sourceCaptions.length > published, 45_000);
  expect(await capture.isHidden('#failure')).toBe(true);
  expect(await capture.textContent('#capture-status')).toMatch(/^Listening/);

  // The gateway refuses every upgrade for a while: the page keeps capturing and reconnecting with
  // backoff, past the three tries of old, and resumes by itself once let in again (issue 26).
  stack.proxy.refuseUpgrades = true;
  stack.proxy.dropTunnels();
  const refused = () => stack.proxy.upgrades.slice(from + 2).filter((upgrade) => upgrade.refused);
  await until(session, 'four refused reconnects', () => refused().length >= 4, 30_000);
  expect(await capture.isHidden('#failure')).toBe(true);
  expect(await capture.textContent('#capture-status')).toMatch(
    /^Listening · Speech service not answering \(.*could not be opened.*\); retrying in .* of audio kept \(up to 120\.0 s\)/,
  );
  await screenshot(capture, 'capture-realtime-retrying');
  stack.proxy.refuseUpgrades = false;
  published = sourceCaptions.length;
  await until(session, 'a final once let in, with no click', () => sourceCaptions.length > published, 45_000);
  expect(await capture.isHidden('#failure')).toBe(true);
  expect(stack.proxy.upgrades.at(-1)!.refused).toBe(false);

  // Stop: the rest is sent and committed, the socket closed.
  await capture.click('#stop');
  await capture.waitForFunction(
    () => document.querySelector('#capture-status')?.textContent?.startsWith('Stopped ·'),
    null,
    { timeout: 30_000 },
  );
}
