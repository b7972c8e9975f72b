/**
 * The translation API in-process on PGlite, as the editor calls it, against a real Apertium APy
 * and the strict LibreTranslate and DeepL stand-ins: targets checked against what the engine
 * reports, the address rule, keys stored and never shown or logged, duplicates, the engine's
 * language list (cached, 502 when the engine cannot answer), the vocabulary and its limits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { readRelayRooms } from '@live-captions/relay-client/node';
import { createLogger } from '@live-captions/runtime';
import {
  type ApertiumServer,
  type DeepLStandIn,
  type LibreTranslateStandIn,
  logCapture,
  startApertium,
  startDeepLStandIn,
  startLibreTranslateStandIn,
} from '@live-captions/test-services';
import request from 'supertest';
import { createOutputs, type Outputs } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { ROOM, relayConfigFile, TOKENS } from './helpers/index.js';

jest.setTimeout(90_000);

const LIBRE_KEY = 'libre-SECRET-key-5678abcd';
const DEEPL_KEY = 'deepl-SECRET-0000-1111-2222:fx';
const ORIGIN = 'http://localhost:8081';
const logs = logCapture();
let apy: ApertiumServer;
let libre: LibreTranslateStandIn;
let deepl: DeepLStandIn;
let outputs: Outputs;
let dataDir: string;

beforeAll(async () => {
  [apy, libre, deepl] = await Promise.all([
    startApertium(),
    startLibreTranslateStandIn({ apiKey: LIBRE_KEY, requireKey: true }),
    startDeepLStandIn({ key: DEEPL_KEY }),
  ]);
  dataDir = mkdtempSync(join(tmpdir(), 'outputs-translation-api-'));
  const configPath = relayConfigFile();
  const config = loadConfig({
    CAPTION_RELAY_CONFIG: configPath,
    OUTPUTS_DATA_DIR: dataDir,
    // Nothing listens there: the API must not mind.
    RELAY_URL: 'ws://127.0.0.1:9/ws',
    OUTPUTS_ALLOWED_ORIGINS: ORIGIN,
    OUTPUTS_ALLOWED_HOSTS: `${libre.hostPort},${deepl.hostPort}`,
    OUTPUTS_APERTIUM_URL: apy.url,
    OUTPUTS_TRANSLATION_TIMEOUT_MS: '1500',
  });
  const rooms = readRelayRooms(configPath);
  outputs = await createOutputs(
    config,
    createLogger('outputs', { level: 'debug' }, logs.stream),
    () => rooms,
  );
});

afterAll(async () => {
  await outputs?.close();
  await Promise.all([apy?.stop(), libre?.close(), deepl?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

afterEach(() => {
  // The stand-ins record every breach of their platform's contract.
  expect([...(libre?.violations ?? []), ...(deepl?.violations ?? [])]).toEqual([]);
});

const path = `/rooms/${ROOM}/translations`;
const languages = `/rooms/${ROOM}/translation-languages`;
const vocabulary = `/rooms/${ROOM}/vocabulary`;
const as = (token: string) => ({ Authorization: `Bearer ${token}` });
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

describe('vocabulary', () => {
  test('set, read back (trimmed, each term once), replaced, emptied', async () => {
    expect((await request(outputs.app).get(vocabulary).set(as(TOKENS.write))).body).toEqual({ terms: [] });
    const set = await request(outputs.app)
      .put(vocabulary)
      .set(as(TOKENS.write))
      .send({ terms: ['Okonkwo', '  Grace   Hall ', 'okonkwo', 'Ms. Ferreira-Lima'] });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ terms: ['Okonkwo', 'Grace Hall', 'Ms. Ferreira-Lima'] });
    expect((await request(outputs.app).get(vocabulary).set(as(TOKENS.write))).body).toEqual(set.body);
    // Names are the room's: the log says how many, never which.
    expect(logs.text()).not.toContain('Okonkwo');
    const replaced = await request(outputs.app)
      .put(vocabulary)
      .set(as(TOKENS.write))
      .send({ terms: ['Aldgate'] });
    expect(replaced.body).toEqual({ terms: ['Aldgate'] });
    await request(outputs.app).put(vocabulary).set(as(TOKENS.write)).send({ terms: [] }).expect(200);
    expect((await request(outputs.app).get(vocabulary).set(as(TOKENS.write))).body).toEqual({ terms: [] });
  });

  test.each([
    [
      '201 terms',
      { terms: Array.from({ length: 201 }, (_, i) => `Name${i}`) },
      /^terms: must be a list of at most 200/,
    ],
    ['a term of 101 characters', { terms: ['x'.repeat(101)] }, /^terms: each must be 1-100 characters/],
    ['an empty term', { terms: ['Ok', '  '] }, /^terms: each must be/],
    ['a term with a NUL', { terms: ['a\u0000b'] }, /^terms: each must be/],
    ['a term that is no text', { terms: [7] }, /^terms: each must be/],
    ['no list', { terms: 'Okonkwo' }, /^terms: must be a list/],
    ['an unknown field', { terms: [], words: [] }, /^words: unknown field$/],
  ])('400 for %s', async (_name, body, message) => {
    const res = await request(outputs.app).put(vocabulary).set(as(TOKENS.write)).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(message);
  });

  test('a browser on an allowed origin may PUT', async () => {
    const res = await request(outputs.app)
      .options(vocabulary)
      .set('Origin', ORIGIN)
      .set('Access-Control-Request-Method', 'PUT');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-methods']).toContain('PUT');
  });
});
