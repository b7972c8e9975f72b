import { describe, expect, it, jest } from '@jest/globals';
import type { CaptionRoom } from '@live-captions/protocol';
import { api, startNode, tempDir } from './rooms-helpers.js';

// Each test opens a relay on an embedded PGlite: seconds on a quiet machine, more beside CI.
jest.setTimeout(120_000);

describe('a caption room bound to a calendar venue', () => {
  it('binds with the default lead and tail, takes a hold, releases it and unbinds', async () => {
    const node = await startNode(tempDir());
    await api(node, 'POST', '/rooms', { name: 'Janson', id: 'janson' });

    const bound = await api(node, 'PATCH', '/rooms/janson', { schedule: { venue: 12 } });
    expect(bound.status).toBe(200);
    expect(bound.json.room.schedule).toEqual({ venue: 12, leadSeconds: 300, tailSeconds: 300, hold: null });

    const held = await api(node, 'PATCH', '/rooms/janson', { hold: 'off' });
    expect(held.json.room.schedule.hold).toBe('off');
    // A new lead and tail keep the operator's hand.
    const moved = await api(node, 'PATCH', '/rooms/janson', {
      schedule: { venue: 13, leadSeconds: 600, tailSeconds: 0 },
    });
    expect(moved.json.room.schedule).toEqual({ venue: 13, leadSeconds: 600, tailSeconds: 0, hold: 'off' });
    const released = await api(node, 'PATCH', '/rooms/janson', { hold: null });
    expect(released.json.room.schedule.hold).toBeNull();

    const listed = await api(node, 'GET', '/rooms');
    expect(listed.json.rooms.find((room: CaptionRoom) => room.id === 'janson').schedule.venue).toBe(13);
    const publicList = await api(node, 'GET', '/public/rooms', undefined, null);
    expect(
      publicList.json.rooms.map((room: { id: string; venue: number | null }) => [room.id, room.venue]),
    ).toEqual([
      ['captions', null],
      ['janson', 13],
    ]);

    await api(node, 'PATCH', '/rooms/janson', { hold: 'on' });
    const unbound = await api(node, 'PATCH', '/rooms/janson', { schedule: null });
    expect(unbound.json.room.schedule).toBeNull();
    // The hold went with the binding: binding again starts from the calendar, not from the hand.
    const again = await api(node, 'PATCH', '/rooms/janson', { schedule: { venue: 13 } });
    expect(again.json.room.schedule.hold).toBeNull();
  });

  it('binds a room of the file too, though its name stays the file’s', async () => {
    const node = await startNode(tempDir());
    const bound = await api(node, 'PATCH', '/rooms/captions', { schedule: { venue: 1 }, hold: 'on' });
    expect(bound.status).toBe(200);
    expect(bound.json.room).toMatchObject({ kind: 'file', schedule: { venue: 1, hold: 'on' } });
    const renamed = await api(node, 'PATCH', '/rooms/captions', { name: 'Sanctuary' });
    expect(renamed.status).toBe(409);
  });

  it('refuses a hold without a venue and wrong values, each named', async () => {
    const node = await startNode(tempDir());
    await api(node, 'POST', '/rooms', { name: 'Hall', id: 'hall' });
    const hold = await api(node, 'PATCH', '/rooms/hall', { hold: 'on' });
    expect(hold.status).toBe(409);
    expect(hold.json.error.message).toMatch(/no venue/);

    const cases: [unknown, RegExp][] = [
      [{}, /name the change/],
      [{ schedule: { venue: 0 } }, /schedule\.venue: must be a venue id/],
      [{ schedule: { venue: '12' } }, /schedule\.venue: must be a venue id/],
      [{ schedule: { venue: 2, leadSeconds: 3601 } }, /schedule\.leadSeconds: must be at most 3600/],
      [{ schedule: { venue: 2, tailSeconds: -1 } }, /schedule\.tailSeconds: must not be negative/],
      [{ schedule: { venue: 2, hold: 'on' } }, /schedule\.hold: unknown field|hold: unknown field/],
      [{ hold: 'maybe' }, /hold: must be "on", "off" or null/],
    ];
    for (const [body, message] of cases) {
      const refused = await api(node, 'PATCH', '/rooms/hall', body);
      expect([refused.status, refused.json.error.code]).toEqual([400, 'invalid_request']);
      expect(refused.json.error.message).toMatch(message);
    }
    expect((await api(node, 'GET', '/rooms/hall')).json.room.schedule).toBeNull();
    expect((await api(node, 'PATCH', '/rooms/nowhere', { schedule: { venue: 2 } })).status).toBe(404);
  });

  it('keeps bindings across a restart, and a removed room forgets its own', async () => {
    const dir = tempDir();
    const first = await startNode(dir);
    await api(first, 'POST', '/rooms', { name: 'Hall', id: 'hall' });
    await api(first, 'PATCH', '/rooms/hall', { schedule: { venue: 7, leadSeconds: 120 }, hold: 'off' });
    await first.close();

    const second = await startNode(dir);
    expect((await api(second, 'GET', '/rooms/hall')).json.room.schedule).toEqual({
      venue: 7,
      leadSeconds: 120,
      tailSeconds: 300,
      hold: 'off',
    });
    expect((await api(second, 'DELETE', '/rooms/hall')).status).toBe(204);
    await api(second, 'POST', '/rooms', { name: 'Hall', id: 'hall' });
    expect((await api(second, 'GET', '/rooms/hall')).json.room.schedule).toBeNull();
  });
});
