/**
 * Each engine against a real Apertium APy or the strict stand-ins of LibreTranslate and DeepL
 * (packages/test-services): listing, translating, batching, every class of error, redirects
 * refused, a hanging engine timed out, and keys never in an error.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  type ApertiumServer,
  type DeepLStandIn,
  type EngineStandIn,
  type LibreTranslateStandIn,
  standInTranslation,
  startApertium,
  startDeepLStandIn,
  startLibreTranslateStandIn,
} from '@live-captions/test-services';
import { createEngine, EngineError, type EngineSettings } from '../src/index.js';

const LIBRE_KEY = 'libre-SECRET-key-0123456789';
const DEEPL_KEY = 'deepl-SECRET-0000-1111-2222:fx';

let apy: ApertiumServer;
let libre: LibreTranslateStandIn;
let deepl: DeepLStandIn;
let elsewhere: LibreTranslateStandIn;
let allowedHosts: Set<string>;

beforeAll(async () => {
  [apy, libre, deepl, elsewhere] = await Promise.all([
    startApertium(),
    startLibreTranslateStandIn({ apiKey: LIBRE_KEY }),
    startDeepLStandIn({ key: DEEPL_KEY }),
    startLibreTranslateStandIn(),
  ]);
  allowedHosts = new Set([libre.hostPort, deepl.hostPort, elsewhere.hostPort]);
}, 60_000);

afterAll(async () => {
  await Promise.all([apy?.stop(), libre?.close(), deepl?.close(), elsewhere?.close()]);
  // No stand-in ever saw a request its platform would call a contract violation.
  expect([
    ...(libre?.violations ?? []),
    ...(deepl?.violations ?? []),
    ...(elsewhere?.violations ?? []),
  ]).toEqual([]);
});

// Generous: a pair's first request starts its pipeline, which takes seconds on a loaded machine.
const engine = (settings: EngineSettings, timeoutMs = 30_000) =>
  createEngine(settings, { allowedHosts, apertiumUrl: apy.url, timeoutMs });

/** The EngineError a call fails with; the test fails if it succeeds or throws anything else. */
async function failure(call: Promise<unknown>): Promise<EngineError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof EngineError) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}

function keyless(error: EngineError, key: string): void {
  expect(error.message).not.toContain(key);
  expect(JSON.stringify({ ...error, message: error.message })).not.toContain(key);
  expect(String(error.stack)).not.toContain(key);
}

describe('Apertium APy (real)', () => {
  test('lists the installed pairs as BCP-47 targets with English names', async () => {
    const targets = await engine({ kind: 'apertium' }).targets('en');
    expect(targets).toEqual(
      expect.arrayContaining([
        { code: 'ca', name: 'Catalan' },
        { code: 'ca-valencia', name: 'Catalan (Valencian)' },
        { code: 'es', name: 'Spanish' },
      ]),
    );
    expect(targets.every((target) => !target.code.startsWith('en'))).toBe(true);
    expect((await engine({ kind: 'apertium' }).targets('es')).map((target) => target.code)).toEqual(
      expect.arrayContaining(['en', 'en-US']),
    );
    expect(await engine({ kind: 'apertium' }).targets('de')).toEqual([]);
  }, 60_000);

  test('translates a batch in order, one request per text; names pass unmarked; empty stays empty', async () => {
    const out = await engine({ kind: 'apertium' }).translate({
      source: 'en',
      target: 'es',
      texts: ['The council met on Tuesday.', '', 'Okonkwo said <b>no</b> & left.'],
    });
    expect(out).toHaveLength(3);
    expect(out[0]).toMatch(/consejo/);
    expect(out[1]).toBe('');
    // markUnknown=no: no "*Okonkwo"; format=txt: the brackets are text, not markup.
    expect(out[2]).toMatch(/^Okonkwo/);
    expect(out[2]).toContain('<b>');
    const valencian = await engine({ kind: 'apertium' }).translate({
      source: 'en',
      target: 'ca-valencia',
      texts: ['The council met.'],
    });
    expect(valencian[0]).toMatch(/consell/);
  }, 90_000);

  test('a pair it lacks is not retryable; a killed APy is, and it comes back', async () => {
    const unsupported = await failure(
      engine({ kind: 'apertium' }).translate({ source: 'en', target: 'de', texts: ['Hello.'] }),
    );
    expect(unsupported).toMatchObject({ code: 'unsupported_pair', status: 400, retryable: false });

    await apy.kill();
    const down = await failure(
      engine({ kind: 'apertium' }).translate({ source: 'en', target: 'es', texts: ['Hello.'] }),
    );
    expect(down).toMatchObject({ code: 'engine_unreachable', retryable: true });
    expect(down.message).toContain('ECONNREFUSED');
    await apy.start();
    expect(
      await engine({ kind: 'apertium' }).translate({ source: 'en', target: 'es', texts: ['Hello.'] }),
    ).toEqual(['Hola.']);
  }, 60_000);
});

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
          { allowedHosts: new Set([strict.hostPort]), apertiumUrl: apy.url, timeoutMs: 5000 },
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

describe('connection faults (either stand-in)', () => {
  const cases: [string, () => EngineStandIn, () => EngineSettings][] = [
    ['LibreTranslate', () => libre, () => ({ kind: 'libretranslate', url: libre.url, key: LIBRE_KEY })],
    ['DeepL', () => deepl, () => ({ kind: 'deepl', url: deepl.url, key: DEEPL_KEY })],
  ];

  test.each(cases)(
    '%s: a hanging engine times out, a reset or a stopped one is unreachable; all retryable',
    async (_, standIn, settings) => {
      const call = () =>
        engine(settings(), 400).translate({ source: 'en', target: 'es', texts: ['hello there'] });
      standIn().script('hang', 'reset');
      const started = Date.now();
      const hung = await failure(call());
      expect(hung).toMatchObject({ code: 'engine_timeout', retryable: true });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(await failure(call())).toMatchObject({ code: 'engine_unreachable', retryable: true });
      await standIn().down();
      try {
        expect(await failure(call())).toMatchObject({ code: 'engine_unreachable', retryable: true });
      } finally {
        await standIn().up();
      }
      const aborted = new AbortController();
      aborted.abort();
      expect(
        await failure(
          engine(settings()).translate({ source: 'en', target: 'es', texts: ['x y'] }, aborted.signal),
        ),
      ).toMatchObject({ code: 'aborted' });
      expect(await call()).toEqual([standInTranslation('hello there')]);
    },
  );
});
