import { describe, expect, test } from '@jest/globals';
import { CaptureSession, type CaptureSessionOptions, type SessionStatus } from '../src/capture-session.js';

const RATE = 16_000;

interface Call {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: Uint8Array;
}

/** A gateway double: answers from `plan` (status per call, then 200), records every request. */
function gateway(plan: number[] = []) {
  const calls: Call[] = [];
  const fetch = (async (input: URL | string, init?: RequestInit) => {
    const headers = (init?.headers ?? {}) as Record<string, string>;
    const url = new URL(String(input));
    const body = init?.body ? new Uint8Array(init.body as ArrayBuffer) : undefined;
    calls.push({
      method: init?.method ?? 'GET',
      url,
      headers: init?.headers as Record<string, string>,
      body,
    });
    if (init?.method === 'DELETE') return Response.json({ closed: 'x' });
    const status = plan.shift() ?? 200;
    if (status !== 200) return Response.json({ detail: 'Service restarting' }, { status });
    const seconds = (body?.length ?? 0) / 4 / RATE;
    const final = url.searchParams.get('final') === '1';
    return Response.json({
      text: ' test',
      transcript: ' test',
      translation: '',
      language: 'en',
      output_language: 'en',
      mode: 'transcribe',
      audio_seconds: seconds,
      committed_seconds: final
        ? seconds
        : Math.max(Number(url.searchParams.get('context_seconds')), seconds - 1),
      request_id: headers['X-Request-ID'],
      queue_seconds: 0,
      inference_seconds: 0.1,
    });
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

/** A session on the stand-in gateway: English transcription, 3 s windows, retries without waiting. */
function sessionOn(
  fetch: typeof globalThis.fetch,
  streamId: string,
  more: Partial<CaptureSessionOptions> = {},
) {
  return new CaptureSession({
    baseUrl: 'http://localhost:8765/',
    streamId,
    language: 'en',
    mode: 'transcribe',
    threshold: 0.002,
    intervalSeconds: 3,
    fetch,
    retry: { sleep: async () => {} },
    ...more,
  });
}

function session(fetch: typeof globalThis.fetch, statuses: SessionStatus[] = [], results: string[] = []) {
  let n = 0;
  return sessionOn(fetch, 'stream-test-1', {
    newRequestId: () => `request-${++n}`,
    onStatus: (status) => statuses.push(status),
    onResult: (result) => results.push(result.text),
  });
}

function speak(target: CaptureSession, seconds: number): void {
  for (let i = 0; i < (seconds * RATE) / 800; i++) target.push(new Float32Array(800).fill(0.1));
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('capture session', () => {
  test('windows carry the stream, a fresh request id, the local header and the rolling query', async () => {
    const { fetch, calls } = gateway();
    const s = session(fetch);
    speak(s, 3);
    await settle();
    speak(s, 3);
    await s.stop();
    const posts = calls.filter((call) => call.method === 'POST');
    expect(posts.map((call) => call.headers['X-Request-ID'])).toEqual([
      'request-1',
      'request-2',
      'request-3',
    ]);
    expect(posts[0]!.headers).toMatchObject({
      'X-Caption-Local': '1',
      'X-Stream-ID': 'stream-test-1',
      'Content-Type': 'application/octet-stream',
    });
    expect(Object.fromEntries(posts[0]!.url.searchParams)).toEqual({
      language: 'en',
      mode: 'transcribe',
      window: '1',
      final: '0',
      context_seconds: '0',
    });
    expect(posts[1]!.url.searchParams.get('context_seconds')).toBe('0.5');
    expect(posts.at(-1)!.url.searchParams.get('final')).toBe('1');
    // Stop drains, then closes the stream.
    const last = calls.at(-1)!;
    expect(last.method).toBe('DELETE');
    expect(last.url.pathname).toBe('/streams/stream-test-1');
    expect(last.headers['X-Caption-Local']).toBe('1');
    expect(s.status.state).toBe('closed');
  });

  test('the vocabulary goes with every window as its prompt; a new one applies to the next', async () => {
    const { fetch, calls } = gateway();
    const s = sessionOn(fetch, 'stream-prompt', { prompt: 'Quilter, Ngozi' });
    for (const prompt of ['Kubernetes', '']) {
      speak(s, 3);
      await settle();
      s.configure({ prompt });
    }
    await s.stop();
    const prompts = calls.filter((c) => c.method === 'POST').map((c) => c.url.searchParams.get('prompt'));
    expect(prompts).toEqual(['Quilter, Ngozi', 'Kubernetes', null]);
  });

  test('503 three times: the same request id and bytes are retried, no audio lost', async () => {
    const { fetch, calls } = gateway([503, 503, 503]);
    const results: string[] = [];
    const s = session(fetch, [], results);
    speak(s, 3);
    await s.stop();
    const posts = calls.filter((call) => call.method === 'POST');
    // Four attempts of the window, then the uncommitted last second drained as final.
    expect(posts.map((call) => call.headers['X-Request-ID'])).toEqual([
      ...Array(4).fill('request-1'),
      'request-2',
    ]);
    for (const post of posts.slice(0, 4)) expect(post.body).toEqual(posts[0]!.body);
    const bytesPerSecond = RATE * 4;
    // The drain starts 0.5 s before the committed point (2 s) of the retried window: contiguous.
    expect(posts[4]!.body).toEqual(posts[0]!.body!.subarray(1.5 * bytesPerSecond));
    expect(results).toEqual([' test', ' test']);
    expect(s.status.state).toBe('closed');
  });

  test('a gateway away for 20 attempts: capture goes on, the window is retried until answered, the backlog goes out by itself', async () => {
    const { fetch, calls } = gateway(Array(20).fill(503));
    const statuses: SessionStatus[] = [];
    const results: string[] = [];
    const s = session(fetch, statuses, results);
    speak(s, 3);
    await settle();
    // The microphone keeps going during the outage: 20 s more are kept.
    speak(s, 20);
    expect(statuses.some((status) => status.retrying && /retrying in/.test(status.message ?? ''))).toBe(true);
    for (let i = 0; i < 50 && calls.filter((c) => c.method === 'POST').length < 21; i++) await settle();
    expect(s.status).toMatchObject({ state: 'capturing', droppedSeconds: 0 });
    await s.stop();
    const posts = calls.filter((call) => call.method === 'POST');
    expect(posts.slice(0, 21).map((call) => call.headers['X-Request-ID'])).toEqual(
      Array(21).fill('request-1'),
    );
    // After the outage the backlog went out in windows of at most 12 s, nothing lost: every second
    // of speech was in a window that was answered (an unfinished window's uncommitted tail goes
    // out again in the next, so the sum may exceed what was spoken, never fall short of it).
    const answered = posts.slice(20);
    const seconds = answered.reduce(
      (sum, post) =>
        sum + post.body!.length / 4 / RATE - Number(post.url.searchParams.get('context_seconds')),
      0,
    );
    expect(seconds).toBeGreaterThanOrEqual(23 - 1e-6);
    for (const post of answered) expect(post.body!.length / 4 / RATE).toBeLessThanOrEqual(12);
    expect(results.length).toBe(answered.length);
    expect(s.status.state).toBe('closed');
  });

  test('beyond the bound the oldest audio is dropped, reported as a gap, and capture goes on', async () => {
    const outage: number[] = Array(100_000).fill(503);
    const { fetch } = gateway(outage);
    const gaps: number[] = [];
    let n = 0;
    const s = sessionOn(fetch, 'stream-gap', {
      maxBufferedSeconds: 10,
      retry: { sleep: () => new Promise((resolve) => setTimeout(resolve, 1)) },
      newRequestId: () => `request-${++n}`,
      onGap: (seconds) => gaps.push(seconds),
    });
    speak(s, 3);
    await settle();
    speak(s, 9);
    expect(s.status.bufferedSeconds).toBeLessThanOrEqual(10);
    expect(gaps.reduce((a, b) => a + b, 0)).toBeCloseTo(2, 6);
    expect(s.status).toMatchObject({ state: 'capturing', droppedSeconds: expect.closeTo(2, 6) });
    // The gateway is back: what was kept goes out, the session closes.
    outage.length = 0;
    await s.stop();
    expect(s.status.state).toBe('closed');
  });

  test('a 4xx stops sending, not capturing: Retry sends the same window and carries on; Discard forgets it', async () => {
    const { fetch, calls } = gateway([413]);
    const s = session(fetch);
    speak(s, 3);
    await s.whenIdle();
    expect(s.status.state).toBe('failed');
    speak(s, 1); // the microphone goes on: kept
    expect(s.status.bufferedSeconds).toBeGreaterThan(3.5);
    await s.retry();
    expect(s.status.state).toBe('capturing');
    await s.stop();
    const posts = calls.filter((call) => call.method === 'POST');
    expect(posts[1]!.headers['X-Request-ID']).toBe('request-1');
    expect(posts[1]!.body).toEqual(posts[0]!.body);
    expect(s.status.state).toBe('closed');

    const again = gateway([400]);
    const d = session(again.fetch);
    speak(d, 3);
    await d.whenIdle();
    await d.discard();
    expect(d.hasPendingAudio).toBe(false);
    expect(d.status.state).toBe('capturing');
    await d.stop();
    expect(again.calls.map((call) => call.method)).toEqual(['POST', 'DELETE']);
  });

  test('a 400 stops at once without retrying, audio kept', async () => {
    const { fetch, calls } = gateway([400]);
    const s = session(fetch);
    speak(s, 3);
    await s.whenIdle();
    expect(calls).toHaveLength(1);
    expect(s.status.state).toBe('failed');
  });
});

describe('lag watchdog', () => {
  test('past 8 s of backlog the session skips to the live edge, marks the gap and tells the gateway', async () => {
    const inner = gateway();
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const slow = (async (input: URL | string, init?: RequestInit) => {
      await gate;
      return inner.fetch(input, init);
    }) as typeof globalThis.fetch;
    const skips: number[] = [];
    const s = sessionOn(slow, 'stream-lag-1', {
      onSkip: (seconds) => skips.push(seconds),
    });
    speak(s, 3); // the first window goes out and hangs
    await settle();
    speak(s, 10); // 13 s captured, 0 captioned
    expect(s.status.backlogSeconds).toBeCloseTo(13, 1);
    open();
    for (let i = 0; i < 5; i++) await settle();
    // the answer committed 2 s of the 3 s window: 11 s were waiting, all but the newest 2 s go
    expect(skips).toHaveLength(1);
    expect(skips[0]).toBeCloseTo(9, 1);
    expect(s.status.skippedSeconds).toBeCloseTo(9, 1);
    await s.stop();
    const posts = inner.calls.filter((call) => call.method === 'POST');
    expect(posts[0]!.headers['X-Caption-Backlog']).toBe('3.00');
    expect(posts[0]!.headers['X-Caption-Skipped']).toBeUndefined();
    expect(Number(posts[1]!.headers['X-Caption-Skipped'])).toBeCloseTo(9, 1);
    // what was kept starts a fresh window: no context, 2 s of the newest audio
    expect(posts[1]!.url.searchParams.get('context_seconds')).toBe('0');
    expect((posts[1]!.body?.length ?? 0) / 4 / RATE).toBeCloseTo(2, 1);
  });

  test('under the bound nothing is skipped', async () => {
    const { fetch, calls } = gateway();
    const skips: number[] = [];
    const s = sessionOn(fetch, 'stream-lag-2', {
      onSkip: (seconds) => skips.push(seconds),
    });
    for (let i = 0; i < 4; i++) {
      speak(s, 3);
      await settle();
    }
    await s.stop();
    expect(skips).toEqual([]);
    expect(
      calls.filter((call) => call.method === 'POST').every((c) => !('X-Caption-Skipped' in c.headers)),
    ).toBe(true);
  });
});
