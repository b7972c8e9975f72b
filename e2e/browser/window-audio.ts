/**
 * What the capture proxy recorded, checked for lost audio: the rolling transport sends each window
 * with the context before its predecessor's committed point, so consecutive windows of a stream
 * must overlap sample for sample.
 */
import { expect } from '@jest/globals';
import { SAMPLE_RATE } from '@live-captions/audio';
import type { RecordedWindow } from './capture-proxy.js';

export function answered(windows: RecordedWindow[]): RecordedWindow[] {
  return windows.filter((window) => window.status === 200);
}

/**
 * No audio lost between two answered windows of a stream: the later one starts with the 0.5 s of
 * context before the earlier one's committed point, followed by everything after it.
 */
function assertContiguous(earlier: RecordedWindow, later: RecordedWindow): void {
  const committed = Math.round(earlier.answer!.committed_seconds * SAMPLE_RATE);
  const context = Math.round(Number(later.query.context_seconds) * SAMPLE_RATE);
  expect(context).toBe(Math.round(0.5 * SAMPLE_RATE));
  const tail = earlier.samples.subarray(committed - context);
  expect(later.samples.length).toBeGreaterThanOrEqual(tail.length);
  // Index of the first sample that differs (-1: the later window continues the earlier exactly).
  expect(tail.findIndex((sample, index) => sample !== later.samples[index])).toBe(-1);
}

/**
 * Every answered window after an unfinished one continues it exactly; after a final one the next
 * either continues it too or starts afresh after silence (no context). Returns the pairs checked.
 */
export function assertNoAudioLost(windows: RecordedWindow[]): number {
  const done = answered(windows);
  let checked = 0;
  for (let i = 1; i < done.length; i++) {
    const [earlier, later] = [done[i - 1]!, done[i]!];
    if (earlier.streamId !== later.streamId) continue;
    if (earlier.query.final === '0' || Number(later.query.context_seconds) > 0) {
      assertContiguous(earlier, later);
      checked += 1;
    }
  }
  return checked;
}
