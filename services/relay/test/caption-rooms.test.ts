import { describe, expect, it } from '@jest/globals';
import { captionRoomIdFrom } from '@live-captions/protocol';
import {
  captionRooms,
  freeId,
  idTaken,
  type StoredCaptionRoom,
  servedRooms,
} from '../src/domain/caption-rooms.js';

const t = (c: string) => c.repeat(32);
const file = new Map([
  ['captions', { read: t('a'), write: t('b') }],
  ['captions-output', { read: t('c'), write: t('d') }],
  ['lonely', { read: t('e'), write: t('f') }],
]);
const stored = (id: string, createdAt: number): StoredCaptionRoom => ({
  id,
  name: id.toUpperCase(),
  tokens: {
    sourceRead: t(`${id}1`),
    sourceWrite: t(`${id}2`),
    outputRead: t(`${id}3`),
    outputWrite: t(`${id}4`),
  },
  createdAt,
  updatedAt: createdAt,
});

describe('caption rooms (domain)', () => {
  it('lists the file pairs first, then the registry by creation; a room without its -output pair is not a caption room', () => {
    const rooms = captionRooms(file, [stored('zed', 2), stored('abc', 1)]);
    expect(rooms.map((room) => [room.id, room.kind])).toEqual([
      ['captions', 'file'],
      ['abc', 'api'],
      ['zed', 'api'],
    ]);
    expect(rooms[0]!.tokens).toEqual({
      sourceRead: t('a'),
      sourceWrite: t('b'),
      outputRead: t('c'),
      outputWrite: t('d'),
    });
  });

  it('serves the file rooms and each registry room as two relay rooms; the file wins a clash', () => {
    const served = servedRooms(file, [stored('abc', 1), stored('lonely', 2)]);
    expect([...served.keys()]).toEqual(['captions', 'captions-output', 'lonely', 'abc', 'abc-output']);
    expect(served.get('lonely')).toEqual({ read: t('e'), write: t('f') });
  });

  it('refuses ids the file or the registry hold, and finds the next free one', () => {
    expect(idTaken('captions', file, [])).toMatch(/file already has a room "captions"/);
    expect(idTaken('lonely', file, [])).toMatch(/"lonely"/);
    expect(idTaken('abc', file, [stored('abc', 1)])).toMatch(/exists/);
    expect(freeId('abc', file, [stored('abc', 1), stored('abc-2', 2)])).toBe('abc-3');
    expect(freeId('x'.repeat(48), file, [stored('x'.repeat(48), 1)])).toBe(`${'x'.repeat(46)}-2`);
  });

  it('makes ids from names', () => {
    expect(captionRoomIdFrom('Main Hall (Janson)')).toBe('main-hall-janson');
    expect(captionRoomIdFrom('Salle Émile  Zola')).toBe('salle-emile-zola');
    expect(captionRoomIdFrom('会议室')).toBe('room');
    expect(captionRoomIdFrom('Track output')).toBe('track-out');
    expect(captionRoomIdFrom('a'.repeat(60))).toHaveLength(48);
  });
});
