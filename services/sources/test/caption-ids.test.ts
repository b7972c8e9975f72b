import { expect, test } from '@jest/globals';
import { CaptionIds } from '../src/runner/caption-ids.js';

const SOURCE = '5dc93f7e-0000-4000-8000-000000000000';

test('ids are <source id first 8>-<run>-<n>, n from 1 in call order even before the run number comes', async () => {
  let give: (run: number) => void = () => {};
  const ids = new CaptionIds(SOURCE, () => new Promise((resolve) => (give = resolve)));
  const taken = [ids.next(), ids.next()];
  give(7);
  expect(await Promise.all([...taken, ids.next()])).toEqual(['5dc93f7e-7-1', '5dc93f7e-7-2', '5dc93f7e-7-3']);
});

test('without a run number (row deleted, database away) a random run stands in, never a counted one', async () => {
  const gone = new CaptionIds(SOURCE, async () => 0);
  const away = new CaptionIds(SOURCE, async () => {
    throw new Error('connection refused');
  });
  const [a, b] = [await gone.next(), await away.next()];
  for (const id of [a, b]) expect(id).toMatch(/^5dc93f7e-x[0-9a-f]{12}-1$/);
  expect(a).not.toBe(b);
});
