/**
 * The LibreTranslate engine against its strict stand-in (packages/test-services): listing,
 * batching, the key (sent, required, refused and never in an error), every class of error.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  type LibreTranslateStandIn,
  standInTranslation,
  startLibreTranslateStandIn,
} from '@live-captions/test-services';
import { createEngine, type EngineSettings } from '../src/index.js';
import { failure, type Harness, keyless, LIBRE_KEY, NO_APERTIUM, startHarness } from './engine-harness.js';

let harness: Harness | undefined;
let libre: LibreTranslateStandIn;
let elsewhere: LibreTranslateStandIn;
let engine: Harness['engine'];

beforeAll(async () => {
  harness = await startHarness({ apertium: false });
  ({ libre, elsewhere, engine } = harness);
}, 60_000);

afterAll(() => harness?.stop());

describe('LibreTranslate (stand-in)', () => {
  const settings = (): EngineSettings => ({ kind: 'libretranslate', url: libre.url, key: LIBRE_KEY });

  test('lists the targets of the source with the server names', async () => {
    expect(await engine(settings()).targets('en')).toEqual([
      { code: 'ca', name: 'Catalan' },
      { code: 'es', name: 'Spanish' },
      { code: 'fr', name: 'French' },
      { code: 'pt-BR', name: 'Portuguese (Brazil)' },
      { code: 'zh-Hans', name: 'Chinese (Simplified)' },
      { code: 'zh-Hant', name: 'Chinese (Traditional)' },
    ]);
    expect(await engine(settings()).targets('de')).toEqual([]);
  });

  test('a batch is one request with an array q, model codes and the api_key', async () => {
    const before = libre.requests.length;
    const texts = ['the council met.', '', 'Grace said yes.'];
    const out = await engine(settings()).translate({ source: 'en', target: 'pt-BR', texts });
    expect(out).toEqual(texts.map((text) => standInTranslation(text)));
    const sent = libre.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]!.body)).toEqual({
      q: ['the council met.', 'Grace said yes.'],
      source: 'en',
      target: 'pb',
      format: 'text',
      api_key: LIBRE_KEY,
    });
  });

  test('without a key no api_key is sent; a server that requires one refuses (400)', async () => {
    const before = elsewhere.requests.length;
    await engine({ kind: 'libretranslate', url: elsewhere.url }).translate({
      source: 'en',
      target: 'es',
      texts: ['hi'],
    });
    expect(JSON.parse(elsewhere.requests[before]!.body)).not.toHaveProperty('api_key');
    const strict = await startLibreTranslateStandIn({ apiKey: LIBRE_KEY, requireKey: true });
    try {
      const error = await failure(
        createEngine(
          { kind: 'libretranslate', url: strict.url },
          { allowedHosts: new Set([strict.hostPort]), apertiumUrl: NO_APERTIUM, timeoutMs: 5000 },
        ).translate({ source: 'en', target: 'es', texts: ['hi'] }),
      );
      expect(error).toMatchObject({ code: 'engine_rejected', status: 400, retryable: false });
      expect(error.message).toContain('API key');
    } finally {
      await strict.close();
    }
  });

  test('a wrong key is 403 (not retryable) and never in the error', async () => {
    const wrong = 'libre-WRONG-key-9876543210';
    const error = await failure(
      engine({ ...settings(), key: wrong }).translate({ source: 'en', target: 'es', texts: ['hi'] }),
    );
    expect(error).toMatchObject({ code: 'engine_auth', status: 403, retryable: false });
    expect(error.message).toContain('Invalid API key');
    keyless(error, wrong);
    // A server (or a proxy before it) that echoes the key: blanked out of the message.
    libre.script({ status: 403, message: `key ${LIBRE_KEY} is banned` });
    const echoed = await failure(engine(settings()).translate({ source: 'en', target: 'es', texts: ['hi'] }));
    expect(echoed.message).toBe('LibreTranslate answered 403: key … is banned');
    keyless(echoed, LIBRE_KEY);
  });

  test('its errors: a language it lacks, 429 with Retry-After, 500, a broken answer', async () => {
    const unsupported = await failure(
      engine(settings()).translate({ source: 'en', target: 'de', texts: ['hi'] }),
    );
    expect(unsupported).toMatchObject({ code: 'unsupported_pair', status: 400, retryable: false });
    libre.script(
      { status: 429, retryAfter: 7 },
      { status: 500 },
      { answer: { translatedText: 'one string' } },
    );
    const call = () => engine(settings()).translate({ source: 'en', target: 'es', texts: ['a b', 'c d'] });
    expect(await failure(call())).toMatchObject({
      code: 'engine_rate_limited',
      retryable: true,
      retryAfterMs: 7000,
    });
    expect(await failure(call())).toMatchObject({ code: 'engine_failed', status: 500, retryable: true });
    expect(await failure(call())).toMatchObject({ code: 'engine_bad_answer', retryable: false });
    expect(await call()).toEqual(['a b', 'c d'].map(standInTranslation));
  });
});
