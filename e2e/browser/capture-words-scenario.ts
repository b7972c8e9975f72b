/**
 * The capture page's word rules end to end (issue 26.3), on the session of operator-loop.test.ts:
 * the synthetic model always says "test"; with the replacement `test => checked` what reaches the
 * source room says "checked". The rules are kept on the device and export as a file.
 */
import { readFileSync } from 'node:fs';
import { expect } from '@jest/globals';
import { watchErrors } from './browser.js';
import type { OperatorLoop } from './operator-loop.js';
import { until } from './session.js';

export async function wordRules({ session }: OperatorLoop): Promise<void> {
  const { stack, context, sourceCaptions, errors } = session;
  const capture = await context.newPage();
  errors.captureWords = watchErrors(capture);
  await capture.goto(stack.captureUrl);
  await capture.fill('#replacements', 'test => checked');
  await capture.dispatchEvent('#replacements', 'change');
  await capture.fill('#api-key', stack.apiKey);
  await capture.click('#load-relay');
  await capture.waitForFunction(() =>
    document.querySelector('#relay-status')?.textContent?.startsWith('Relay: joined'),
  );
  await capture.waitForSelector('#start:not([disabled])');
  const before = sourceCaptions.length;
  await capture.click('#start');
  const caption = await until(
    session,
    'a caption from the microphone',
    () =>
      sourceCaptions
        .slice(before)
        .find((c) => c.final !== undefined && c.id !== undefined && !String(c.id).startsWith('e2e-')),
    60_000,
  );
  expect(caption.final).toBe('checked');
  await capture.click('#stop');
  await capture.waitForFunction(() =>
    document.querySelector('#capture-status')?.textContent?.startsWith('Stopped ·'),
  );
  await capture.reload();
  expect(await capture.inputValue('#replacements')).toBe('test => checked');
  const [file] = await Promise.all([capture.waitForEvent('download'), capture.click('#export-words')]);
  expect(JSON.parse(readFileSync(await file.path(), 'utf8'))).toEqual({
    vocabulary: '',
    replacements: 'test => checked',
    maskProfanity: false,
  });
  await capture.close();
}
