/**
 * The DeepL engine against its strict stand-in (packages/test-services): listing, batches of 50
 * with the context, no request over 128 KiB, quota and key errors (the key never in one), and a
 * redirect refused, not followed.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  type DeepLStandIn,
  type LibreTranslateStandIn,
  standInTranslation,
} from '@live-captions/test-services';
import type { EngineSettings } from '../src/index.js';
import { DEEPL_KEY, failure, type Harness, keyless, startHarness } from './engine-harness.js';

let harness: Harness | undefined;
let deepl: DeepLStandIn;
let elsewhere: LibreTranslateStandIn;
let engine: Harness['engine'];

beforeAll(async () => {
  harness = await startHarness({ apertium: false });
  ({ deepl, elsewhere, engine } = harness);
}, 60_000);

afterAll(() => harness?.stop());

describe('DeepL (stand-in)', () => {
  const settings = (): EngineSettings => ({ kind: 'deepl', url: deepl.url, key: DEEPL_KEY });

  test('lists its targets for a source it takes, none for one it does not', async () => {
    expect((await engine(settings()).targets('en')).map((target) => target.code)).toEqual([
      'de',
      'es',
      'fr',
      'pt-BR',
      'pt-PT',
      'zh-Hans',
    ]);
    expect(await engine(settings()).targets('ca')).toEqual([]);
    for (const request of deepl.requests)
      expect(request.headers.authorization).toBe(`DeepL-Auth-Key ${DEEPL_KEY}`);
  });

  test('120 texts go as 50 + 50 + 20, in order, each with the context', async () => {
    const before = deepl.requests.length;
    const texts = Array.from({ length: 120 }, (_, index) => `caption number ${index}`);
    const out = await engine(settings()).translate({
      source: 'en',
      target: 'pt-BR',
      texts,
      context: 'the previous one',
    });
    expect(out).toEqual(texts.map(standInTranslation));
    const bodies = deepl.requests.slice(before).map((request) => JSON.parse(request.body));
    expect(bodies.map((body) => body.text.length)).toEqual([50, 50, 20]);
    expect(bodies[0]).toMatchObject({ source_lang: 'EN', target_lang: 'PT-BR', context: 'the previous one' });
    expect(deepl.contexts.slice(-3)).toEqual(['the previous one', 'the previous one', 'the previous one']);
  });

  test('no request is over 128 KiB: large texts are spread over requests', async () => {
    const before = deepl.requests.length;
    const big = 'word '.repeat(10_000); // 50 kB each
    const out = await engine(settings()).translate({ source: 'en', target: 'es', texts: [big, big, big] });
    expect(out).toHaveLength(3);
    const sizes = deepl.requests.slice(before).map((request) => Buffer.byteLength(request.body));
    expect(sizes).toHaveLength(2);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(128 * 1024);
  });

  test('456 quota and 403 are not retryable, 429 and 503 are; the key is never in an error', async () => {
    deepl.script({ status: 456 }, { status: 429 }, { status: 503 });
    const call = () => engine(settings()).translate({ source: 'en', target: 'es', texts: ['hello there'] });
    const quota = await failure(call());
    expect(quota).toMatchObject({ code: 'engine_quota', status: 456, retryable: false });
    expect(quota.message).toBe('DeepL answered 456: Quota exceeded');
    expect(await failure(call())).toMatchObject({
      code: 'engine_rate_limited',
      status: 429,
      retryable: true,
    });
    expect(await failure(call())).toMatchObject({ code: 'engine_failed', status: 503, retryable: true });

    const wrong = 'deepl-WRONG-0000-1111-2222:fx';
    const denied = await failure(
      engine({ ...settings(), key: wrong }).translate({ source: 'en', target: 'es', texts: ['x y'] }),
    );
    expect(denied).toMatchObject({ code: 'engine_auth', status: 403, retryable: false });
    keyless(denied, wrong);
    // A pro key on the free host: DeepL says which host to use.
    const pro = 'deepl-PRO-0000-1111-2222';
    const wrongHost = await failure(
      engine({ ...settings(), key: pro }).translate({ source: 'en', target: 'es', texts: ['x y'] }),
    );
    expect(wrongHost.message).toContain('Wrong endpoint');
    for (const error of [quota, denied, wrongHost]) keyless(error, DEEPL_KEY);
  });

  test('a redirect is refused, not followed', async () => {
    const before = elsewhere.requests.length;
    deepl.script({ redirect: `${elsewhere.url}/v2/translate` });
    const error = await failure(engine(settings()).translate({ source: 'en', target: 'es', texts: ['x y'] }));
    expect(error).toMatchObject({ code: 'engine_redirect', status: 302, retryable: false });
    expect(elsewhere.requests.length).toBe(before);
  });
});
