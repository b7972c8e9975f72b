/**
 * Faults at a conference (issue "A whole conference at once", point 6), 20 caption rooms running,
 * real processes: an outputs replica SIGKILLed (every room resumes within a lease, nothing acked
 * lost), PostgreSQL restarted, a room removed while live (clean stop, its transcript kept), a room
 * created while the others run, the relay restarted; and a stream sources replica SIGKILLed (every
 * room's source runs again on the other within a lease).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CaptionRoom } from '@live-captions/protocol';
import { callApi, killAll } from '@live-captions/test-services';
import { API_KEY, type Conference, startConference, until } from './stack.js';

const ROOMS = 20;
const LEASE_MS = 3000;

let conference: Conference;

/** Rooms an outputs replica reads (holds the lease of). */
const heldBy = async (port: number) =>
  ((await callApi(port, 'GET', '/health', '')).json as { leases: { held: number } }).leases.held;
/** Captions each room's publisher had acknowledged by the relay, per room id. */
const acked = new Map<string, number>();

/** Publishes one caption in every room (or `only`) and waits until the relay acknowledged each. */
async function publishEverywhere(label: string, only?: CaptionRoom[]): Promise<void> {
  const rooms = only ?? conference.rooms;
  for (const room of rooms) {
    const n = (acked.get(room.id) ?? 0) + 1;
    conference.publishers
      .get(room.id)!
      .publish({ final: `${label} in ${room.name}.`, id: `${room.id}-${n}` });
    acked.set(room.id, n);
  }
  await until(
    `every publisher acknowledged (${label})`,
    () => rooms.every((room) => conference.publishers.get(room.id)!.queued === 0),
    60_000,
  );
}

/** Waits until every room's archive holds exactly what its publisher had acknowledged. */
async function everyCaptionArchived(what: string, rooms = conference.rooms, timeoutMs = 60_000) {
  let counts: number[] = [];
  try {
    await until(
      what,
      async () => {
        counts = await Promise.all(rooms.map((room) => conference.archived(room)));
        return counts.every((count, index) => count === acked.get(rooms[index]!.id));
      },
      timeoutMs,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}: archived ${counts.join(',')}`);
  }
}

beforeAll(async () => {
  conference = await startConference();
  await conference.startOutputs();
  await conference.startOutputs();
  for (let index = 1; index <= ROOMS; index += 1) await conference.createRoom(`Room ${index}`);
  // Each room's archive, added with its output room's write token once outputs know the room.
  for (const room of conference.rooms) {
    await until(`an archive in ${room.id}`, async () => {
      const port = conference.outputs[0]!.port;
      const path = `/rooms/${room.outputRoom}/destinations`;
      return (await callApi(port, 'POST', path, room.tokens.outputWrite, { kind: 'archive' })).status === 201;
    });
  }
  // Both replicas read all the rooms between them before the first caption.
  await until(
    'every room read by a replica',
    async () => {
      const held = await Promise.all(conference.outputs.map(async (o) => heldBy(o.port)));
      return held.reduce((a: number, b: number) => a + b, 0) === ROOMS;
    },
    60_000,
  );
}, 300_000);

afterAll(async () => {
  await conference?.stop();
}, 60_000);

describe(`a conference of ${ROOMS} rooms`, () => {
  it('archives every room', async () => {
    await publishEverywhere('Welcome');
    await everyCaptionArchived('the first caption of every room');
  }, 120_000);

  it('an outputs replica SIGKILLed: every room resumes on the other within a lease, nothing acked lost', async () => {
    const [victim] = conference.outputs;
    await killAll([victim!.proc]);
    const killed = Date.now();
    await publishEverywhere('After the replica died');
    await everyCaptionArchived('every room archived by the survivor');
    const took = Date.now() - killed;
    console.log(
      `outputs replica SIGKILLed: all ${ROOMS} rooms archived again after ${took} ms (lease ${LEASE_MS} ms)`,
    );
    expect(took).toBeLessThan(LEASE_MS + 20_000);
  }, 120_000);

  it('PostgreSQL restarted: the rooms stay served, captions published meanwhile are archived once', async () => {
    await conference.pg.stop();
    // The relay serves every room from what it holds: publishers are acknowledged.
    await publishEverywhere('During the database restart');
    const status = await conference.relayApi('POST', '/rooms', { name: 'Not now' });
    expect(status.status).toBe(503);
    await conference.pg.start();
    await everyCaptionArchived('every caption of the outage archived', conference.rooms, 90_000);
  }, 180_000);

  it('a room removed while live: the relay forgets it, outputs release it within 5 s, its transcript kept', async () => {
    const room = conference.rooms.pop()!;
    const publisher = conference.publishers.get(room.id)!;
    const held = async () =>
      (
        await Promise.all(
          conference.outputs
            .filter((o) => o.proc.child.exitCode === null && o.proc.child.signalCode === null)
            .map((o) => heldBy(o.port)),
        )
      ).reduce((a, b) => a + b, 0);
    expect(await held()).toBe(ROOMS);
    expect((await conference.relayApi('DELETE', `/rooms/${room.id}`)).status).toBe(204);
    publisher.close();
    conference.publishers.delete(room.id);
    expect((await conference.relayApi('GET', `/rooms/${room.id}`)).status).toBe(404);
    // The outputs replica stops reading it (a clean stop, its lease released).
    await until('the removed room released', async () => (await held()) === ROOMS - 1, 5000);
    // The transcript outlives the room: the operator reads it with the service token.
    const port = conference.outputs[1]!.port;
    const answer = await callApi(port, 'GET', `/rooms/${room.outputRoom}/archive`, API_KEY);
    expect(answer.status).toBe(200);
    const sessions = (answer.json as { sessions: { captions: number }[] }).sessions;
    expect(sessions.reduce((sum, s) => sum + s.captions, 0)).toBe(acked.get(room.id));
    // Its tokens are gone everywhere within 2 s: the outputs API refuses them.
    await until(
      'the removed room refused by outputs',
      async () => {
        const refused = await callApi(
          port,
          'GET',
          `/rooms/${room.outputRoom}/destinations`,
          room.tokens.outputWrite,
        );
        return refused.status === 401;
      },
      2000,
    );
  }, 60_000);

  it('a room created while the others run is archived, and the others carry on', async () => {
    const room = await conference.createRoom('Late room');
    const port = conference.outputs[1]!.port;
    await until(
      'the late room known by outputs',
      async () => {
        const path = `/rooms/${room.outputRoom}/destinations`;
        return (
          (await callApi(port, 'POST', path, room.tokens.outputWrite, { kind: 'archive' })).status === 201
        );
      },
      5000,
    );
    await until('the late room read', async () => (await heldBy(port)) === ROOMS);
    await publishEverywhere('With the late room');
    await everyCaptionArchived('the late room and the others archived');
  }, 120_000);

  it('the relay restarted (its rooms from PostgreSQL): publishers reconnect, nothing lost, no gap marker', async () => {
    await killAll([conference.relay.proc]);
    await conference.startRelay();
    await publishEverywhere('After the relay restart');
    await everyCaptionArchived('every caption after the relay restart archived', conference.rooms, 90_000);
    const port = conference.outputs[1]!.port;
    for (const room of conference.rooms.slice(0, 3)) {
      const list = await callApi(port, 'GET', `/rooms/${room.outputRoom}/archive`, API_KEY);
      const session = (list.json as { sessions: { id: string }[] }).sessions.at(-1)!;
      const file = await fetch(
        `http://127.0.0.1:${port}/rooms/${room.outputRoom}/archive/${session.id}.txt`,
        {
          headers: { authorization: `Bearer ${API_KEY}` },
        },
      );
      expect(await file.text()).not.toContain('missing');
    }
  }, 180_000);
});

describe('stream sources of the conference', () => {
  it('a sources replica SIGKILLed: every room has its source running on the other within a lease', async () => {
    const first = await conference.startSources();
    const second = await conference.startSources();
    const rooms = conference.rooms;
    for (const room of rooms) {
      const made = await callApi(first.port, 'POST', '/sources', API_KEY, {
        room: room.sourceRoom,
        name: `Stream of ${room.name}`,
        input: { kind: 'pull', url: `http://127.0.0.1:9/${room.id}.mp3` },
        running: true,
      });
      expect(made.status).toBe(201);
    }
    const nodes = async () => {
      const list = await callApi(second.port, 'GET', '/sources', API_KEY);
      return ((list.json as { sources: { node: string | null }[] }).sources ?? []).map((s) => s.node);
    };
    await until(
      'every source running somewhere',
      async () => (await nodes()).every((node) => node !== null),
      60_000,
    );
    const firstNode = ((await callApi(first.port, 'GET', '/health', '')).json as { node: string }).node;
    await killAll([first.proc]);
    const killed = Date.now();
    await until(
      'every source on the survivor',
      async () => (await nodes()).every((node) => node !== null && node !== firstNode),
      LEASE_MS + 30_000,
    );
    console.log(
      `sources replica SIGKILLed: all ${rooms.length} sources moved after ${Date.now() - killed} ms`,
    );
  }, 240_000);
});
