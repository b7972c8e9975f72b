/**
 * What the pages keep through a reload and how they show a lost link (issue 37): the pure rules
 * (the browser suite runs them in Chromium, e2e/browser/event-faults.test.ts).
 */
import { describe, expect, test } from '@jest/globals';
import type { RelayCaption } from '@live-captions/protocol';
import { audienceLine } from '../src/browser/lib/audience-status.js';
import { ALL_TRACKS, AudienceTranscript } from '../src/browser/lib/audience-transcript.js';
import {
  floorOf,
  outputIdOf,
  parseJournal,
  RESUME_REVIEW_MS,
  restoredLine,
  sourceKey,
} from '../src/browser/lib/editor-journal.js';
import { LinkWatch, operatorLine } from '../src/browser/lib/link-watch.js';
import { OverlayModel } from '../src/browser/lib/overlay-model.js';
import { linkKey, readerLink } from '../src/browser/lib/reader-link.js';

/** `sessionStorage`'s interface over a Map (the browser suite runs the real one). */
class MemoryStorage implements Storage {
  private readonly map = new Map<string, string>();
  refuse = false;
  get length() {
    return this.map.size;
  }
  clear() {
    this.map.clear();
  }
  getItem(key: string) {
    return this.map.get(key) ?? null;
  }
  key(index: number) {
    return [...this.map.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.map.delete(key);
  }
  setItem(key: string, value: string) {
    if (this.refuse) throw new DOMException('quota', 'QuotaExceededError');
    this.map.set(key, value);
  }
}

const params = (values: Record<string, string>) => (name: string) => values[name];
const RELAY = 'ws://relay.example.org/ws';
const TOKEN = 'r'.repeat(43);

describe('a reader page keeps its link for the tab', () => {
  test('the link with a token is kept; a reload without it reads the kept one', () => {
    const storage = new MemoryStorage();
    expect(
      readerLink('audience', params({ relayUrl: RELAY, room: 'out', relayReadToken: TOKEN }), storage),
    ).toEqual({
      url: RELAY,
      room: 'out',
      token: TOKEN,
    });
    // The address bar after the page took the token out: relayUrl and room stay, the token does not.
    expect(readerLink('audience', params({ relayUrl: RELAY, room: 'out' }), storage)).toEqual({
      url: RELAY,
      room: 'out',
      token: TOKEN,
    });
    // Nothing at all in the address: the kept link, with the site's relay as a fallback only.
    expect(readerLink('audience', params({}), storage, 'ws://site/ws')?.url).toBe(RELAY);
    // Each page keeps its own.
    expect(readerLink('overlay', params({ room: 'out' }), storage)).toBeUndefined();
  });

  test('never gives one room’s token to another room; a newer link replaces the kept one', () => {
    const storage = new MemoryStorage();
    readerLink('overlay', params({ room: 'a', relayReadToken: TOKEN }), storage, RELAY);
    expect(readerLink('overlay', params({ room: 'b' }), storage, RELAY)).toBeUndefined();
    readerLink('overlay', params({ room: 'b', relayReadToken: 's'.repeat(43) }), storage, RELAY);
    expect(readerLink('overlay', params({}), storage, RELAY)).toMatchObject({
      room: 'b',
      token: 's'.repeat(43),
    });
  });

  test('a storage that refuses or holds garbage keeps nothing and breaks nothing', () => {
    const storage = new MemoryStorage();
    storage.refuse = true;
    expect(
      readerLink('audience', params({ room: 'a', relayReadToken: TOKEN }), storage, RELAY),
    ).toMatchObject({
      token: TOKEN,
    });
    expect(readerLink('audience', params({}), storage, RELAY)).toBeUndefined();
    storage.refuse = false;
    storage.setItem(linkKey('audience'), '{not json');
    expect(readerLink('audience', params({}), storage, RELAY)).toBeUndefined();
    expect(readerLink('audience', params({}), undefined, RELAY)).toBeUndefined();
  });
});

let sequence = 0;
const caption = (fields: Partial<RelayCaption> & { id: string | number }): RelayCaption =>
  ({ msg: true, relay: { epoch: 'e', sequence: ++sequence }, ...fields }) as RelayCaption;

describe('the audience page after a reload', () => {
  test('shows what it kept again (tracks, interims, corrections) and then nothing twice', () => {
    const before = new AudienceTranscript();
    before.apply(caption({ id: 'a-1', final: 'Good evening.', ln: 'en' }));
    before.apply(caption({ id: 'a-1', final: 'Buenas tardes.', ln: 'es', label: 'translation' }));
    before.apply(caption({ id: 'a-2', final: 'Tonight: rivers.', ln: 'en' }));
    before.apply(caption({ id: 'a-2', final: 'Tonight: the rivers.', ln: 'en' }));
    before.apply(caption({ id: 'a-3', interm: 'First', ln: 'en' }));
    const kept = JSON.parse(JSON.stringify(before.kept(10)));
    const after = new AudienceTranscript();
    after.restore(kept);
    expect(after.lines(ALL_TRACKS)).toEqual(before.lines(ALL_TRACKS));
    expect(after.tracks).toEqual(before.tracks);
    // The relay replays from the kept cursor; a caption it resends after a restart changes nothing.
    expect(after.apply(caption({ id: 'a-2', final: 'Tonight: the rivers.', ln: 'en' }))).toEqual({
      kind: 'none',
    });
    expect(after.apply(caption({ id: 'a-3', final: 'First, the Rhine.', ln: 'en' }))).toMatchObject({
      kind: 'updated',
    });
    // Only the newest are kept; garbage is skipped.
    expect(before.kept(1).map((c) => c.id)).toEqual(['a-3']);
    const garbage = new AudienceTranscript();
    garbage.restore([{ id: 1, text: 'x' } as never, null as never, { id: 'ok', text: 'fine' }]);
    expect(garbage.lines().map((line) => line.id)).toEqual(['ok']);
  });

  test('says one short line in every state, and a notice of missed captions that clears', () => {
    const lines = [
      audienceLine({ view: 'connecting' }),
      audienceLine({ view: 'joined' }),
      audienceLine({ view: 'joined' }, 'relay-restarted'),
      audienceLine({ view: 'lost', since: 1, reason: 'No word from the relay for 4.1 s' }),
      audienceLine({ view: 'stopped', code: 1008 }),
    ];
    expect(lines.map((line) => line.text)).toEqual([
      'Connecting…',
      'Live',
      'Live · some captions missed',
      'Reconnecting…',
      'Link no longer works',
    ]);
    for (const line of lines) expect(line.text.length).toBeLessThanOrEqual(28);
    expect(lines.filter((line) => line.notice).length).toBe(1);
  });
});

describe('the overlay after a reload', () => {
  test('shows the kept lines again, and a final it showed is not shown twice', () => {
    const options = { maxlines: 2, clear: false, dual: false, showtimeMs: 12_000 };
    const before = new OverlayModel(options);
    before.apply(caption({ id: 'o-1', final: 'One.' }));
    before.apply(caption({ id: 'o-2', final: 'Two.' }));
    before.apply(caption({ id: 'o-3', interm: 'Thr' }));
    const after = new OverlayModel(options);
    expect(after.restore(JSON.parse(JSON.stringify(before.lines)))).toBe(true);
    expect(after.lines).toEqual(before.lines);
    expect(after.apply(caption({ id: 'o-2', final: 'Two.' }))).toBe(false);
    expect(after.apply(caption({ id: 'o-3', final: 'Three.' }))).toBe(true);
    expect(after.lines.map((line) => line.text)).toEqual(['Two.', 'Three.']);
    expect(new OverlayModel(options).restore([{ key: 1 } as never])).toBe(false);
  });
});

describe('a link lost and found', () => {
  test('one loss is one steady view until the link is back, whatever the attempts in between', () => {
    const watch = new LinkWatch();
    const views: string[] = [];
    const events = [
      { state: 'connecting' },
      { state: 'joined' },
      { state: 'waiting', code: 4003, reason: 'No word from the relay for 4.1 s', retryInMs: 500 },
      { state: 'connecting' },
      { state: 'waiting', code: 4003, reason: 'The relay did not answer within 10 s', retryInMs: 1000 },
      { state: 'connecting' },
      { state: 'waiting', code: 1006, reason: '', retryInMs: 2000 },
      { state: 'connecting' },
      { state: 'joined' },
    ] as const;
    let changes = 0;
    events.forEach((event, index) => {
      if (watch.apply(event, 1000 + index)) changes += 1;
      views.push(watch.state.view);
    });
    expect(views).toEqual(['connecting', 'joined', 'lost', 'lost', 'lost', 'lost', 'lost', 'lost', 'joined']);
    // Joined, lost, joined again: nothing for the attempts in between.
    expect(changes).toBe(3);
  });

  test('the first reason stays on the operator’s line; a refusal is said as one', () => {
    const watch = new LinkWatch();
    watch.apply({ state: 'joined' }, 0);
    const lostAt = new Date(2026, 10, 26, 14, 3, 5).getTime();
    watch.apply({ state: 'waiting', code: 4003, reason: 'No word from the relay for 4.1 s' }, lostAt);
    watch.apply({ state: 'waiting', code: 1006, reason: '' }, lostAt + 5000);
    expect(operatorLine('Source', watch.state)).toBe(
      'Source: reconnecting since 14:03:05 (no word from the relay for 4.1 s)',
    );
    watch.apply({ state: 'stopped', code: 1008, reason: 'Invalid room or token' }, 0);
    expect(operatorLine('Output', watch.state)).toBe('Output: refused (invalid room or token)');
    expect(operatorLine('Relay', { view: 'joined' })).toBe('Relay: joined');
  });
});

describe('the editor’s journal', () => {
  const rooms = 'source>output';
  const now = 1_800_000_000_000;
  const journal = {
    v: 1,
    rooms,
    savedAt: now - 5_000,
    floor: { epoch: 'e', sequence: 41 },
    pending: [sourceKey({ id: 'c-42', ln: 'en' }), sourceKey({ id: 'c-43', ln: 'en' })],
    draft: { key: sourceKey({ id: 'c-42', ln: 'en' }), text: 'edited' },
    sent: [{ id: 'c-41', text: 'Forty-one.', at: now - 9_000 }],
    unacked: [{ msg: true, final: 'Forty.', id: 'c-40', delivery: { client: 'p'.repeat(32), sequence: 40 } }],
  };

  test('resumes before the oldest caption not handled, and ids say which source caption went out', () => {
    expect(
      floorOf([{ relay: { epoch: 'e', sequence: 42 } }, { relay: { epoch: 'e', sequence: 45 } }], {
        epoch: 'e',
        sequence: 50,
      }),
    ).toEqual({ epoch: 'e', sequence: 41 });
    expect(floorOf([], { epoch: 'e', sequence: 50 })).toEqual({ epoch: 'e', sequence: 50 });
    expect(floorOf([], undefined)).toBeUndefined();
    expect(outputIdOf('c-42')).toBe('c-42');
    expect(outputIdOf(7, 2)).toBe('7~2');
    // A transcript and its translation share an id, not a key.
    expect(sourceKey({ id: 'c-1', ln: 'en' })).not.toBe(
      sourceKey({ id: 'c-1', ln: 'en', label: 'translation' }),
    );
  });

  test('is taken back for the same rooms only; a stale one gives back the Sent list alone', () => {
    expect(parseJournal(journal, rooms, now)).toEqual(journal);
    expect(parseJournal(journal, 'other>rooms', now)).toBeUndefined();
    expect(parseJournal({ ...journal, v: 2 }, rooms, now)).toBeUndefined();
    expect(parseJournal('garbage', rooms, now)).toBeUndefined();
    const stale = parseJournal({ ...journal, savedAt: now - RESUME_REVIEW_MS - 1 }, rooms, now)!;
    expect(stale).toEqual({
      v: 1,
      rooms,
      savedAt: now - RESUME_REVIEW_MS - 1,
      pending: [],
      sent: journal.sent,
      unacked: [],
    });
    const damaged = parseJournal(
      {
        ...journal,
        floor: { epoch: 'e', sequence: -1 },
        sent: [{ id: 1 }, ...journal.sent],
        pending: ['a', 3],
      },
      rooms,
      now,
    )!;
    expect(damaged.floor).toBeUndefined();
    expect(damaged.sent).toEqual(journal.sent);
    expect(damaged.pending).toEqual(['a']);
    expect(damaged.unacked).toEqual(journal.unacked);
  });

  test('the page says what came back', () => {
    expect(restoredLine({ review: 3, missing: 0, alreadySent: 0, sent: 40, resent: 1 })).toBe(
      'Restored after a reload: 3 captions back for review, 40 sent captions in the list and the exports, 1 unacknowledged caption sent again.',
    );
    expect(restoredLine({ review: 1, missing: 2, alreadySent: 1, sent: 1, resent: 0 })).toBe(
      'Restored after a reload: 1 caption back for review, 1 sent caption in the list and the exports, 1 caption had already gone out. 2 captions could not come back: the relay no longer holds them.',
    );
  });
});
