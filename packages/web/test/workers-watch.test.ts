/**
 * When the board says the speech workers are the bottleneck of the whole conference (pure):
 * windows waiting, windows timed out, and the rooms' stream sources falling behind live together.
 */
import { describe, expect, test } from '@jest/globals';
import { isWorkersHealth, LATE_SECONDS, WorkersWatch } from '../src/browser/lib/workers-watch.js';
import { streamSource } from './helpers/stream-source.js';

describe('the speech workers', () => {
  const health = (pending: number, queue_timeouts = 0) => ({
    pending,
    running: 2,
    workers: 2,
    queue_timeouts,
  });

  test('windows waiting on two looks in a row: the bottleneck, and what to do', () => {
    const watch = new WorkersWatch();
    expect(watch.next(health(3))).toEqual({
      line: 'Speech workers: 2 of 2 decode slots busy, 3 windows waiting',
      bottleneck: false,
    });
    expect(watch.next(health(5))).toEqual({
      line: 'Speech workers are the bottleneck: 5 windows waiting for 2 decode slots; add workers (CAPTION_WORKERS) or move rooms',
      bottleneck: true,
    });
    expect(watch.next(health(0)).bottleneck).toBe(false);
  });

  test('queue timeouts rising is the bottleneck at once; a restart that resets them is not', () => {
    const watch = new WorkersWatch();
    watch.next(health(0, 4));
    expect(watch.next(health(0, 6))).toEqual({
      line: 'Speech workers are the bottleneck: 0 windows waiting for 2 decode slots (2 windows timed out waiting); add workers (CAPTION_WORKERS) or move rooms',
      bottleneck: true,
    });
    expect(watch.next(health(0, 0)).bottleneck).toBe(false);
  });

  test('no answer: unknown, and the next answer starts afresh', () => {
    const watch = new WorkersWatch();
    watch.next(health(2));
    expect(watch.next(undefined)).toEqual({
      line: 'Speech workers: unknown (the capture host does not answer)',
      bottleneck: false,
    });
    expect(watch.next(health(2)).bottleneck).toBe(false);
    expect(isWorkersHealth(health(1))).toBe(true);
    expect(isWorkersHealth({ ready: true })).toBe(false);
    expect(isWorkersHealth(null)).toBe(false);
  });
});

describe('the rooms falling behind together', () => {
  const health = { pending: 0, running: 2, workers: 2, queue_timeouts: 0 };
  /** Live sources `behind` seconds behind live, ids s0, s1, ... */
  const sources = (...behind: number[]) =>
    behind.map((behindSeconds, i) => streamSource({ id: `s${i}`, name: `Room ${i}`, behindSeconds }));

  test('half of the decoding sources late at once: the bottleneck, although nothing queues', () => {
    const watch = new WorkersWatch();
    expect(watch.next(health, sources(2, 3, 4, 3)).bottleneck).toBe(false);
    expect(watch.next(health, sources(6.5, 7.2, 4, 3))).toEqual({
      line: `Speech workers are the bottleneck: 2 of 4 stream sources more than ${LATE_SECONDS} s behind live together; add workers (CAPTION_WORKERS) or move rooms`,
      bottleneck: true,
    });
  });

  test('one late room is its own trouble, not the workers', () => {
    const watch = new WorkersWatch();
    expect(watch.next(health, sources(12, 3, 3, 3)).bottleneck).toBe(false);
    // Two late of five: not half.
    expect(watch.next(health, sources(12, 7, 3, 3, 3)).bottleneck).toBe(false);
    // A single source, however late, is never "together".
    expect(new WorkersWatch().next(health, sources(12)).bottleneck).toBe(false);
  });

  test("a skip to the live edge does not hide it: a source's worst of the last three looks counts", () => {
    const watch = new WorkersWatch();
    watch.next(health, sources(7, 7, 3));
    // Room 0 skipped (1 s behind now), room 1 still late: both count for two more looks.
    expect(watch.next(health, sources(1, 7.5, 3)).bottleneck).toBe(true);
    expect(watch.next(health, sources(1.5, 2, 3)).bottleneck).toBe(true);
    expect(watch.next(health, sources(2, 2.5, 3)).bottleneck).toBe(false);
  });

  test('stopped, starting and failed sources do not count; neither does a gone one', () => {
    const watch = new WorkersWatch();
    const mixed = [
      ...sources(7, 7),
      streamSource({ id: 'x', state: 'failed', behindSeconds: 0 }),
      streamSource({ id: 'y', running: false, state: 'stopped', behindSeconds: 0 }),
      streamSource({ id: 'z', state: 'connecting', behindSeconds: 0 }),
    ];
    expect(watch.next(health, mixed).line).toContain('2 of 2 stream sources');
    // The late ones removed: their history goes with them.
    expect(watch.next(health, sources()).bottleneck).toBe(false);
  });

  test('said with the queue signs, and even when the gateway does not answer', () => {
    const watch = new WorkersWatch();
    watch.next({ ...health, pending: 1 }, sources(7, 7));
    expect(watch.next({ ...health, pending: 3 }, sources(7, 7)).line).toBe(
      `Speech workers are the bottleneck: 3 windows waiting for 2 decode slots; 2 of 2 stream sources more than ${LATE_SECONDS} s behind live together; add workers (CAPTION_WORKERS) or move rooms`,
    );
    expect(new WorkersWatch().next(undefined, sources(7, 7)).bottleneck).toBe(true);
    expect(new WorkersWatch().next(undefined, undefined).bottleneck).toBe(false);
  });
});
