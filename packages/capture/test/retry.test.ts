import { describe, expect, test } from '@jest/globals';
import { backoffMs, RequestFailedError, retryAfterMs, withRetries } from '../src/retry.js';

function answers(...steps: (number | Error)[]) {
  const calls: number[] = [];
  const attempt = async () => {
    const step = steps[Math.min(calls.length, steps.length - 1)]!;
    calls.push(calls.length);
    if (step instanceof Error) throw step;
    const headers: Record<string, string> = step === 429 ? { 'Retry-After': '3' } : {};
    return new Response(JSON.stringify(step < 300 ? { ok: true } : { detail: `failed ${step}` }), {
      status: step,
      headers,
    });
  };
  return { attempt, calls };
}

describe('withRetries', () => {
  test('retries 503 three times with 0.5, 1 and 2 s, then succeeds', async () => {
    const { attempt, calls } = answers(503, 503, 503, 200);
    const slept: number[] = [];
    const response = await withRetries(attempt, { sleep: async (ms) => void slept.push(ms) });
    expect(response.status).toBe(200);
    expect(calls).toHaveLength(4);
    expect(slept).toEqual([500, 1000, 2000]);
  });

  test('gives up after three retries, retryable, with the detail', async () => {
    const { attempt, calls } = answers(503);
    const error = await withRetries(attempt, { sleep: async () => {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestFailedError);
    expect(error).toMatchObject({ status: 503, attempts: 4, retryable: true, message: 'failed 503' });
    expect(calls).toHaveLength(4);
  });

  test('network errors, 408, 429, 502 and 504 are retried; Retry-After is honoured', async () => {
    const { attempt } = answers(new TypeError('Failed to fetch'), 429, 408, 200);
    const slept: number[] = [];
    await withRetries(attempt, { sleep: async (ms) => void slept.push(ms) });
    expect(slept).toEqual([500, 3000, 2000]);
    for (const status of [502, 504]) {
      const { attempt: again, calls } = answers(status, 200);
      await withRetries(again, { sleep: async () => {} });
      expect(calls).toHaveLength(2);
    }
  });

  test('400, 409 and 500 are not retried', async () => {
    for (const [status, retryable] of [
      [400, false],
      [409, false],
      [500, true],
    ] as const) {
      const { attempt, calls } = answers(status);
      const error = await withRetries(attempt, { sleep: async () => {} }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status, attempts: 1, retryable });
      expect(calls).toHaveLength(1);
    }
  });

  test('Retry-After: seconds or a date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

describe('retrying until the gateway answers (forever)', () => {
  test('backoff doubles from 0.5 s to 10 s with +/- 20 % jitter; Retry-After wins when longer', () => {
    const low = () => 0;
    const high = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffMs(n, undefined, () => 0.5))).toEqual([
      500, 1000, 2000, 4000, 8000, 10_000, 10_000,
    ]);
    expect(backoffMs(1, undefined, low)).toBe(400);
    expect(backoffMs(1, undefined, high)).toBe(600);
    expect(backoffMs(6, undefined, high)).toBe(12_000);
    expect(backoffMs(1, 7_000, low)).toBe(7_000);
    expect(backoffMs(1, 3_600_000, low)).toBe(30_000);
  });

  test('a gateway down for many attempts is waited for; the answer comes through', async () => {
    const { attempt, calls } = answers(
      ...Array<number | Error>(12).fill(new TypeError('Failed to fetch')),
      503,
      200,
    );
    const slept: number[] = [];
    const response = await withRetries(attempt, {
      forever: true,
      random: () => 0.5,
      sleep: async (ms) => void slept.push(ms),
    });
    expect(response.status).toBe(200);
    expect(calls).toHaveLength(14);
    expect(slept.slice(0, 6)).toEqual([500, 1000, 2000, 4000, 8000, 10_000]);
    expect(Math.max(...slept)).toBe(10_000);
  });

  test('giveUp stops the retries with the last failure; a 4xx is never retried', async () => {
    let tries = 0;
    const { attempt } = answers(503);
    const error = await withRetries(attempt, {
      forever: true,
      giveUp: () => ++tries > 5,
      sleep: async () => {},
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503, attempts: 6, retryable: true });
    const refused = await withRetries(answers(413).attempt, { forever: true, sleep: async () => {} }).catch(
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({ status: 413, attempts: 1, retryable: false });
  });
});
