/**
 * The operator API in-process on PGlite, as the links hub's panel calls it from another origin:
 * SOURCES_ALLOWED_ORIGINS (which needs the access token), CORS for the listed origin only, the
 * token still checked behind a granted preflight, and a push source's key shown once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { readRelayRooms } from '@live-captions/relay-client/node';
import { createLogger } from '@live-captions/runtime';
import { logCapture } from '@live-captions/test-services';
import request from 'supertest';
import { createSources, type Sources } from '../src/app.js';
import { loadConfig } from '../src/config.js';

jest.setTimeout(60_000);

const KEY = 'sources-api-key-0123456789abcdef';
const ORIGIN = 'http://localhost:8081';
const ROOM = 'captions';
const logs = logCapture();
let sources: Sources;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sources-api-'));
  const relayConfig = join(dir, 'relay.private.json');
  writeFileSync(
    relayConfig,
    JSON.stringify({
      origins: [ORIGIN],
      rooms: { [ROOM]: { read: 'r'.repeat(40), write: 'w'.repeat(40) } },
    }),
  );
  const config = loadConfig({
    CAPTION_API_KEY: KEY,
    CAPTION_RELAY_CONFIG: relayConfig,
    SOURCES_DATA_DIR: join(dir, 'data'),
    SOURCES_ALLOWED_ORIGINS: `${ORIGIN}/`,
    // Nothing listens there: no source is started by these tests.
    CAPTION_URL: 'http://127.0.0.1:9',
    RELAY_URL: 'ws://127.0.0.1:9/ws',
  });
  const rooms = readRelayRooms(relayConfig);
  sources = await createSources(
    config,
    createLogger('sources', { level: 'debug' }, logs.stream),
    () => rooms,
  );
});

afterAll(async () => {
  await sources?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('configuration', () => {
  test('SOURCES_ALLOWED_ORIGINS takes origins as the gateway does, and needs the access token; SOURCES_CA_FILE must be readable', () => {
    expect([
      ...loadConfig({
        CAPTION_API_KEY: KEY,
        SOURCES_ALLOWED_ORIGINS: 'https://UI.example.org/, http://localhost:8081',
      }).allowedOrigins,
    ]).toEqual(['https://ui.example.org', 'http://localhost:8081']);
    expect(loadConfig({}).allowedOrigins.size).toBe(0);
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        return (error as { issues?: string[] }).issues ?? [(error as Error).message];
      }
    };
    expect(problems({ SOURCES_ALLOWED_ORIGINS: 'https://ui.example.org' })).toEqual([
      'SOURCES_ALLOWED_ORIGINS: needs CAPTION_API_KEY (browser origins are only allowed with a token)',
    ]);
    const wrong = problems({ CAPTION_API_KEY: KEY, SOURCES_ALLOWED_ORIGINS: 'https://ui.example.org/hub' });
    expect(wrong).toHaveLength(1);
    expect(wrong[0]).toMatch(/^SOURCES_ALLOWED_ORIGINS: "https:\/\/ui.example.org\/hub" /);
    expect(problems({ SOURCES_CA_FILE: '/nonexistent/ca.pem' })).toEqual([
      'SOURCES_CA_FILE="/nonexistent/ca.pem": must be a readable PEM file of certificate authorities',
    ]);
  });
});

describe('from the hub', () => {
  test('CORS for the listed origin only; the token is still needed', async () => {
    const preflight = await request(sources.app)
      .options('/sources/abc/start')
      .set('Origin', ORIGIN)
      .set('Access-Control-Request-Method', 'POST');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(preflight.headers['access-control-allow-methods']).toMatch(/PATCH/);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/Authorization/);
    const foreign = await request(sources.app)
      .options('/sources')
      .set('Origin', 'https://evil.example')
      .set('Access-Control-Request-Method', 'POST');
    expect(foreign.status).toBe(403);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    const anonymous = await request(sources.app).get('/sources').set('Origin', ORIGIN);
    expect(anonymous.status).toBe(401);
    const listed = await request(sources.app)
      .get(`/sources?room=${ROOM}`)
      .set('Origin', ORIGIN)
      .set('Authorization', `Bearer ${KEY}`);
    expect(listed.status).toBe(200);
    expect(listed.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(listed.body).toEqual({ sources: [] });
    const other = await request(sources.app)
      .get('/sources')
      .set('Origin', 'https://evil.example')
      .set('Authorization', `Bearer ${KEY}`);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  test("a push source's key is in the answer that creates it and masked everywhere after", async () => {
    const created = await request(sources.app)
      .post('/sources')
      .set('Origin', ORIGIN)
      .set('Authorization', `Bearer ${KEY}`)
      .send({ room: ROOM, name: 'OBS', input: { kind: 'rtmp-push' }, running: false });
    expect(created.status).toBe(201);
    const key: string = created.body.push.streamKey;
    expect(key).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    expect(created.body.push.url).toBe(`rtmp://localhost:1935/live/${key}`);
    expect(JSON.stringify(created.body.source)).not.toContain(key);
    const listed = await request(sources.app).get('/sources').set('Authorization', `Bearer ${KEY}`);
    expect(listed.body.sources).toHaveLength(1);
    expect(listed.body.sources[0]).toMatchObject({ name: 'OBS', state: 'stopped', running: false });
    expect(JSON.stringify(listed.body)).not.toContain(key);
    expect(logs.text()).not.toContain(key);
  });
});
