/**
 * Issue 43 ("A volunteer's first event") on the operator loop's session (operator-loop.test.ts):
 * the capture page's token typed and left with Tab unlocks Start, as Enter and "Fill in" do.
 */
import { expect } from '@jest/globals';
import { watchErrors } from './browser.js';
import type { OperatorLoop } from './operator-loop.js';

export async function captureTokenTab({ session }: OperatorLoop): Promise<void> {
  const { stack, context, errors } = session;
  const capture = await context.newPage();
  errors.captureTokenTab = watchErrors(capture);
  await capture.goto(stack.captureUrl);
  await capture.waitForFunction(() =>
    /access token/.test(document.querySelector('#service-status')?.textContent ?? ''),
  );
  expect(await capture.isDisabled('#start')).toBe(true);
  // A wrong token left with Tab is checked at once and pointed at.
  await capture.fill('#api-key', 'x'.repeat(43));
  await capture.press('#api-key', 'Tab');
  await capture.waitForFunction(
    () => document.querySelector('#api-key')?.getAttribute('aria-invalid') === 'true',
  );
  expect(await capture.isDisabled('#start')).toBe(true);
  // The right one, left with Tab: Start unlocks and the relay settings fill in, no Enter needed.
  await capture.fill('#api-key', stack.apiKey);
  await capture.press('#api-key', 'Tab');
  await capture.waitForSelector('#start:not([disabled])', { timeout: 10_000 });
  expect(await capture.getAttribute('#api-key', 'aria-invalid')).toBeNull();
  await capture.waitForFunction(
    () => (document.querySelector('#relay-token') as HTMLInputElement | null)?.value !== '',
  );
  await capture.close();
}
