/**
 * A caption room's links on the links hub's board and the public page's lines (pure): each link
 * carries only its page's tokens, in the fragment; the short link carries none. The board and
 * the public page themselves run in chromium against a real relay: e2e/browser/rooms-board.test.ts.
 */
import { describe, expect, test } from '@jest/globals';
import { requestedRoom, roomStateLine } from '../src/browser/lib/now-rooms.js';
import { roomLinks, shortRoomLink } from '../src/browser/lib/room-links.js';
import { roomsProblem } from '../src/browser/lib/rooms-client.js';
import { ServiceRequestError } from '../src/browser/lib/service-request.js';

const SITE = 'https://ui.example.org/';
const RELAY = 'wss://relay.example.org/ws';
const room = {
  sourceRoom: 'main-hall',
  outputRoom: 'main-hall-output',
  tokens: {
    sourceRead: 'SR-token',
    sourceWrite: 'SW-token',
    outputRead: 'OR-token',
    outputWrite: 'OW-token',
  },
};

const fragmentOf = (link: string | null) => new URLSearchParams(new URL(link ?? '').hash.slice(1));
const tokensIn = (link: string | null) =>
  ['SR-token', 'SW-token', 'OR-token', 'OW-token'].filter((token) => (link ?? '').includes(token));

describe("a caption room's links", () => {
  test('each page gets only its tokens, in the fragment', () => {
    const links = roomLinks(SITE, 'https://capture.example.org/', RELAY, room, { maxlines: 2 });
    expect(tokensIn(links.capture)).toEqual(['SW-token']);
    expect(fragmentOf(links.capture).get('room')).toBe('main-hall');
    expect(tokensIn(links.editor)).toEqual(['SR-token', 'OR-token', 'OW-token']);
    expect(tokensIn(links.overlay)).toEqual(['OR-token']);
    expect(new URL(links.overlay ?? '').search).toBe('?maxlines=2');
    expect(tokensIn(links.audience)).toEqual(['OR-token']);
    expect(fragmentOf(links.audience).get('room')).toBe('main-hall-output');
    for (const link of Object.values(links)) expect(new URL(link ?? '').search).not.toContain('token');
  });

  test('no capture host: no capture link, the others stay', () => {
    const links = roomLinks(SITE, null, RELAY, room);
    expect(links.capture).toBeNull();
    expect(links.editor).toContain('editor.html#');
  });

  test('the short link names the room and carries no token', () => {
    expect(shortRoomLink(SITE, 'main-hall')).toBe('https://ui.example.org/now.html?room=main-hall');
    expect(requestedRoom('https://ui.example.org/now.html?room=main-hall')).toBe('main-hall');
    expect(requestedRoom('https://ui.example.org/now.html')).toBeUndefined();
  });
});

describe('the public page', () => {
  const name = (code: string) => ({ en: 'English', es: 'Spanish' })[code] ?? code;
  test('live or not, and the languages it was captioned in lately', () => {
    expect(roomStateLine({ live: true, languages: ['en', 'es'] }, name)).toBe(
      'Captioning now · English, Spanish',
    );
    expect(roomStateLine({ live: false, languages: [] }, name)).toBe('Not live');
  });
});

describe("the board's line for a failed request", () => {
  const base = 'http://127.0.0.1:8080/';
  test("the relay's own message, or what to check when the browser cannot say", () => {
    expect(roomsProblem(new ServiceRequestError('No room "x"', 404), base)).toBe('No room "x"');
    expect(roomsProblem(new ServiceRequestError('The relay cannot be reached', 0), base)).toContain(
      'is the relay started with a rooms store (RELAY_DATA_DIR or DATABASE_URL)',
    );
    expect(roomsProblem(new ServiceRequestError('The relay answered 404', 404), base)).toContain(base);
  });
});
