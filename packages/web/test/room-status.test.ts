/**
 * A room's status on the links hub's board and the rules that make it need attention (pure): the
 * source (capture page or stream sources), captions, readers, destinations and translations, each
 * "unknown" when its service did not answer; and the summary line (the speech workers' line:
 * workers-watch.test.ts). The board itself runs in chromium against a real relay: e2e/browser/rooms-status.test.ts.
 */
import { describe, expect, test } from '@jest/globals';
import type { Destination, RelayRoomActivity, StreamSource, Translation } from '@live-captions/protocol';
import {
  boardSummary,
  firstWords,
  PublisherWatch,
  type RoomStatusInput,
  roomStatus,
  troubleLine,
} from '../src/browser/lib/room-status.js';
import { streamSource } from './helpers/stream-source.js';

const NOW = Date.parse('2026-05-04T10:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();

const relayRoom = (fields: Partial<RelayRoomActivity> = {}): RelayRoomActivity => ({
  publishers: 0,
  readers: 0,
  captionsLastMinute: 0,
  lastCaptionAt: null,
  languages: [],
  ...fields,
});

const stream = (fields: Partial<StreamSource>): StreamSource =>
  streamSource({
    room: 'main-hall',
    name: 'Hall camera',
    input: { kind: 'pull', url: 'rtsp://cam.example.org/live' },
    behindSeconds: 2.14,
    since: ago(30_000),
    ...fields,
  });

const destination = (fields: Partial<Destination>): Destination => ({
  id: 'd1',
  kind: 'youtube',
  label: 'YouTube Live',
  target: 'https://upload.youtube.com/closedcaption?cid=…abcd',
  state: 'sending',
  behind: 0,
  sent: 4,
  skipped: 0,
  lastError: null,
  ...fields,
});

const translation = (fields: Partial<Translation>): Translation => ({
  id: 't1',
  target: 'es',
  source: 'en',
  engine: 'apertium',
  endpoint: 'http://127.0.0.1:2737',
  key: null,
  state: 'translating',
  behind: 0,
  sent: 3,
  lastError: null,
  ...fields,
});

const input = (fields: Partial<RoomStatusInput> = {}): RoomStatusInput => ({
  activity: { source: relayRoom(), output: relayRoom() },
  sources: [],
  outputs: { destinations: [], translations: [] },
  publisherSince: undefined,
  now: NOW,
  ...fields,
});

describe('a room at a glance', () => {
  test('a capture page: connected, its captions, the readers and languages; nothing wrong', () => {
    const status = roomStatus(
      input({
        activity: {
          source: relayRoom({ publishers: 1, captionsLastMinute: 12, lastCaptionAt: ago(2_000) }),
          output: relayRoom({ readers: 3, languages: ['en', 'es'] }),
        },
        publisherSince: NOW - 600_000,
      }),
    );
    expect(status).toEqual({
      source: 'Capture page connected',
      captions: '12 captions in the last minute',
      audience: '3 readers · en, es',
      outputs: 'No destinations',
      trouble: [],
    });
  });

  test('no publisher: no source, and an empty room is not trouble', () => {
    const status = roomStatus(input());
    expect([status.source, status.captions, status.audience, status.trouble]).toEqual([
      'No source connected',
      '0 captions in the last minute',
      '0 readers',
      [],
    ]);
  });

  test('two publishers at once need attention', () => {
    const status = roomStatus(
      input({ activity: { source: relayRoom({ publishers: 2 }), output: relayRoom() }, publisherSince: NOW }),
    );
    expect(status.source).toBe('2 capture pages connected');
    expect(status.trouble).toEqual(['2 publishers at once']);
  });

  test('stream sources: each one state, seconds behind; failed, silent long or far behind is trouble', () => {
    const status = roomStatus(
      input({
        activity: { source: relayRoom({ publishers: 1 }), output: relayRoom() },
        sources: [
          stream({}),
          stream({
            name: 'Lectern',
            state: 'failed',
            reason: 'Connection refused by 203.0.113.9 port 554 again and again',
          }),
          stream({ name: 'Backup', state: 'silent', since: ago(181_000), behindSeconds: 12.4 }),
          stream({ name: 'Spare', running: false, state: 'stopped' }),
        ],
        publisherSince: NOW,
      }),
    );
    expect(status.source).toBe(
      'Hall camera: live, 2.1 s behind · Lectern: failed · Backup: silent, 12.4 s behind',
    );
    expect(status.trouble).toEqual([
      'Lectern failed: Connection refused by 203.0.113.9 port 554 again and…',
      'Backup silent for 3 min',
      'Backup 12 s behind live',
    ]);
  });

  test('silent a short while, or 10 s behind exactly, is not trouble yet', () => {
    const status = roomStatus(
      input({ sources: [stream({ state: 'silent', since: ago(60_000), behindSeconds: 10 })] }),
    );
    expect(status.trouble).toEqual([]);
  });

  test('a publisher joined without a caption for over 2 minutes; counted from its arrival', () => {
    const joined = (lastCaptionAt: string | null, since: number) =>
      roomStatus(
        input({
          activity: { source: relayRoom({ publishers: 1, lastCaptionAt }), output: relayRoom() },
          publisherSince: since,
        }),
      ).trouble;
    expect(joined(null, NOW - 30_000)).toEqual([]);
    expect(joined(null, NOW - 150_000)).toEqual(['no caption for 2 min while a publisher is joined']);
    expect(joined(ago(200_000), NOW - 900_000)).toEqual(['no caption for 3 min while a publisher is joined']);
    expect(joined(ago(60_000), NOW - 900_000)).toEqual([]);
  });

  test("destinations and translations: their states; a failing one is trouble with its error's first words", () => {
    const status = roomStatus(
      input({
        outputs: {
          destinations: [
            destination({ track: 'original' }),
            destination({
              id: 'd2',
              kind: 'zoom',
              label: 'Zoom',
              track: 'es',
              state: 'failing',
              lastError: {
                at: ago(5_000),
                message: 'HTTP 403: the meeting has ended or the token is not valid any more',
              },
            }),
          ],
          translations: [translation({}), translation({ target: 'de', state: 'failing', lastError: null })],
        },
      }),
    );
    expect(status.outputs).toBe('YouTube Live: sending · Zoom (es): failing · es: translating · de: failing');
    expect(status.trouble).toEqual([
      'Zoom (es) failing: HTTP 403: the meeting has ended or the…',
      'translation de failing',
    ]);
  });

  test('a service that did not answer: its part unknown, never trouble', () => {
    const status = roomStatus(input({ activity: undefined, sources: undefined, outputs: undefined }));
    expect(status).toEqual({
      source: 'Source unknown',
      captions: 'Captions unknown',
      audience: 'Readers unknown',
      outputs: 'Destinations unknown',
      trouble: [],
    });
    const noSources = roomStatus(
      input({ activity: { source: relayRoom({ publishers: 1 }), output: relayRoom() }, sources: undefined }),
    );
    expect(noSources.source).toBe('1 publisher connected (stream sources unknown)');
  });

  test('words: the trouble line, first words, the summary', () => {
    expect(troubleLine([])).toBe('');
    expect(troubleLine(['a', 'b'])).toBe('Needs attention: a; b');
    expect(firstWords('  one two  ')).toBe('one two');
    expect(boardSummary(0, [])).toBe('');
    expect(boardSummary(1, [])).toBe('The room is fine');
    expect(boardSummary(40, [])).toBe('All 40 rooms are fine');
    expect(boardSummary(40, ['Main hall'])).toBe('1 of 40 rooms needs attention: Main hall');
    expect(boardSummary(40, ['A', 'B', 'C'])).toBe('3 of 40 rooms need attention: A, B, C');
    expect(boardSummary(40, ['A', 'B', 'C', 'D', 'E', 'F'])).toBe(
      '6 of 40 rooms need attention: A, B, C, D and 2 more',
    );
  });

  test('the publisher watch: since the first refresh that saw one, reset when none', () => {
    const watch = new PublisherWatch();
    expect(watch.seen('a', 0, 1)).toBeUndefined();
    expect(watch.seen('a', 1, 2)).toBe(2);
    expect(watch.seen('a', 2, 3)).toBe(2);
    expect(watch.seen('a', undefined, 4)).toBe(2);
    expect(watch.seen('a', 0, 5)).toBeUndefined();
    expect(watch.seen('a', 1, 6)).toBe(6);
  });
});
