import { describe, expect, test } from '@jest/globals';
import { RELAY_TEXT_MAX } from '@live-captions/protocol';
import { captionPieces } from '../src/browser/lib/caption-pieces.js';
import { GapWatch } from '../src/browser/lib/gap-watch.js';
import { buildLinks } from '../src/browser/lib/links.js';
import { readParams } from '../src/browser/lib/params.js';
import { dueAt, ReviewDesk, type ReviewItem } from '../src/browser/lib/review-queue.js';

describe('timed review is a pipeline', () => {
  test('10 captions 1 s apart in timed 5 s each go out 5 s after their own arrival (fake clock)', () => {
    const desk = new ReviewDesk();
    const delayMs = 5_000;
    const tickMs = 100;
    const sentAt = new Map<string | number, number>();
    const arrivals = Array.from({ length: 10 }, (_, index) => ({ id: `c-${index + 1}`, at: index * 1_000 }));
    for (let now = 0; now <= 20_000; now += tickMs) {
      for (const arrival of arrivals.filter((a) => a.at === now))
        desk.arrive({ id: arrival.id, text: `caption ${arrival.id}`, receivedAt: now });
      desk.releaseDue(now, delayMs, (item) => {
        sentAt.set(item.id, now);
        desk.advance();
      });
    }
    expect([...sentAt.keys()]).toEqual(arrivals.map((a) => a.id));
    for (const arrival of arrivals) {
      const lag = sentAt.get(arrival.id)! - arrival.at;
      expect(lag).toBeGreaterThanOrEqual(delayMs);
      expect(lag).toBeLessThanOrEqual(delayMs + 500);
    }
  });

  test('the old behaviour (countdown from the previous send) would have aged them: the desk does not', () => {
    const desk = new ReviewDesk();
    desk.arrive({ id: 1, text: 'a', receivedAt: 0 });
    desk.arrive({ id: 2, text: 'b', receivedAt: 100 });
    const out: (string | number)[] = [];
    // Both are overdue at 6 s: both go out in one step, in order.
    expect(desk.releaseDue(6_000, 5_000, (item) => out.push(item.id))).toBe(2);
    expect(out).toEqual([1, 2]);
    expect(desk.current).toBeUndefined();
  });

  test('an edit restarts only that caption’s countdown', () => {
    const item: ReviewItem = { id: 1, text: 'a', receivedAt: 1_000 };
    expect(dueAt(item, 5_000)).toBe(6_000);
    item.editedAt = 4_000;
    expect(dueAt(item, 5_000)).toBe(9_000);
  });

  test('a busy draft keeps arrivals waiting', () => {
    const desk = new ReviewDesk();
    desk.arrive({ id: 1, text: 'a', receivedAt: 0 }, false);
    expect(desk.current).toBeUndefined();
    expect(desk.queue.length).toBe(1);
    expect(desk.releaseDue(10_000, 5_000, () => undefined)).toBe(0);
  });
});

describe('caption pieces', () => {
  test('a 9,000-character caption is cut at word boundaries into pieces the relay takes', () => {
    const words = Array.from({ length: 1_500 }, (_, index) => `w${String(index).padStart(4, '0')}`);
    const text = words.join(' ');
    expect(text.length).toBeGreaterThanOrEqual(8_999);
    const pieces = captionPieces(text);
    expect(pieces.length).toBe(3);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(RELAY_TEXT_MAX);
      expect(piece).toMatch(/^w\d{4}( w\d{4})*$/);
    }
    expect(pieces.join(' ')).toBe(text);
  });

  test('short text is one piece, line breaks kept; a word longer than the limit is cut hard', () => {
    expect(captionPieces('  one\ntwo  ')).toEqual(['one\ntwo']);
    expect(captionPieces('')).toEqual([]);
    expect(captionPieces('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(captionPieces('ab cd\nef gh', 5)).toEqual(['ab cd', 'ef gh']);
  });
});

describe('the "may be missing" warning', () => {
  test('a relay restart alone is no gap; a hole in a publisher’s numbers after it is', () => {
    const watch = new GapWatch();
    expect(watch.caption('cap-1')).toBe(false);
    expect(watch.caption('cap-2')).toBe(false);
    expect(watch.gap('relay-restarted')).toBe(false);
    expect(watch.caption('cap-3')).toBe(false);
    expect(watch.gap('relay-restarted')).toBe(false);
    expect(watch.caption('cap-6')).toBe(true);
    // Holes without a restart (none expected) are not reported twice.
    expect(watch.caption('cap-9')).toBe(false);
  });

  test('a translation shares its transcript’s id; expired history is always a gap', () => {
    const watch = new GapWatch();
    watch.caption('cap-4');
    watch.caption('cap-4');
    watch.gap('relay-restarted');
    expect(watch.caption('cap-5')).toBe(false);
    expect(watch.gap('expired')).toBe(true);
  });
});

describe('the editor link from the hub', () => {
  test('carries the overlay look and the output read token, for "Copy overlay link"', () => {
    const links = buildLinks(
      'https://ui.example.org/',
      null,
      {
        relayUrl: 'wss://relay.example.org/ws',
        sourceRoom: 'in',
        outputRoom: 'out',
        sourceReadToken: 'r'.repeat(32),
        outputWriteToken: 'w'.repeat(32),
        outputReadToken: 'o'.repeat(32),
      },
      { maxlines: 2, showtime: 0, fontsize: 60 },
    );
    const params = readParams(links.editor!);
    expect(params.get('overlay')).toBe('maxlines=2&showtime=0&fontsize=60');
    expect(params.get('outputReadToken')).toBe('o'.repeat(32));
    expect(new URL(params.cleanUrl).hash).not.toMatch(/Token/);
  });
});
