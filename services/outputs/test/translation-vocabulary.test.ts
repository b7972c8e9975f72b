/**
 * A room's vocabulary through the API in-process on PGlite, as the editor sets it: read back
 * trimmed with each term once, replaced, emptied, its limits, a browser's PUT; the log names how
 * many terms, never which.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { logCapture } from '@live-captions/test-services';
import request from 'supertest';
import type { Outputs } from '../src/app.js';
import { type App, as, ORIGIN, startApp } from './helpers/app.js';
import { ROOM, TOKENS } from './helpers/index.js';

jest.setTimeout(90_000);

const logs = logCapture();
let app: App | undefined;
let outputs: Outputs;

beforeAll(async () => {
  app = await startApp(logs);
  ({ outputs } = app);
});

afterAll(() => app?.close());

const vocabulary = `/rooms/${ROOM}/vocabulary`;

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
