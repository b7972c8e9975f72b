/**
 * The browser suite's failure scenarios on the rolling transport: the relay restarts under the
 * pages, and the gateway answers 503 until the capture page gives up. They continue the session of
 * captions.test.ts: its capture page streaming, its editor joined to both rooms.
 */
import { expect } from '@jest/globals';
import { SAMPLE_RATE } from '@live-captions/audio';
import { screenshot, watchErrors } from './browser.js';
import { gatewayOutage } from './gateway-outage.js';
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

/**
 * The gateway fails and the capture carries on (issue 26): 503s are retried with the same request
 * id and bytes; a gateway stopped for 20 s mid-speech is waited for, with no click, and every
 * window spoken before, during and after the outage is answered once with no audio lost; an
 * answer retrying cannot change stops sending, not capturing: Retry and Discard carry on.
 */
export async function gatewayFails(session: Session): Promise<void> {
  const { stack, sourceCaptions } = session;
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

  // The gateway stops for 20 s mid-speech.
  from = stack.proxy.windows.length;
  const captionsBefore = sourceCaptions.length;
  await gatewayOutage(session, 'capture-outage');
  await until(
    session,
    'the backlog answered and capture listening again',
    async () => {
      const status = (await capture.textContent('#capture-status')) ?? '';
      const done = answered(stack.proxy.windows.slice(from));
      const spoken = done.reduce(
        (sum, window) => sum + window.samples.length / SAMPLE_RATE - Number(window.query.context_seconds),
        0,
      );
      return status.startsWith('Listening') && !/retrying/.test(status) && spoken >= 20;
    },
    60_000,
  );
  const outage = stack.proxy.windows.slice(from);
  const ok = answered(outage);
  // The window in flight when the gateway stopped was retried with its id until answered, once.
  const refused = outage.find((window) => window.status !== 200)!;
  expect(refused.status).toBe(502);
  expect(ok.filter((window) => window.requestId === refused.requestId)).toHaveLength(1);
  expect(new Set(ok.map((window) => window.requestId)).size).toBe(ok.length);
  expect(new Set(ok.map((window) => window.streamId))).toEqual(new Set([after.streamId]));
  expect(assertNoAudioLost(stack.proxy.windows)).toBeGreaterThan(0);
  // Captioned once: one caption per answered window with text, no id twice.
  await until(
    session,
    'the backlog’s captions in the source room',
    () => sourceCaptions.length - captionsBefore >= ok.length,
  );
  const ids = sourceCaptions.slice(captionsBefore).map((caption) => `${caption.id}/${caption.label ?? ''}`);
  expect(new Set(ids).size).toBe(ids.length);

  // An answer retrying cannot change: sending stops, capture does not; Retry carries on.
  from = stack.proxy.windows.length;
  stack.proxy.failNext(1, 413);
  await capture.waitForSelector('#failure:not([hidden])', { timeout: 30_000 });
  expect(await capture.textContent('#capture-status')).toContain('audio kept');
  expect(await capture.isEnabled('#stop')).toBe(true);
  await screenshot(capture, 'capture-failed');
  await capture.click('#retry');
  const resent = await until(
    session,
    'the refused window resent',
    () => answered(stack.proxy.windows.slice(from))[0],
  );
  expect(resent).toMatchObject({
    requestId: stack.proxy.windows[from]!.requestId,
    sha256: stack.proxy.windows[from]!.sha256,
  });
  expect(await capture.isHidden('#failure')).toBe(true);
  await until(
    session,
    'a window after the resent one',
    () => answered(stack.proxy.windows.slice(from)).length >= 2,
  );
  expect((await capture.textContent('#capture-status'))?.startsWith('Listening')).toBe(true);

  // Discard forgets the refused audio and carries on; Stop then closes the stream.
  from = stack.proxy.windows.length;
  stack.proxy.failNext(1, 413);
  await capture.waitForSelector('#failure:not([hidden])', { timeout: 30_000 });
  await capture.click('#discard');
  await until(
    session,
    'a window after the discarded one',
    () => answered(stack.proxy.windows.slice(from))[0],
  );
  expect(answered(stack.proxy.windows.slice(from))[0]!.requestId).not.toBe(
    stack.proxy.windows[from]!.requestId,
  );
  await capture.click('#stop');
  await capture.waitForFunction(() =>
    document.querySelector('#capture-status')?.textContent?.startsWith('Stopped ·'),
  );
  expect(stack.proxy.deletes).toEqual([after.streamId]);
}
