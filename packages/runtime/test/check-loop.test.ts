/**
 * The supervisors' check loop: a check at start and every interval, asked checks one at a time in
 * order, a throwing check does not end the loop, and after stop nothing runs.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from '@jest/globals';
import { CheckLoop } from '../src/index.js';

describe('CheckLoop', () => {
  test('checks at start and then every interval, never two at once', async () => {
    const spans: [number, number][] = [];
    const loop = new CheckLoop(async () => {
      const start = performance.now();
      await sleep(30);
      spans.push([start, performance.now()]);
    }, 40);
    loop.start();
    await sleep(250);
    await loop.stop();
    // The first at once, then about every 70 ms (a 30 ms check, a 40 ms wait): 4, fewer when slow.
    expect(spans.length).toBeGreaterThanOrEqual(2);
    expect(spans.length).toBeLessThanOrEqual(5);
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
  });

  test('runs what is asked one at a time, in order, and goes on after a check that throws', async () => {
    const events: string[] = [];
    let call = 0;
    const loop = new CheckLoop(async () => {
      const n = ++call;
      events.push(`start ${n}`);
      await sleep(10);
      events.push(`end ${n}`);
      if (n === 1) throw new Error('database away');
    }, 60_000);
    const done = await Promise.all([loop.run(), loop.run(), loop.run()]);
    expect(done).toEqual([undefined, undefined, undefined]);
    expect(events).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
    await loop.stop();
  });

  test('stop waits for the running check; nothing runs after it, asked or due', async () => {
    let checks = 0;
    let finished = false;
    const loop = new CheckLoop(async () => {
      checks += 1;
      await sleep(50);
      finished = true;
    }, 20);
    loop.start();
    await sleep(10);
    await loop.stop();
    expect(finished).toBe(true);
    await loop.run();
    await sleep(80);
    expect(checks).toBe(1);
  });
});
