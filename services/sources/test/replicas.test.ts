/**
 * Two replicas on a private Redis share the stored sources through leases: SIGKILL the one
 * running a source and the other resumes it within 15 s, with a gap marker and no caption twice.
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import { killAll, type RedisServer, startRedisServer } from '@live-captions/test-services';
import { publish, startMediaServer } from './helpers/media.js';
import {
  api,
  type Base,
  createDatabase,
  finals,
  ROOM,
  type Running,
  startBase,
  startSources,
  until,
} from './helpers/stack.js';

jest.setTimeout(180_000);

let base: Base;
let redis: RedisServer;
const replicas: Running[] = [];

beforeAll(async () => {
  base = await startBase();
  redis = await startRedisServer();
  const env = {
    DATABASE_URL: await createDatabase(),
    REDIS_URL: redis.url,
    SOURCES_RTMP_PORT: '0',
    SOURCES_LEASE_MS: '4000',
  };
  replicas.push(await startSources(base, env), await startSources(base, env));
}, 120_000);

afterAll(async () => {
  await killAll(replicas.map((r) => r.proc));
  await redis?.stop();
  await base?.stop();
});

test("a replica's death moves its source to the other within 15 s", async () => {
  const media = await startMediaServer();
  const url = `rtmp://127.0.0.1:${media.port}/live/replicas`;
  const publisher = publish(url, 'flv');
  try {
    const [first] = replicas;
    const added = await api(first!.port, 'POST', '/sources', {
      room: ROOM,
      name: 'stage',
      input: { kind: 'pull', url },
    });
    expect(added.status).toBe(201);
    const id = added.json.source.id as string;
    const prefix = `${id.slice(0, 8)}-`;
    const ofSource = (label?: string) =>
      finals(base.captions, label).filter((c) => String(c.id).startsWith(prefix));
    const view = async (port: number) =>
      (await api(port, 'GET', `/sources/${id}`)).json.source as Record<string, unknown>;
    await until('captions from the source', () => ofSource().length >= 2, 60_000);
    const holder = String((await view(first!.port)).node);
    const dying = replicas.find((r) => holder.includes(`-${r.proc.child.pid}-`));
    const survivor = replicas.find((r) => r !== dying);
    expect(dying && survivor).toBeTruthy();
    // Both replicas show the same state: it is stored, not the asking replica's.
    expect((await view(survivor!.port)).state).toBe('live');

    const before = ofSource().length;
    const killedAt = Date.now();
    await killAll([dying!.proc]);
    await until(
      'the other replica runs it',
      async () => {
        const now = await view(survivor!.port);
        return now.state === 'live' && now.node !== holder;
      },
      30_000,
    );
    const movedSeconds = (Date.now() - killedAt) / 1000;
    console.log(`source moved to the other replica and live again after ${movedSeconds.toFixed(1)} s`);
    expect(movedSeconds).toBeLessThan(15);
    await until('captions again', () => ofSource().length >= before + 1, 30_000);
    await until(
      'a gap marker for the move',
      () => ofSource('gap').length > 0 || ofSource().length >= before + 2,
      30_000,
    );
    const ids = [...ofSource(), ...ofSource('gap')].map((c) => String(c.id));
    expect(new Set(ids).size).toBe(ids.length);
  } finally {
    await publisher.stop();
    await media.stop();
  }
});
