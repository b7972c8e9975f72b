import { describe, expect, test } from '@jest/globals';
import { archiveEventSchema, bodyProblem, newDestinationSchema } from '../src/domain/api.js';
import {
  DestinationNotAllowed,
  destinationUrl,
  maskUrl,
  parseHostList,
} from '../src/domain/destination-url.js';
import { DeliveryRuns, gapMessage, missedBefore } from '../src/domain/gaps.js';
import { clockOffset, youtubeBody, zoomBody } from '../src/domain/platform-bodies.js';
import { appendQuery, zoomSeqUrl } from '../src/domain/request-urls.js';
import { backoffMs, outcomeOf } from '../src/domain/retry.js';
import {
  archiveFileName,
  closingTime,
  continuesSession,
  discardable,
  type EventStep,
  endedAtOf,
  eventStep,
} from '../src/domain/sessions.js';
import { screensOf, wrapLines } from '../src/domain/shape.js';

const YT =
  'http://upload.youtube.com/closedcaption?cid=abc&ns=yt&id=0123456789wxyz&signature=SECRETSIG&key=yt_qc';
const ZOOM =
  'https://wmcapi.zoom.us/closedcaption?id=200610693&ns=GZHkEA==&expire=86400&signature=nYtXJqRKCW';
const none = new Set<string>();

describe('destination URLs (SSRF)', () => {
  test("YouTube's http ingestion URL is accepted and sent over https, query untouched", () => {
    expect(destinationUrl('youtube', YT, none)).toBe(YT.replace('http:', 'https:'));
    expect(destinationUrl('zoom', ZOOM, none)).toBe(ZOOM);
  });

  test.each([
    ['youtube', 'https://upload.youtube.com.evil.example/closedcaption?x=1'],
    ['youtube', 'https://evil.example/closedcaption?x=1'],
    ['youtube', 'https://169.254.169.254/latest/meta-data?x=1'],
    ['youtube', 'http://127.0.0.1:6379/closedcaption?x=1'],
    ['youtube', 'https://upload.youtube.com:8443/closedcaption?x=1'],
    ['youtube', 'https://upload.youtube.com/other?x=1'],
    ['youtube', 'https://user:pw@upload.youtube.com/closedcaption?x=1'],
    ['youtube', 'https://upload.youtube.com/closedcaption'],
    ['zoom', ZOOM.replace('https:', 'http:')],
    ['zoom', YT],
    ['zoom', 'file:///etc/passwd'],
    ['zoom', 'not a url'],
  ] as ['youtube' | 'zoom', string][])('%s %s is refused', (kind, url) => {
    expect(() => destinationUrl(kind, url, none)).toThrow(DestinationNotAllowed);
  });

  test('a listed host:port is allowed over http, other ports of it are not', () => {
    const listed = new Set(parseHostList('127.0.0.1:9000, localhost:80'));
    expect(destinationUrl('zoom', 'http://127.0.0.1:9000/closedcaption?id=1', listed)).toContain('9000');
    expect(destinationUrl('zoom', 'http://localhost/anything', listed)).toBe('http://localhost/anything');
    expect(() => destinationUrl('zoom', 'http://127.0.0.1:9001/closedcaption?id=1', listed)).toThrow(
      DestinationNotAllowed,
    );
    expect(() => parseHostList('127.0.0.1')).toThrow('host:port');
  });

  test('refusals never quote the URL', () => {
    try {
      destinationUrl('youtube', 'https://evil.example/closedcaption?signature=SECRETSIG', none);
    } catch (error) {
      expect((error as Error).message).not.toContain('SECRETSIG');
    }
    expect.assertions(1);
  });

  test('the mask keeps the id tail only', () => {
    expect(maskUrl(YT)).toBe('http://upload.youtube.com/closedcaption?id=…wxyz');
    expect(maskUrl(ZOOM)).toBe('https://wmcapi.zoom.us/closedcaption?id=…0693');
    expect(maskUrl(ZOOM)).not.toContain('nYtXJqRKCW');
  });

  test('seq and lang are appended to the query as it was given', () => {
    expect(appendQuery(ZOOM, { seq: 7, lang: 'en-US' })).toBe(`${ZOOM}&seq=7&lang=en-US`);
    expect(zoomSeqUrl(ZOOM)).toBe(ZOOM.replace('/closedcaption?', '/closedcaption/seq?'));
  });
});

describe('bodies', () => {
  test('lines fill up to the width at word boundaries; screens hold two lines', () => {
    const text = 'The quick brown fox jumps over the lazy dog and keeps running far beyond the hills of home';
    const lines = wrapLines(text, 32);
    expect(lines.every((line) => line.length <= 32)).toBe(true);
    expect(lines.join(' ')).toBe(text);
    expect(screensOf(text, 32).every((screen) => screen.length <= 2)).toBe(true);
    expect(wrapLines('x'.repeat(70), 32)).toEqual(['x'.repeat(32), 'x'.repeat(32), 'x'.repeat(6)]);
  });

  test('a word longer than a line is cut between characters, never inside one', () => {
    // 21 emoji (2 code units each) in one word: a cut at 40 units or 32 would split a pair.
    const emoji = '\u{1F600}'.repeat(21);
    expect(wrapLines(emoji, 40)).toEqual(['\u{1F600}'.repeat(20), '\u{1F600}']);
    expect(wrapLines(`x${emoji}`, 32)).toEqual([`x${'\u{1F600}'.repeat(15)}`, '\u{1F600}'.repeat(6)]);
    // A flag (a sequence of 14 units) and letters with combining marks stay whole.
    const flag = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}';
    const lines = wrapLines(`${'e\u0301'.repeat(12)}${flag}${flag}`, 32);
    expect(lines).toEqual([`${'e\u0301'.repeat(12)}`, `${flag}${flag}`]);
    // One character longer than a line (a base with 50 combining marks) is cut between code points.
    const zalgo = `a${'\u0301'.repeat(50)}`;
    expect(wrapLines(zalgo, 32).map((line) => line.length)).toEqual([32, 19]);
    for (const line of [...wrapLines(emoji, 40), ...lines, ...wrapLines(zalgo, 32)])
      expect(line).not.toMatch(/\p{Cs}/u);
  });

  test('YouTube: UTC timestamp lines, <br> between lines, long captions as several blocks', () => {
    const at = Date.UTC(2026, 10, 26, 9, 30, 0, 5);
    const body = youtubeBody([{ at, text: `Hello\nworld ${'word '.repeat(20).trim()}` }], 250);
    const lines = body.split('\n');
    expect(lines[0]).toBe('2026-11-26T09:30:00.255');
    expect(lines[1]).toContain('<br>');
    expect(lines[2]).toBe('2026-11-26T09:30:01.755');
    expect(body.endsWith('\n')).toBe(true);
    expect(
      lines
        .filter((_, i) => i % 2 === 1 && lines[i] !== '')
        .join('<br>')
        .split('<br>')
        .join(' '),
    ).toBe(`Hello world ${'word '.repeat(20).trim()}`);
  });

  test('Zoom: text only, lines of 32, batched captions in order', () => {
    const body = zoomBody([
      { at: 0, text: 'first caption' },
      { at: 1, text: 'second one, somewhat longer than thirty-two characters' },
    ]);
    expect(body.split('\n').every((line) => line.length <= 32)).toBe(true);
    expect(body.replaceAll('\n', ' ')).toBe(
      'first caption second one, somewhat longer than thirty-two characters',
    );
  });

  test("the clock offset is YouTube's time minus the request's midpoint", () => {
    expect(
      clockOffset(
        '2026-11-26T09:30:10.000\n',
        Date.UTC(2026, 10, 26, 9, 30, 0),
        Date.UTC(2026, 10, 26, 9, 30, 2),
      ),
    ).toBe(9000);
    expect(clockOffset('ok', 0, 0)).toBeUndefined();
  });
});

describe('retries and sessions', () => {
  test("Zoom's codes: 400/408/5xx retried, 403/405 and redirects failing", () => {
    expect(outcomeOf(200)).toEqual({ ok: true });
    for (const status of [400, 408, 429, 500, 502, 503, 504])
      expect(outcomeOf(status)).toMatchObject({ failing: false });
    for (const status of [302, 403, 405, 404]) expect(outcomeOf(status)).toMatchObject({ failing: true });
  });

  test('backoff grows, is capped and jittered', () => {
    expect(backoffMs(1, 30_000, () => 0.5)).toBe(500);
    expect(backoffMs(4, 30_000, () => 0.5)).toBe(4000);
    expect(backoffMs(20, 30_000, () => 1)).toBe(37_500);
    expect(backoffMs(20, 30_000, () => 0)).toBe(22_500);
  });

  test('a session continues until idle or ended', () => {
    const open = { id: 'a', lastAt: 0, ended: false, eventEnd: null };
    expect(continuesSession(undefined, 0, 1000)).toBe(false);
    expect(continuesSession(open, 1000, 1000)).toBe(true);
    expect(continuesSession(open, 1001, 1000)).toBe(false);
    expect(continuesSession({ ...open, ended: true }, 10, 1000)).toBe(false);
    expect(endedAtOf({ endedAt: null, lastAt: 10 }, 500, 1000)).toBeNull();
    expect(endedAtOf({ endedAt: null, lastAt: 10 }, 2000, 1000)).toBe(10);
    expect(endedAtOf({ endedAt: 7, lastAt: 10 }, 20, 1000)).toBe(7);
    expect(endedAtOf({ endedAt: null, lastAt: null }, 1e9, 1000)).toBeNull();
    expect(archiveFileName('room', Date.UTC(2026, 0, 2, 3, 4), 'srt')).toBe('room-2026-01-02-0304.srt');
  });

  test("a talk's session goes on through pauses until its end plus the idle time", () => {
    // The talk ends at 10 000; idle time 1000.
    const talk = { id: 'a', lastAt: 0, ended: false, eventEnd: 10_000 };
    expect(continuesSession(talk, 5000, 1000)).toBe(true);
    expect(continuesSession(talk, 11_000, 1000)).toBe(true);
    expect(continuesSession(talk, 11_001, 1000)).toBe(false);
    // Overrun captions keep coming within the idle time of each other: still the talk's.
    expect(continuesSession({ ...talk, lastAt: 20_000 }, 20_900, 1000)).toBe(true);
    const event = { id: 1, title: 'T', start: 0, end: 10_000 };
    expect(endedAtOf({ endedAt: null, lastAt: 100, event }, 10_500, 1000)).toBeNull();
    expect(endedAtOf({ endedAt: null, lastAt: 100, event }, 11_001, 1000)).toBe(100);
    expect(closingTime({ endedAt: null, lastAt: 100, event }, 10_500, 1000)).toBe(10_500);
    expect(closingTime({ endedAt: null, lastAt: 100, event: null }, 10_500, 1000)).toBe(100);
    expect(discardable({ lastAt: null, event: null })).toBe(true);
    expect(discardable({ lastAt: null, event })).toBe(false);
    expect(discardable({ lastAt: 5, event: null })).toBe(false);
  });

  type Case = [boolean, number | null | undefined, number | null | undefined, number | null, EventStep];
  test.each<Case>([
    // hasArchive, open, latest, requested -> step
    [true, 7, 7, 7, { kind: 'same' }],
    [true, null, null, null, { kind: 'same' }],
    [true, 7, 7, 8, { kind: 'cut', addArchive: false }],
    [true, 7, 7, null, { kind: 'cut', addArchive: false }],
    [true, undefined, 7, 7, { kind: 'cut', addArchive: false }],
    [true, undefined, undefined, null, { kind: 'cut', addArchive: false }],
    [false, undefined, undefined, 7, { kind: 'cut', addArchive: true }],
    [false, undefined, 6, 7, { kind: 'cut', addArchive: true }],
    [false, undefined, 7, 7, { kind: 'kept-off' }],
    [false, undefined, 7, null, { kind: 'none' }],
  ])(
    'an event PUT with archive %s, open %s, latest %s, asking %s: %j',
    (hasArchive, openEventId, latestEventId, requested, step) => {
      expect(eventStep({ hasArchive, openEventId, latestEventId, requested })).toEqual(step);
    },
  );

  test('request bodies name the wrong field', () => {
    expect(newDestinationSchema.safeParse({ kind: 'zoom', url: 'x' }).data).toMatchObject({
      track: 'original',
    });
    expect(newDestinationSchema.safeParse({ kind: 'fax' }).success).toBe(false);
    expect(newDestinationSchema.safeParse({ kind: 'archive', url: 'x' }).success).toBe(false);
  });
});

describe('the event PUT body', () => {
  const event = { id: 12, title: 'Keynote', start: '2030-05-04T10:00:00+02:00', end: '2030-05-04T08:45:00Z' };
  const problem = (body: unknown) => {
    const parsed = archiveEventSchema.safeParse(body);
    return parsed.success ? 'ok' : bodyProblem(parsed.error);
  };

  test('reads the times with their offset, to milliseconds', () => {
    expect(archiveEventSchema.parse({ event }).event).toEqual({
      id: 12,
      title: 'Keynote',
      start: Date.UTC(2030, 4, 4, 8, 0),
      end: Date.UTC(2030, 4, 4, 8, 45),
    });
    expect(archiveEventSchema.parse({ event: null }).event).toBeNull();
  });

  test.each([
    [{}, /^event: /],
    [{ event }, 'ok'],
    [{ event, more: 1 }, 'more: unknown field'],
    [{ event: 'keynote' }, /^event: must be/],
    [{ event: { ...event, id: 0 } }, /^event\.id: /],
    [{ event: { ...event, id: 1.5 } }, /^event\.id: /],
    [{ event: { ...event, id: '12' } }, /^event\.id: /],
    [{ event: { ...event, id: 2 ** 31 } }, /^event\.id: /],
    [{ event: { ...event, title: 'x'.repeat(501) } }, /^event\.title: /],
    [{ event: { ...event, title: 'a\u0000b' } }, /^event\.title: /],
    [{ event: { ...event, title: 5 } }, /^event\.title: /],
    [{ event: { ...event, start: '2030-05-04 10:00' } }, /^event\.start: /],
    [{ event: { ...event, start: '2030-05-04T10:00:00' } }, /^event\.start: /],
    [{ event: { ...event, start: '2030-13-40T10:00:00Z' } }, /^event\.start: /],
    [{ event: { ...event, end: 1_900_000_000_000 } }, /^event\.end: /],
    [{ event: { ...event, end: '2030-05-04T07:59:59Z' } }, 'event.end: must not be before event.start'],
    [{ event: { ...event, room: 'x' } }, 'event.room: unknown field'],
  ])('%j: %s', (body, expected) => {
    if (typeof expected === 'string') expect(problem(body)).toBe(expected);
    else expect(problem(body)).toMatch(expected);
  });
});

describe('gaps from the publishers’ delivery sequences', () => {
  test('a run grows with each next sequence and starts afresh after a skip; a replayed one lies in it', () => {
    const runs = new DeliveryRuns();
    const a = 'editor_0000000000000001';
    expect(runs.see({ client: a, sequence: 4 })).toEqual({ client: a, from: 4, sequence: 4 });
    expect(runs.see({ client: a, sequence: 5 })).toEqual({ client: a, from: 4, sequence: 5 });
    expect(runs.see({ client: a, sequence: 4 })).toEqual({ client: a, from: 4, sequence: 4 });
    expect(runs.see({ client: a, sequence: 9 })).toEqual({ client: a, from: 9, sequence: 9 });
    expect(runs.see({ client: 'other_00000000000001', sequence: 1 })).toMatchObject({ from: 1 });
  });

  test('missed: the sequences between the last accepted and the run; a resend is `again`', () => {
    expect(missedBefore(undefined, { client: 'c', from: 9, sequence: 9 })).toBe(0);
    expect(missedBefore(5, { client: 'c', from: 6, sequence: 6 })).toBe(0);
    // A clear (6) needed no write but was seen: the run from 6 to 7 loses nothing.
    expect(missedBefore(5, { client: 'c', from: 6, sequence: 7 })).toBe(0);
    expect(missedBefore(5, { client: 'c', from: 9, sequence: 9 })).toBe(3);
    expect(missedBefore(5, { client: 'c', from: 5, sequence: 5 })).toBe('again');
    expect(missedBefore(5, { client: 'c', from: 2, sequence: 3 })).toBe('again');
  });

  test('the error says what happened and what to do', () => {
    const at = Date.UTC(2026, 11, 7, 14, 3, 5);
    expect(gapMessage({ kind: 'relay-restarted', missed: 1, at })).toBe(
      '1 caption missed before 14:03:05 UTC: the relay restarted without its history before this service read them. The archive marks the place; to keep them through a relay restart, run the relay with Redis (REDIS_URL)',
    );
    expect(gapMessage({ kind: 'history-expired', next: 12 })).toMatch(
      /^captions missed before caption 12: .*replayMs/,
    );
  });
});
