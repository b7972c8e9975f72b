/**
 * The operator API in-process on PGlite, as the links hub's panel calls it from another origin:
 * SOURCES_ALLOWED_ORIGINS (which needs the access token), CORS for the listed origin only, the
 * token still checked behind a granted preflight, and a push source's key shown once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { readRelayRooms } from '@live-captions/relay-client/node';
import { createLogger } from '@live-captions/runtime';
import { freePort, logCapture } from '@live-captions/test-services';
import request from 'supertest';
import { startEgressProxy } from '../src/adapters/egress-proxy.js';
import { createSources, type Sources } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { AllowList } from '../src/domain/addresses.js';

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

describe('the egress proxy', () => {
  test('SOURCES_EGRESS_PORT pins its loopback port (a firewalled host lists it); 0 or unset takes any free one', async () => {
    const port = await freePort();
    expect(loadConfig({ SOURCES_EGRESS_PORT: String(port) }).SOURCES_EGRESS_PORT).toBe(port);
    expect(loadConfig({}).SOURCES_EGRESS_PORT).toBe(0);
    expect(() => loadConfig({ SOURCES_EGRESS_PORT: '70000' })).toThrow(/SOURCES_EGRESS_PORT/);
    const proxy = await startEgressProxy(new AllowList([]), () => {}, port);
    try {
      expect(proxy.port).toBe(port);
      expect(proxy.open(() => {}).url).toMatch(new RegExp(`@127\\.0\\.0\\.1:${port}$`));
      // It is the proxy answering there: a request without a run's token is challenged.
      const status = await new Promise<number | undefined>((resolve, reject) =>
        get({ host: '127.0.0.1', port, path: 'http://example.org/' }, (res) => {
          res.resume();
          resolve(res.statusCode);
        }).once('error', reject),
      );
      expect(status).toBe(407);
      // A port taken by another: the start fails, rather than listening elsewhere.
      await expect(startEgressProxy(new AllowList([]), () => {}, port)).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await proxy.close();
    }
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

describe('what the database cannot store is refused before it', () => {
  const call = (method: 'get' | 'post' | 'patch' | 'delete', path: string) =>
    request(sources.app)[method](path).set('Authorization', `Bearer ${KEY}`);
  const add = (body: Record<string, unknown>) =>
    call('post', '/sources').send({
      room: ROOM,
      name: 'Chamber',
      input: { kind: 'rtmp-push' },
      running: false,
      ...body,
    });

  test('a NUL or another control character in the name, the vocabulary or a replacement: 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'Cham\u0000ber' }, 'name'],
      [{ name: 'Chamber\u001b[31m' }, 'name'],
      [{ settings: { vocabulary: 'Gemeinderat,\u0000 Bürgermeisterin' } }, 'settings.vocabulary'],
      [
        { settings: { replacements: [{ from: 'gemeinde\u0007rat', to: 'Gemeinderat' }] } },
        'settings.replacements.0.from',
      ],
      [
        {
          settings: {
            replacements: [
              { from: 'x', to: 'y' },
              { from: 'rat', to: 'Rat\u0000' },
            ],
          },
        },
        'settings.replacements.1.to',
      ],
    ];
    for (const [body, field] of cases) {
      const answer = await add(body);
      expect(`${answer.status} ${answer.body.error?.code}`).toBe('400 invalid_request');
      expect(answer.body.error.message).toMatch(
        new RegExp(`^${field.replace(/\./g, '\\.')}: has U\\+00[01][0-9A-F] at \\d+: no control characters`),
      );
    }
    // Tabs and line breaks are text, as in captions.
    const fine = await add({
      name: 'Chamber\tnorth',
      settings: { vocabulary: 'Gemeinderat\nBürgermeisterin' },
    });
    expect(fine.status).toBe(201);
    const patched = await call('patch', `/sources/${fine.body.source.id}`).send({
      settings: { vocabulary: 'Rat\u0000haus' },
    });
    expect(`${patched.status} ${patched.body.error?.message}`).toMatch(
      /^400 settings\.vocabulary: has U\+0000 at 3/,
    );
    expect((await call('get', `/sources/${fine.body.source.id}`)).body.source.settings.vocabulary).toBe(
      'Gemeinderat\nBürgermeisterin',
    );
    expect((await call('delete', `/sources/${fine.body.source.id}`)).status).toBe(204);
  });

  test('an id or a room no source can have: 404 and 400, never "Storage unavailable"', async () => {
    for (const path of ['/sources/%00', '/sources/abc', '/sources/%00/start', '/sources/%00/stop']) {
      const method = path.endsWith('start') || path.endsWith('stop') ? 'post' : 'get';
      const answer = await call(method, path);
      expect(`${path} ${answer.status} ${answer.body.error?.code}`).toBe(`${path} 404 not_found`);
    }
    expect((await call('patch', '/sources/%00').send({ settings: {} })).status).toBe(404);
    expect((await call('delete', '/sources/%00')).status).toBe(404);
    const room = await call('get', '/sources?room=%00');
    expect(`${room.status} ${room.body.error?.message}`).toMatch(/^400 room: a room name/);
  });
});
