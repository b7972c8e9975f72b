import { describe, expect, it, jest } from '@jest/globals';
import type { CaptionRoom } from '@live-captions/protocol';
import { Client, TOKENS, until } from './helpers.js';
import { API_KEY, api, PAIR, startNode, tempDir } from './rooms-helpers.js';

// Each test opens a relay on an embedded PGlite (a WASM PostgreSQL): seconds on a quiet machine,
// far more beside CI's other suites.
jest.setTimeout(120_000);

async function joins(url: string, room: string, role: 'read' | 'write', token: string): Promise<boolean> {
  const client = await Client.open(url);
  client.send({ protocol: 2, join: room, role, token });
  const outcome = await Promise.race([
    client.count(1).then(
      (frames) => 'joined' in (frames[0] as object),
      () => false,
    ),
    client.closed.then(() => false),
  ]);
  client.close();
  return outcome;
}

describe('caption rooms API', () => {
  it('creates a room whose two relay rooms are served at once, with 256-bit tokens', async () => {
    const node = await startNode(tempDir());
    const created = await api(node, 'POST', '/rooms', { name: 'Main Hall (Janson)' });
    expect(created.status).toBe(201);
    const room = created.json.room as CaptionRoom;
    expect(room).toMatchObject({
      id: 'main-hall-janson',
      name: 'Main Hall (Janson)',
      sourceRoom: 'main-hall-janson',
      outputRoom: 'main-hall-janson-output',
      kind: 'api',
    });
    const tokens = Object.values(room.tokens);
    expect(new Set(tokens).size).toBe(4);
    // 32 random bytes in base64url: 43 characters, 256 bits.
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.headers.get('location')).toBe('/rooms/main-hall-janson');

    expect(await joins(node.ws, room.sourceRoom, 'write', room.tokens.sourceWrite)).toBe(true);
    expect(await joins(node.ws, room.outputRoom, 'read', room.tokens.outputRead)).toBe(true);
    expect(await joins(node.ws, room.outputRoom, 'read', room.tokens.sourceRead)).toBe(false);

    // The same name again gets the next free id.
    const again = await api(node, 'POST', '/rooms', { name: 'Main hall  janson' });
    expect(again.json.room.id).toBe('main-hall-janson-2');
  });

  it('lists the file pair and the rooms made, with an ETag that a poll can send back', async () => {
    const node = await startNode(tempDir());
    await api(node, 'POST', '/rooms', { name: 'Room B', id: 'room-b' });
    const list = await api(node, 'GET', '/rooms');
    expect(list.status).toBe(200);
    expect(list.json.rooms.map((room: CaptionRoom) => [room.id, room.kind])).toEqual([
      ['captions', 'file'],
      ['room-b', 'api'],
    ]);
    const etag = list.headers.get('etag')!;
    expect(etag).toBe(`"${list.json.version}"`);
    const same = await fetch(`${node.base}/rooms`, {
      headers: { authorization: `Bearer ${API_KEY}`, 'if-none-match': etag },
    });
    expect(same.status).toBe(304);
    await api(node, 'PATCH', '/rooms/room-b', { name: 'Room B (K.1.105)' });
    const moved = await fetch(`${node.base}/rooms`, {
      headers: { authorization: `Bearer ${API_KEY}`, 'if-none-match': etag },
    });
    expect(moved.status).toBe(200);
  });

  it('refuses a missing or wrong token, bad bodies with the field named, and conflicts', async () => {
    const node = await startNode(tempDir());
    expect((await api(node, 'GET', '/rooms', undefined, null)).status).toBe(401);
    expect((await api(node, 'GET', '/rooms', undefined, 'wrong-token-wrong-token-wrong')).status).toBe(401);
    const cases: [unknown, number, RegExp][] = [
      [{}, 400, /name: /],
      [{ name: '' }, 400, /name: must not be empty/],
      [{ name: 'a\u0000b' }, 400, /name: must not contain control characters/],
      [{ name: 'x'.repeat(81) }, 400, /name: must be at most 80/],
      [{ name: 'ok', id: 'Bad Id' }, 400, /id: /],
      [{ name: 'ok', id: 'x-output' }, 400, /id: must not end with -output/],
      [{ name: 'ok', color: 'red' }, 400, /color: unknown field/],
      ['{not json', 400, /body: not valid JSON/],
      [{ name: 'ok', id: 'captions' }, 409, /configuration file already has a room "captions"/],
      [{ name: 'ok', id: 'source' }, 409, /configuration file already has a room "source"/],
    ];
    for (const [body, status, message] of cases) {
      const answer = await api(node, 'POST', '/rooms', body);
      expect([answer.status, answer.json.error.message]).toEqual([status, expect.stringMatching(message)]);
    }
    expect((await api(node, 'POST', '/rooms', { name: 'x'.repeat(5000) })).status).toBe(413);
    await api(node, 'POST', '/rooms', { name: 'One', id: 'one' });
    expect((await api(node, 'POST', '/rooms', { name: 'Two', id: 'one' })).status).toBe(409);
    expect((await api(node, 'GET', '/rooms/nope')).status).toBe(404);
    expect((await api(node, 'PATCH', '/rooms/nope', { name: 'x' })).status).toBe(404);
    expect((await api(node, 'DELETE', '/rooms/nope')).status).toBe(404);
    const fileRoom = await api(node, 'DELETE', '/rooms/captions');
    expect(fileRoom.status).toBe(409);
    expect(fileRoom.json.error.message).toMatch(/configuration file/);
  });

  it('closes old sockets "Token changed" on rotation and "Room removed" on removal', async () => {
    const node = await startNode(tempDir());
    const room = (await api(node, 'POST', '/rooms', { name: 'Chamber' })).json.room as CaptionRoom;
    const reader = await Client.join(node.ws, room.outputRoom, 'read', room.tokens.outputRead);
    const rotated = (await api(node, 'POST', `/rooms/${room.id}/tokens`)).json.room as CaptionRoom;
    expect(rotated.tokens.outputRead).not.toBe(room.tokens.outputRead);
    expect(await reader.closed).toEqual({ code: 1008, reason: 'Token changed' });
    expect(await joins(node.ws, room.outputRoom, 'read', room.tokens.outputRead)).toBe(false);

    const fresh = await Client.join(node.ws, room.sourceRoom, 'write', rotated.tokens.sourceWrite);
    expect((await api(node, 'DELETE', `/rooms/${room.id}`)).status).toBe(204);
    expect(await fresh.closed).toEqual({ code: 1008, reason: 'Room removed' });
    expect((await api(node, 'GET', `/rooms/${room.id}`)).status).toBe(404);
    // The file's rooms are untouched.
    expect(await joins(node.ws, 'source', 'read', TOKENS.sourceRead)).toBe(true);
  });

  it('keeps the rooms through a restart of the relay (PGlite in its data folder)', async () => {
    const dir = tempDir();
    const first = await startNode(dir);
    const room = (await api(first, 'POST', '/rooms', { name: 'Overflow hall' })).json.room as CaptionRoom;
    await first.close();
    const second = await startNode(dir);
    expect((await api(second, 'GET', `/rooms/${room.id}`)).json.room).toEqual(room);
    expect(await joins(second.ws, room.sourceRoom, 'write', room.tokens.sourceWrite)).toBe(true);
  });

  it('without a service token configured answers loopback callers only', async () => {
    const node = await startNode(tempDir(), { apiKey: undefined });
    expect((await api(node, 'GET', '/rooms', undefined, null)).status).toBe(200);
  });

  it('answers the public list with read links only, never a write token', async () => {
    const node = await startNode(tempDir());
    const room = (await api(node, 'POST', '/rooms', { name: 'Room K' })).json.room as CaptionRoom;
    const writer = await Client.join(node.ws, room.outputRoom, 'write', room.tokens.outputWrite);
    const at = (n: number) => ({
      msg: true,
      final: `caption ${n}`,
      id: n,
      delivery: { client: 'publisher_000000001', sequence: n },
    });
    writer.send({ ...at(1), ln: 'en' });
    writer.send({ ...at(2), label: 'translation', ln: 'es' });
    await writer.count(2);
    writer.close();
    await until(() => node.relay.hub.activity(room.outputRoom)?.writers === 0);

    const answer = await api(node, 'GET', '/public/rooms', undefined, null);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    const listed = answer.json.rooms.find((entry: { id: string }) => entry.id === room.id);
    expect(listed).toEqual({
      id: room.id,
      name: 'Room K',
      outputRoom: room.outputRoom,
      outputReadToken: room.tokens.outputRead,
      live: true,
      languages: ['en', 'es'],
      venue: null,
    });
    const file = answer.json.rooms.find((entry: { id: string }) => entry.id === 'captions');
    expect(file.live).toBe(false);
    for (const secret of [
      room.tokens.sourceWrite,
      room.tokens.outputWrite,
      room.tokens.sourceRead,
      PAIR.captions.write,
    ])
      expect(answer.text).not.toContain(secret);
  });

  it("answers each room's activity to the service token: publishers (two is news), readers, captions of the last minute", async () => {
    const node = await startNode(tempDir());
    const room = (await api(node, 'POST', '/rooms', { name: 'Busy room' })).json.room as CaptionRoom;
    expect((await api(node, 'GET', '/activity/rooms', undefined, null)).status).toBe(401);
    const first = await Client.join(node.ws, room.sourceRoom, 'write', room.tokens.sourceWrite);
    const second = await Client.join(node.ws, room.sourceRoom, 'write', room.tokens.sourceWrite);
    const reader = await Client.join(node.ws, room.outputRoom, 'read', room.tokens.outputRead);
    for (let n = 1; n <= 3; n += 1)
      first.send({
        msg: true,
        final: `line ${n}`,
        id: n,
        ln: 'nl',
        delivery: { client: 'publisher_000000001', sequence: n },
      });
    await first.count(4);
    const answer = await api(node, 'GET', '/activity/rooms');
    const entry = answer.json.rooms.find((r: { id: string }) => r.id === room.id);
    expect(entry).toEqual({
      id: room.id,
      source: {
        publishers: 2,
        readers: 0,
        captionsLastMinute: 3,
        lastCaptionAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        languages: ['nl'],
      },
      output: { publishers: 0, readers: 1, captionsLastMinute: 0, lastCaptionAt: null, languages: [] },
    });
    for (const client of [first, second, reader]) client.close();
  });
});
