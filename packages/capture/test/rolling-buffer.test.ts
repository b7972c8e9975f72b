import { describe, expect, test } from '@jest/globals';
import { RollingBuffer, rms } from '../src/rolling-buffer.js';

const RATE = 16_000;
const FRAME = 800; // 50 ms, as the worklet posts
const LOUD = 0.1;

/** A frame of constant amplitude: RMS equals `level`. */
function frame(level: number, length = FRAME): Float32Array {
  return new Float32Array(length).fill(level);
}

/** Pushes `seconds` of audio whose samples count up (so positions can be checked). */
function pushCounting(buffer: RollingBuffer, seconds: number, start: { n: number }, level = LOUD): void {
  for (let i = 0; i < (seconds * RATE) / FRAME; i++) {
    const f = new Float32Array(FRAME);
    for (let j = 0; j < FRAME; j++) f[j] = level + (start.n++ % 1000) * 1e-6;
    buffer.push(f);
  }
}

function pushFor(buffer: RollingBuffer, seconds: number, level: number): void {
  for (let i = 0; i < (seconds * RATE) / FRAME; i++) buffer.push(frame(level));
}

const make = (intervalSeconds = 3) => new RollingBuffer({ threshold: 0.002, intervalSeconds });

describe('rolling buffer', () => {
  test('rms of a constant frame is its amplitude', () => {
    expect(rms(frame(0.25))).toBeCloseTo(0.25, 6);
    expect(rms(new Float32Array(0))).toBe(0);
  });

  test('before speech only the last 0.5 s is kept and nothing is sent', () => {
    const buffer = make();
    pushFor(buffer, 5, 0.0005);
    expect(buffer.bufferedSeconds).toBeCloseTo(0.5, 3);
    expect(buffer.next()).toBeUndefined();
    expect(buffer.next(true)).toBeUndefined();
  });

  test('an unfinished window leaves when the new audio reaches the interval', () => {
    const buffer = make(3);
    pushFor(buffer, 0.5, 0); // lead-in
    pushFor(buffer, 2.45, LOUD);
    expect(buffer.next()).toBeUndefined();
    pushFor(buffer, 0.05, LOUD);
    const window = buffer.next();
    expect(window).toMatchObject({ final: false, contextSeconds: 0, reason: 'interval' });
    expect(window!.samples.length).toBe(3 * RATE);
    // One window at a time.
    pushFor(buffer, 4, LOUD);
    expect(buffer.next()).toBeUndefined();
  });

  test('after an answer, 0.5 s before committed_seconds becomes the context and the rest stays new', () => {
    const buffer = make(3);
    const counter = { n: 0 };
    pushCounting(buffer, 3, counter);
    const first = buffer.next()!;
    pushCounting(buffer, 1, counter); // arrives while the window is in flight
    buffer.commit(2.0);
    expect(buffer.bufferedSeconds).toBeCloseTo(4 - 1.5, 6);
    pushCounting(buffer, 1.5, counter);
    const second = buffer.next()!;
    expect(second.contextSeconds).toBe(0.5);
    // The second window starts 0.5 s before the committed point of the first, with no gap.
    expect(second.samples.subarray(0, 1.5 * RATE)).toEqual(first.samples.subarray(1.5 * RATE, 3 * RATE));
    expect(second.samples.length).toBe(4 * RATE);
  });

  test('a pause after speech sends the whole buffer as final', () => {
    const buffer = make(9);
    pushFor(buffer, 1, LOUD);
    pushFor(buffer, 0.55, 0.0001);
    expect(buffer.next()).toBeUndefined();
    pushFor(buffer, 0.05, 0.0001);
    const window = buffer.next()!;
    expect(window).toMatchObject({ final: true, reason: 'pause' });
    expect(window.samples.length).toBe(1.6 * RATE);
    buffer.commit(0); // a final commits the whole window whatever the answer says
    expect(buffer.bufferedSeconds).toBeCloseTo(0.5, 6);
  });

  test('too little speech before a pause waits', () => {
    const buffer = make(9);
    pushFor(buffer, 0.3, LOUD);
    pushFor(buffer, 0.7, 0.0001);
    expect(buffer.next()).toBeUndefined();
  });

  test('stop sends the rest as final; more than 12 s goes in unfinished pieces first', () => {
    const buffer = make(3);
    pushFor(buffer, 1, LOUD);
    expect(buffer.next(true)).toMatchObject({ final: true, reason: 'stop' });

    const long = make(3);
    long.configure({ intervalSeconds: 60 });
    pushFor(long, 14, LOUD);
    const first = long.next(true)!;
    expect(first).toMatchObject({ final: false, reason: 'limit' });
    expect(first.samples.length).toBe(12 * RATE);
    long.commit(11);
    const rest = long.next(true)!;
    expect(rest).toMatchObject({ final: true, contextSeconds: 0.5 });
    expect(rest.samples.length).toBe((14 - 10.5) * RATE);
  });

  test('overflow beyond 30 s is reported and nothing is dropped', () => {
    const buffer = make(3);
    pushFor(buffer, 3, LOUD);
    buffer.next(); // in flight, no answer
    pushFor(buffer, 28, LOUD);
    expect(buffer.overflowing).toBe(true);
    expect(buffer.bufferedSeconds).toBeCloseTo(31, 6);
  });

  test('commit without a window in flight is a programming error', () => {
    expect(() => make().commit(1)).toThrow('No window in flight');
  });

  test('a tiny final window is padded to the 0.01 s minimum', () => {
    const buffer = make(3);
    buffer.push(frame(LOUD, 100));
    expect(buffer.next(true)!.samples.length).toBe(160);
  });

  test('an RMS the caller already computed decides whether the frame is speech', () => {
    const buffer = make(3);
    for (let i = 0; i < (3 * RATE) / FRAME; i++) buffer.push(frame(0.0005), LOUD);
    expect(buffer.next()?.reason).toBe('interval');
  });
});

describe('a bounded buffer through a gateway outage', () => {
  test('beyond the bound the oldest audio is dropped, the window in flight abandoned, the newest kept', () => {
    const buffer = new RollingBuffer({ threshold: 0.002, intervalSeconds: 3, maxBufferedSeconds: 10 });
    const second = (value: number) => new Float32Array(16_000).fill(value);
    buffer.push(second(0.1));
    buffer.push(second(0.1));
    buffer.push(second(0.1));
    expect(buffer.next()?.reason).toBe('interval');
    expect(buffer.dropOverflow()).toBe(0);
    for (let n = 0; n < 9; n++) buffer.push(second(0.2 + n / 100));
    expect(buffer.bufferedSeconds).toBe(12);
    expect(buffer.dropOverflow()).toBe(2);
    expect(buffer.bufferedSeconds).toBe(10);
    expect(buffer.busy).toBe(false);
    // The next window starts with the oldest second kept (the 2nd of the first three) and no context.
    const next = buffer.next(true)!;
    expect(next.contextSeconds).toBe(0);
    expect(next.samples[0]).toBeCloseTo(0.1, 6);
    expect(next.samples[16_000]).toBeCloseTo(0.2, 6);
    expect(next.samples.at(-1)).toBeCloseTo(0.28, 6);
  });
});
