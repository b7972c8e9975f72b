/**
 * The translation stage on two replicas (one database, a private Redis for the leases) with a real
 * APy: only the replica holding the room's lease translates; SIGKILL it mid-stream and the other
 * takes the room over with its translator (the same leases, no second machinery), and every
 * caption's translation reaches the room's readers once, in order.
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import type { RelayCaption, Translation } from '@live-captions/protocol';
import { createReader, type RelayPublisher, type RelayReader } from '@live-captions/relay-client/node';
import {
  type ApertiumServer,
  type RedisServer,
  startApertium,
  startRedisServer,
} from '@live-captions/test-services';
import { api, kill, publisher, ROOM, type Running, startOutputs, TOKENS, until } from './helpers/index.js';
import { redisEnv, startRelayStack } from './helpers/stack.js';

jest.setTimeout(240_000);

let redis: RedisServer;
let apy: ApertiumServer;
let relay: Running | undefined;
const replicas: Running[] = [];
let writer: RelayPublisher | undefined;
let reader: RelayReader | undefined;
const received: RelayCaption[] = [];

beforeAll(async () => {
  [redis, apy] = await Promise.all([startRedisServer(), startApertium()]);
  const stack = await startRelayStack({ allowed: [] });
  relay = stack.relay;
  const env = {
    ...stack.env,
    ...redisEnv(redis.url),
    OUTPUTS_APERTIUM_URL: apy.url,
    OUTPUTS_TRANSLATION_TIMEOUT_MS: '20000',
  };
  replicas.push(await startOutputs(env), await startOutputs(env));
}, 180_000);

afterAll(async () => {
  reader?.close();
  writer?.close();
  for (const replica of replicas) await kill(replica);
  await kill(relay);
  await apy?.stop();
  await redis?.stop();
});

const held = async (replica: Running) =>
  ((await api(replica.port, 'GET', '/health', '')).json as { leases: { held: number } }).leases.held;
const spanish = () => received.filter((c) => c.label === 'translation' && c.ln === 'es');

test('only the holder translates; after its SIGKILL the other takes over, losing and repeating nothing', async () => {
  const [first, second] = replicas as [Running, Running];
  const added = await api(first.port, 'POST', `/rooms/${ROOM}/translations`, TOKENS.write, {
    target: 'es',
    engine: 'apertium',
  });
  expect(added.status).toBe(201);
  await until('a replica holds the room', async () => (await held(first)) + (await held(second)) === 1);
  const holder = (await held(first)) === 1 ? first : second;
  const other = holder === first ? second : first;
  await until('the holder reads the room', async () => {
    const health = (await api(holder.port, 'GET', '/health', '')).json as { relay: string };
    return health.relay === 'connected';
  });
  reader = createReader({
    url: `ws://127.0.0.1:${relay!.port}/ws`,
    room: ROOM,
    token: TOKENS.read,
    onCaption: (caption) => received.push(caption),
  });
  writer = publisher(relay!.port);
  await until('joined', () => reader?.state === 'joined' && writer?.state === 'joined');

  const ids: string[] = [];
  let n = 0;
  const timer = setInterval(() => {
    n += 1;
    ids.push(`r${n}`);
    writer?.publish({ final: `Item ${n} of the agenda is the library roof.`, id: `r${n}` });
  }, 300);
  await until('translations flow', () => spanish().length >= 3, 60_000);
  // The other replica runs no translator: it never logged a translation state.
  expect(other.proc.logLines(/^translation state$/)).toEqual([]);

  await kill(holder);
  const killedAt = Date.now();
  await until('the other replica holds the room', async () => (await held(other)) === 1, 30_000);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  clearInterval(timer);
  await until(
    'every caption translated',
    async () => {
      const seen = new Set(spanish().map((c) => String(c.id)));
      const listed = (await api(other.port, 'GET', `/rooms/${ROOM}/translations`, TOKENS.write)).json as {
        translations: Translation[];
      };
      return ids.every((id) => seen.has(id)) && listed.translations[0]!.behind === 0;
    },
    60_000,
  );
  console.log(`takeover: every caption translated ${Date.now() - killedAt} ms after the SIGKILL`);
  expect([...new Set(spanish().map((c) => String(c.id)))]).toEqual(ids);
  // Each caption once: one sentence per caption, so one frame per id (no correction), none twice.
  expect(spanish().map((c) => String(c.id))).toEqual(ids);
  for (const caption of spanish()) expect(caption.final).toMatch(/bibliotec/i);
});
