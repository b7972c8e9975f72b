/**
 * The translation targets API in-process on PGlite, as the editor calls it, against a real
 * Apertium APy and the strict LibreTranslate and DeepL stand-ins: targets checked against what the
 * engine reports, the address rule, keys stored and never shown or logged, duplicates. The
 * engine's language list: translation-languages.test.ts; the vocabulary:
 * translation-vocabulary.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, jest, test } from '@jest/globals';
import {
  type ApertiumServer,
  type DeepLStandIn,
  type LibreTranslateStandIn,
  logCapture,
} from '@live-captions/test-services';
import request from 'supertest';
import type { Outputs } from '../src/app.js';
import { type App, as, DEEPL_KEY, type Engines, LIBRE_KEY, startApp, startEngines } from './helpers/app.js';
import { ROOM, TOKENS } from './helpers/index.js';

jest.setTimeout(90_000);

const logs = logCapture();
let engines: Engines | undefined;
let app: App | undefined;
let apy: ApertiumServer;
let libre: LibreTranslateStandIn;
let deepl: DeepLStandIn;
let outputs: Outputs;

beforeAll(async () => {
  engines = await startEngines();
  ({ apy, libre, deepl } = engines);
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

const path = `/rooms/${ROOM}/translations`;
const languages = `/rooms/${ROOM}/translation-languages`;
const vocabulary = `/rooms/${ROOM}/vocabulary`;
const post = (url: string, body: unknown) =>
  request(outputs.app)
    .post(url)
    .set(as(TOKENS.write))
    .send(body as object);

describe('translation targets', () => {
  test('add (checked against the engine), list, refuse a duplicate, remove', async () => {
    const added = await post(path, { target: 'es', engine: 'apertium' });
    expect(added.status).toBe(201);
    expect(added.body.translation).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      target: 'es',
      source: 'en',
      engine: 'apertium',
      endpoint: apy.url,
      key: null,
      state: 'starting',
      behind: 0,
      sent: 0,
      lastError: null,
    });
    const catalan = await post(path, { target: 'CA', engine: 'apertium', source: 'en' });
    expect(catalan.status).toBe(201);
    expect(catalan.body.translation.target).toBe('ca');

    // The same target, any letter case, any engine: one per room.
    for (const body of [
      { target: 'es', engine: 'apertium' },
      { target: 'ES', engine: 'libretranslate', url: libre.url, key: LIBRE_KEY },
    ]) {
      const again = await post(path, body);
      expect(again.status).toBe(409);
      expect(again.body.error).toEqual({
        code: 'conflict',
        message: 'This room already has a es translation',
      });
    }

    const listed = await request(outputs.app).get(path).set(as(TOKENS.write));
    expect(listed.status).toBe(200);
    expect(listed.body.translations.map((t: { target: string }) => t.target)).toEqual(['es', 'ca']);

    const id = added.body.translation.id as string;
    // Another room's writer cannot remove this room's target.
    expect(
      (await request(outputs.app).delete(`/rooms/captions/translations/${id}`).set(as(TOKENS.otherWrite)))
        .status,
    ).toBe(404);
    expect((await request(outputs.app).delete(`${path}/${id}`).set(as(TOKENS.write))).status).toBe(204);
    expect((await request(outputs.app).delete(`${path}/${id}`).set(as(TOKENS.write))).status).toBe(404);
    expect((await request(outputs.app).delete(`${path}/not-an-id`).set(as(TOKENS.write))).status).toBe(404);
    const left = await request(outputs.app).get(path).set(as(TOKENS.write));
    expect(left.body.translations.map((t: { target: string }) => t.target)).toEqual(['ca']);
    expect(logs.lines().filter((line) => line.msg === 'translation added')).toHaveLength(2);
    expect(logs.lines().some((line) => line.msg === 'translation removed' && line.translation === id)).toBe(
      true,
    );
    await request(outputs.app)
      .delete(`${path}/${catalan.body.translation.id}`)
      .set(as(TOKENS.write))
      .expect(204);
  });

  test('a target the engine does not offer from the source: 400 naming it and what it offers', async () => {
    const res = await post(path, { target: 'de', engine: 'apertium' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(
      /^target: Apertium does not translate en into de \(it offers: .*es/,
    );
    const fromGerman = await post(path, { target: 'es', engine: 'apertium', source: 'de' });
    expect(fromGerman.status).toBe(400);
    expect(fromGerman.body.error.message).toMatch(/^target: .* \(it offers: none\)$/);
  });

  test('keys: stored, masked in every answer, never logged', async () => {
    const libreAdded = await post(path, {
      target: 'pt-br',
      engine: 'libretranslate',
      url: `${libre.url}/`,
      key: LIBRE_KEY,
    });
    expect(libreAdded.status).toBe(201);
    expect(libreAdded.body.translation).toMatchObject({
      target: 'pt-BR',
      engine: 'libretranslate',
      endpoint: libre.url,
      key: '…abcd',
    });
    const deeplAdded = await post(path, { target: 'fr', engine: 'deepl', url: deepl.url, key: DEEPL_KEY });
    expect(deeplAdded.status).toBe(201);
    expect(deeplAdded.body.translation).toMatchObject({ engine: 'deepl', key: '…2:fx', endpoint: deepl.url });

    const listed = await request(outputs.app).get(path).set(as(TOKENS.write));
    expect(JSON.stringify(listed.body)).not.toContain('SECRET');
    expect(logs.text()).not.toContain('SECRET');
    // Stored whole, server-side: the translator calls the engine with it.
    const rows = await outputs.translations.list(ROOM);
    expect(rows.map((row) => row.key)).toEqual(expect.arrayContaining([LIBRE_KEY, DEEPL_KEY]));
    for (const id of [libreAdded.body.translation.id, deeplAdded.body.translation.id])
      await request(outputs.app).delete(`${path}/${id}`).set(as(TOKENS.write)).expect(204);
  });

  test.each([
    ['no target', { engine: 'apertium' }, /^target: must be a language tag/],
    ['a target that is no tag', { engine: 'apertium', target: 'spanish please' }, /^target: must be/],
    [
      'an unknown engine',
      { engine: 'google', target: 'es' },
      /^engine: must be apertium, libretranslate or deepl$/,
    ],
    ['a source that is no tag', { engine: 'apertium', target: 'es', source: 'e' }, /^source: must be/],
    ['an unknown field', { engine: 'apertium', target: 'es', glossary: 'x' }, /^glossary: unknown field$/],
    ['a key for Apertium', { engine: 'apertium', target: 'es', key: 'k' }, /^key: Apertium takes no key$/],
    ['LibreTranslate without url', { engine: 'libretranslate', target: 'es' }, /^url: is required/],
    [
      'DeepL without key',
      { engine: 'deepl', target: 'es', url: 'https://api.deepl.com' },
      /^key: is required/,
    ],
    ['a url with spaces', { engine: 'libretranslate', target: 'es', url: 'http://a b' }, /^url: must not/],
    ['a key with a NUL', { engine: 'deepl', target: 'es', key: 'a\u0000b' }, /^key: must not/],
    ['a body that is a list', [1], /^body: must be a JSON object$/],
  ])('400 for %s', async (_name, body, message) => {
    const res = await post(path, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message).toMatch(message);
  });

  test.each([
    ['a private address not listed', 'http://10.1.2.3:5000'],
    ['a host not listed', 'http://127.0.0.1:1'],
    ['userinfo', `http://user:pw@${'127.0.0.1'}:5000`],
    ['a query', 'https://libretranslate.com/?x=1'],
    ['http to the hosted API', 'http://libretranslate.com'],
  ])('422 for an engine address with %s', async (_name, url) => {
    const res = await post(path, { engine: 'libretranslate', target: 'es', url });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('engine_address_not_allowed');
    expect(res.body.error.message).toMatch(/^url: /);
    expect(res.body.error.message).not.toContain('pw');
  });

  test('a redirect is not followed', async () => {
    libre.script({ redirect: 'http://10.0.0.1/languages' });
    const res = await post(path, { engine: 'libretranslate', target: 'es', url: libre.url, source: 'pt-BR' });
    expect(res.status).toBe(502);
    expect(res.body.error.message).toContain('redirects are not followed');
  });

  test.each([
    ['no token', {}],
    ['the read token', as(TOKENS.read)],
    ["another room's write token", as(TOKENS.otherWrite)],
  ])('401 with %s, before the body is read', async (_name, headers) => {
    for (const [method, url] of [
      ['get', path],
      ['post', path],
      ['post', languages],
      ['get', vocabulary],
      ['put', vocabulary],
    ] as const) {
      const res = await request(outputs.app)
        [method](url)
        .set(headers)
        .set('Content-Type', 'application/json')
        .send('{not json');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
  });
});
