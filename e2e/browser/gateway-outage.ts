/**
 * The browser suite's gateway outage, whichever the capture transport (issue 26): the gateway is
 * stopped for 20 s mid-speech while the capture page streams, and started again. The page must
 * show it (the header "unreachable", the capture line retrying with the audio it keeps and its
 * bound), never fail, and see the gateway back by itself.
 */
import { expect } from '@jest/globals';
import { screenshot } from './browser.js';
import type { Session } from './session.js';

export const OUTAGE_MS = 20_000;

/** Stops the gateway for {@link OUTAGE_MS}, checking the page meanwhile; resolves once it is "Ready" again. */
export async function gatewayOutage(session: Session, shot: string): Promise<void> {
  const { stack } = session;
  const capture = session.capture!;
  const stoppedAt = Date.now();
  await stack.stopGateway();
  await capture.waitForFunction(
    () => /unreachable/.test(document.querySelector('#service-status')?.textContent ?? ''),
    null,
    { timeout: 15_000 },
  );
  await capture.waitForFunction(
    () =>
      /retrying in .* of audio kept \(up to 120\.0 s\)/.test(
        document.querySelector('#capture-status')?.textContent ?? '',
      ),
    null,
    { timeout: 15_000 },
  );
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt))));
  expect(await capture.isHidden('#failure')).toBe(true);
  expect(await capture.isEnabled('#stop')).toBe(true);
  await screenshot(capture, shot);
  await stack.startGateway();
  // Back by itself: the header first, with no click.
  await capture.waitForFunction(
    () => (document.querySelector('#service-status')?.textContent ?? '').startsWith('Ready'),
    null,
    { timeout: 20_000 },
  );
}
