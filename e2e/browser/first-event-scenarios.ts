/**
 * Issue 43 ("A volunteer's first event") on the operator loop's session (operator-loop.test.ts):
 * the capture page's token typed and left with Tab unlocks Start, as Enter and "Fill in" do; two
 * capture pages publishing into one room both warn, and the warning goes once one is left.
 */
import { expect } from '@jest/globals';
import type { Page } from 'playwright-core';
import { axeViolations, serious } from './axe-audit.js';
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

/** A capture page of the session's source room, its token typed and left with Tab. */
async function openCapture({ session }: OperatorLoop, name: string): Promise<Page> {
  const { stack, context, errors } = session;
  const page = await context.newPage();
  errors[name] = watchErrors(page);
  await page.goto(stack.captureUrl);
  await page.fill('#api-key', stack.apiKey);
  await page.press('#api-key', 'Tab');
  await page.waitForFunction(() =>
    document.querySelector('#relay-status')?.textContent?.startsWith('Relay: joined'),
  );
  return page;
}

const shared = (page: Page) =>
  page.$eval('#room-shared', (node) => ((node as HTMLElement).hidden ? '' : (node.textContent ?? '')));

export async function twoPublishers(loop: OperatorLoop): Promise<void> {
  // The loop's own test publisher leaves the source room (its last use): the page is alone there.
  loop.source.close();
  const first = await openCapture(loop, 'capturePublisherOne');
  await first.waitForFunction(() => document.body.dataset.roomWriters === '1');
  expect(await shared(first)).toBe('');
  await first.waitForSelector('#start:not([disabled])');
  await first.click('#start');
  // A second capture page on the same room (a volunteer's second tab): told when it joins ...
  const second = await openCapture(loop, 'capturePublisherTwo');
  await second.waitForFunction(() => document.body.dataset.roomWriters === '2');
  expect(await shared(second)).toMatch(/^Another publisher is writing into the room "[^"]+" too/);
  // ... and the first at its next caption, while their captions would interleave.
  await first.waitForFunction(() => document.body.dataset.roomWriters === '2', null, { timeout: 60_000 });
  expect(await shared(first)).toMatch(/their captions and these interleave/);
  expect((await axeViolations(first)).filter(serious)).toEqual([]);
  // The second one closed: the first's next caption says it is alone again, and the warning goes.
  await second.close();
  await first.waitForFunction(() => document.body.dataset.roomWriters === '1', null, { timeout: 60_000 });
  expect(await shared(first)).toBe('');
  await first.click('#stop');
  await first.close();
}
