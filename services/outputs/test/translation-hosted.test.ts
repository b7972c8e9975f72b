/**
 * The translation stage with the hosted engines' strict stand-ins (LibreTranslate with a required
 * `api_key`, DeepL with a free key), the relay and the outputs service as processes: each target's
 * track reaches the room's readers; the engines' failures cost only their own track (a 503 waits
 * and catches up, a 456 quota is `failing` until it passes, a text refused with a 400 is skipped
 * and the track goes on); keys reach the engines as their contracts say and never the logs or the
 * API's answers.
 */
import { afterAll, afterEach, beforeAll, expect, jest, test } from '@jest/globals';
import type { RelayCaption, Translation } from '@live-captions/protocol';
import { createReader, type RelayPublisher, type RelayReader } from '@live-captions/relay-client/node';
import {
  type DeepLStandIn,
  type LibreTranslateStandIn,
  standInTranslation,
  startDeepLStandIn,
  startLibreTranslateStandIn,
} from '@live-captions/test-services';
import {
  api,
  kill,
  publisher,
  ROOM,
  type Running,
  reading,
  startOutputs,
  TOKENS,
  until,
} from './helpers/index.js';
import { startRelayStack } from './helpers/stack.js';

jest.setTimeout(240_000);

const LIBRE_KEY = 'libre-SECRET-key-5678abcd';
const DEEPL_KEY = 'deepl-SECRET-0000-1111-2222:fx';
let libre: LibreTranslateStandIn;
let deepl: DeepLStandIn;
let relay: Running | undefined;
let outputs: Running | undefined;
let writer: RelayPublisher | undefined;
let reader: RelayReader | undefined;
const received: RelayCaption[] = [];

beforeAll(async () => {
  [libre, deepl] = await Promise.all([
    startLibreTranslateStandIn({ apiKey: LIBRE_KEY, requireKey: true }),
    startDeepLStandIn({ key: DEEPL_KEY }),
  ]);
  const stack = await startRelayStack({ allowed: [libre.port, deepl.port] });
  relay = stack.relay;
  outputs = await startOutputs({
    ...stack.env,
    OUTPUTS_TRANSLATION_TIMEOUT_MS: '2000',
    OUTPUTS_RETRY_MAX_MS: '1000',
    OUTPUTS_FAILING_RETRY_MS: '1500',
  });
  for (const body of [
    { target: 'fr', engine: 'libretranslate', url: libre.url, key: LIBRE_KEY },
    { target: 'de', engine: 'deepl', url: deepl.url, key: DEEPL_KEY },
  ]) {
    const added = await api(outputs.port, 'POST', `/rooms/${ROOM}/translations`, TOKENS.write, body);
    expect(added.status).toBe(201);
    expect(added.text).not.toContain('SECRET');
  }
  await reading(outputs.port);
  reader = createReader({
    url: `ws://127.0.0.1:${relay.port}/ws`,
    room: ROOM,
    token: TOKENS.read,
    onCaption: (caption) => received.push(caption),
  });
  writer = publisher(relay.port);
  await until('joined', () => reader?.state === 'joined' && writer?.state === 'joined');
}, 120_000);

afterAll(async () => {
  reader?.close();
  writer?.close();
  const log = outputs?.proc.output() ?? '';
  await kill(outputs);
  await kill(relay);
  await Promise.all([libre?.close(), deepl?.close()]);
  // Keys never logged; nor caption text.
  expect(log).not.toContain('SECRET');
  expect(log).not.toContain('quarterly');
});

afterEach(() => {
  expect([...libre.violations, ...deepl.violations]).toEqual([]);
});

const latest = (ln: string, id: string) =>
  received.filter((c) => c.label === 'translation' && c.ln === ln && c.id === id).at(-1)?.final;
async function targets(): Promise<Translation[]> {
  const res = await api(outputs!.port, 'GET', `/rooms/${ROOM}/translations`, TOKENS.write);
  expect(res.text).not.toContain('SECRET');
  return (res.json as { translations: Translation[] }).translations;
}
const byTarget = async (target: string) => (await targets()).find((t) => t.target === target)!;

test('LibreTranslate and DeepL tracks reach the readers; keys as the contracts say', async () => {
  writer!.publish({ final: 'The quarterly report is ready.', id: 'h1' });
  await until('both tracks', () => latest('fr', 'h1') !== undefined && latest('de', 'h1') !== undefined);
  expect(latest('fr', 'h1')).toBe(standInTranslation('The quarterly report is ready.'));
  expect(latest('de', 'h1')).toBe(standInTranslation('The quarterly report is ready.'));
  const libreCall = libre.requests.find((r) => r.path === '/translate')!;
  expect(JSON.parse(libreCall.body)).toMatchObject({ api_key: LIBRE_KEY, source: 'en', target: 'fr' });
  const deeplCall = deepl.requests.find((r) => r.path === '/v2/translate')!;
  expect(deeplCall.headers.authorization).toBe(`DeepL-Auth-Key ${DEEPL_KEY}`);
  expect(JSON.parse(deeplCall.body)).toMatchObject({ target_lang: 'DE', source_lang: 'EN' });
  const listed = await targets();
  expect(listed.map((t) => [t.target, t.key])).toEqual([
    ['fr', '…abcd'],
    ['de', '…2:fx'],
  ]);
});

test('a 503 waits and catches up; the other track does not wait', async () => {
  libre.script({ status: 503 }, { status: 503 }, { status: 503 });
  writer!.publish({ final: 'The vote is next.', id: 'h2' });
  await until('the DeepL track', () => latest('de', 'h2') !== undefined);
  await until('the LibreTranslate track after its retries', () => latest('fr', 'h2') !== undefined, 30_000);
  const fr = await byTarget('fr');
  expect(fr.lastError?.message).toMatch(/LibreTranslate answered 503/);
  await until('translating', async () => (await byTarget('fr')).state === 'translating');
});

test('an engine that hangs: abandoned after the timeout, retried, caught up', async () => {
  libre.script('hang');
  writer!.publish({ final: 'The minutes are approved.', id: 'hang1' });
  await until('the DeepL track', () => latest('de', 'hang1') !== undefined);
  await until('waiting', async () => (await byTarget('fr')).state === 'waiting', 30_000);
  expect((await byTarget('fr')).lastError?.message).toMatch(/did not answer within 2000 ms/);
  await until('translated after the retry', () => latest('fr', 'hang1') !== undefined, 30_000);
  expect(latest('fr', 'hang1')).toBe(standInTranslation('The minutes are approved.'));
});

test('DeepL quota exceeded (456): failing, then translating once the quota is back', async () => {
  deepl.script({ status: 456 });
  writer!.publish({ final: 'The budget passes.', id: 'h3' });
  await until('failing', async () => (await byTarget('de')).state === 'failing', 30_000);
  const de = await byTarget('de');
  expect(de.lastError?.message).toMatch(/DeepL answered 456/);
  expect(de.behind).toBeGreaterThan(0);
  await until('translated after the slow retry', () => latest('de', 'h3') !== undefined, 30_000);
  await until('translating again', async () => (await byTarget('de')).state === 'translating');
});

test('a text the engine refuses for good is skipped; the track goes on', async () => {
  libre.script({ status: 400, message: 'Invalid request: cannot translate this' });
  writer!.publish({ final: 'This one is refused.', id: 'h4' });
  writer!.publish({ final: 'This one is fine.', id: 'h5' });
  await until('the caption after the refused one', () => latest('fr', 'h5') !== undefined, 30_000);
  expect(latest('fr', 'h4')).toBeUndefined();
  const fr = await byTarget('fr');
  expect(fr.lastError?.message).toMatch(/^caption skipped: LibreTranslate answered 400/);
  // Nothing left behind it (the ack of h5's frame may still be on its way).
  await until('nothing behind', async () => (await byTarget('fr')).behind === 0);
  expect(latest('de', 'h4')).toBe(standInTranslation('This one is refused.'));
});
