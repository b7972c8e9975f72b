/**
 * The browser suite's failure scenarios on the rolling transport: the relay restarts under the
 * pages, and the gateway answers 503 until the capture page gives up. They continue the session of
 * captions.test.ts: its capture page streaming, its editor joined to both rooms.
 */
import { expect } from '@jest/globals';
import { screenshot, watchErrors } from './browser.js';
import { overlayAddress, type Session, until } from './session.js';
import { answered, assertNoAudioLost } from './window-audio.js';

/** The relay restarts mid-run: the overlay resumes and shows nothing twice. */
export async function relayRestarts(session: Session): Promise<void> {
  const { stack, context, sourceCaptions, errors } = session;
  const capture = session.capture!;
  const editor = session.editor!;
  const keeper = await context.newPage();
  errors.keeper = watchErrors(keeper);
  await keeper.goto(overlayAddress(session, 'showtime=0&maxlines=10', true));
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
  await until(session, 'a caption published after the restart', () => sourceCaptions.length > before);
  expect(await lines()).toEqual(['Before the restart', 'After the restart']);
  await keeper.close();
}

/** The gateway answers 503: the same request id and no audio lost; after the last retry, Retry or Discard. */
export async function gatewayFails(session: Session): Promise<void> {
  const { stack } = session;
  const capture = session.capture!;
  // Three 503s: the fourth attempt of the same window succeeds.
  let from = stack.proxy.windows.length;
  stack.proxy.failNext(3);
  const retried = await until(session, 'a window answered after three 503s', () => {
    const attempts = stack.proxy.windows.slice(from);
    const ok = attempts.find((window) => window.status === 200);
    return ok && attempts.filter((window) => window.requestId === ok.requestId);
  });
  expect(retried.map((window) => window.status)).toEqual([503, 503, 503, 200]);
  expect(new Set(retried.map((window) => window.sha256)).size).toBe(1);
  const after = await until(session, 'the next window', () =>
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
}
