/** The shared-room warning of a publisher (the page shows it: e2e/browser/first-event-scenarios.ts). */
import { describe, expect, test } from '@jest/globals';
import { sharedRoomWarning } from '../src/browser/lib/room-writers.js';

describe('a room with several publishers', () => {
  test('alone: nothing; with others: says so, with the way out', () => {
    expect(sharedRoomWarning(1, 'captions')).toBeUndefined();
    expect(sharedRoomWarning(2, 'captions')).toMatch(
      /^Another publisher is writing into the room "captions" too/,
    );
    expect(sharedRoomWarning(3, 'hall')).toMatch(/^2 other publishers are writing into the room "hall"/);
    expect(sharedRoomWarning(2, 'captions')).toMatch(/Close the other capture page/);
  });
});
