/**
 * The languages a translation engine offers, asked through the API in-process on PGlite as the
 * editor asks them, of a real Apertium APy and the strict LibreTranslate and DeepL stand-ins:
 * BCP-47 codes with their names, the list kept a few minutes, 502 when the engine cannot answer,
 * a refused key named without it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { type DeepLStandIn, type LibreTranslateStandIn, logCapture } from '@live-captions/test-services';
import request from 'supertest';
import type { Outputs } from '../src/app.js';
import { type App, as, DEEPL_KEY, type Engines, LIBRE_KEY, startApp, startEngines } from './helpers/app.js';
import { ROOM, TOKENS } from './helpers/index.js';

jest.setTimeout(90_000);

const logs = logCapture();
let engines: Engines | undefined;
let app: App | undefined;
let libre: LibreTranslateStandIn;
let deepl: DeepLStandIn;
let outputs: Outputs;

beforeAll(async () => {
  engines = await startEngines();
  ({ libre, deepl } = engines);
  app = await startApp(logs, engines.env);
  ({ outputs } = app);
});

afterAll(async () => {
  await app?.close();
  await engines?.stop();
});

afterEach(() => {
  // The stand-ins record every breach of their platform's contract.
  expect(engines?.violations() ?? []).toEqual([]);
});

const languages = `/rooms/${ROOM}/translation-languages`;
const post = (url: string, body: unknown) =>
  request(outputs.app)
    .post(url)
    .set(as(TOKENS.write))
    .send(body as object);

describe('the languages an engine offers', () => {
  test('Apertium: the installed pairs from English, as BCP-47 with their names', async () => {
    const res = await post(languages, { engine: 'apertium' });
    expect(res.status).toBe(200);
    expect(res.body.engine).toBe('apertium');
    expect(res.body.source).toBe('en');
    const codes = (res.body.targets as { code: string }[]).map((t) => t.code);
    expect(codes).toEqual(expect.arrayContaining(['ca', 'es']));
    expect(res.body.targets).toContainEqual({ code: 'es', name: 'Spanish' });
    expect(codes).not.toContain('en');
  });

  test('LibreTranslate with its key, DeepL with its key; the list is kept a few minutes', async () => {
    const before = libre.requests.length;
    const res = await post(languages, { engine: 'libretranslate', url: libre.url, key: LIBRE_KEY });
    expect(res.status).toBe(200);
    expect((res.body.targets as { code: string }[]).map((t) => t.code)).toEqual(
      expect.arrayContaining(['es', 'pt-BR', 'zh-Hans']),
    );
    // Asked again (as every added target is checked): answered from the cache.
    const again = await post(languages, { engine: 'libretranslate', url: libre.url, key: LIBRE_KEY });
    expect(again.body).toEqual(res.body);
    expect(libre.requests.length - before).toBe(1);

    const fromDeepL = await post(languages, { engine: 'deepl', url: deepl.url, key: DEEPL_KEY });
    expect(fromDeepL.status).toBe(200);
    expect((fromDeepL.body.targets as { code: string }[]).map((t) => t.code)).toEqual(
      expect.arrayContaining(['es', 'pt-BR', 'zh-Hans']),
    );
    // English is the source: not a target, in any region.
    expect(JSON.stringify(fromDeepL.body.targets)).not.toContain('"en');
    expect(deepl.requests.at(-1)?.headers.authorization).toBe(`DeepL-Auth-Key ${DEEPL_KEY}`);
    expect(JSON.stringify(fromDeepL.body)).not.toContain('SECRET');
  });

  test('an engine that cannot answer: 502 saying so (down, 500, hanging past the timeout)', async () => {
    // Each with a source not asked before, so that no cached list answers.
    await libre.down();
    try {
      const down = await post(languages, { engine: 'libretranslate', url: libre.url, source: 'fr' });
      expect(down.status).toBe(502);
      expect(down.body.error).toEqual({
        code: 'engine_unavailable',
        message: expect.stringContaining('LibreTranslate cannot be reached'),
      });
    } finally {
      await libre.up();
    }
    libre.script({ status: 500 });
    const failed = await post(languages, { engine: 'libretranslate', url: libre.url, source: 'es' });
    expect(failed.status).toBe(502);
    expect(failed.body.error.message).toContain('LibreTranslate answered 500');
    libre.script('hang');
    const started = Date.now();
    const hung = await post(languages, { engine: 'libretranslate', url: libre.url, source: 'ca' });
    expect(hung.status).toBe(502);
    expect(hung.body.error.message).toContain('did not answer within 1500 ms');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  test('a key the engine refuses is a 400 naming the key, without it', async () => {
    const res = await post(languages, { engine: 'deepl', url: deepl.url, key: 'wrong-key-0000-9999:fx' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message).toMatch(/^key: DeepL answered 403/);
    expect(res.body.error.message).not.toContain('wrong-key');
  });
});
