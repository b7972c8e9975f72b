/**
 * Auth matrix, browser origins and CORS, security headers, the static page, /relay-config,
 * health before and after the engine is ready, and unknown routes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createInProcessQueue } from '@live-captions/inference';
import request from 'supertest';
import { loadRelayTokens } from '../src/adapters/relay-tokens.js';
import { createApp, PLACEHOLDER_DIR, staticDir } from '../src/app.js';
import { Messages } from '../src/domain/errors.js';
import { routes, writeRelayTokens } from './helpers/access-fixture.js';
import { API_KEY, type Backend, engineConfig, inProcessBackend, testConfig } from './helpers/gateway.js';
import { pcmBody, sine } from './helpers/wav.js';

const UI = 'https://ui.example';
const AUTH = { Authorization: `Bearer ${API_KEY}` };
const oneSecond = pcmBody(sine(16000, 1, 440, 0.3));

const relay = loadRelayTokens(writeRelayTokens());

let backend: Backend;
/** Token and an allowed browser origin. */
let secured: ReturnType<typeof createApp>;
/** Trusted-loopback mode: no token. */
let open: ReturnType<typeof createApp>;

beforeAll(async () => {
  backend = await inProcessBackend('tiny');
  secured = createApp({
    queue: backend.queue,
    relay,
    config: testConfig({ apiKey: API_KEY, allowedOrigins: [UI] }),
  });
  open = createApp({ queue: backend.queue, relay, config: testConfig() });
});

afterAll(() => backend.close());

describe('auth matrix', () => {
  it.each(routes)('%s: 401 without the token or with a wrong one', async (_name, build) => {
    for (const authorization of [undefined, `Bearer wrong-${API_KEY}`, API_KEY, `Basic ${API_KEY}`]) {
      const pending = build(secured.app);
      if (authorization) pending.set('Authorization', authorization);
      const res = await pending.expect(401);
      expect(res.body.detail).toBe(Messages.unauthorized);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it.each(routes)('%s: passes with the token, and with no token configured', async (_name, build) => {
    const withToken = await build(secured.app).set(AUTH);
    const withoutKey = await build(open.app);
    expect(withToken.status).not.toBe(401);
    expect(withoutKey.status).not.toBe(401);
  });

  it('the /v1 401 carries the OpenAI error object', async () => {
    const res = await request(secured.app).get('/v1/models').expect(401);
    expect(res.body).toEqual({
      detail: Messages.unauthorized,
      error: {
        message: Messages.unauthorized,
        type: 'authentication_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
  });

  it('the static page and preflights need no token', async () => {
    const page = await request(secured.app).get('/').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<html');
    await request(secured.app)
      .options('/transcribe')
      .set({ Origin: UI, 'Access-Control-Request-Method': 'POST' })
      .expect(204);
  });
});

describe('origins and CORS', () => {
  it('403 for a foreign Origin on every API route, /v1 with permission_error', async () => {
    for (const [name, build] of routes) {
      const res = await build(secured.app).set(AUTH).set('Origin', 'https://evil.example');
      expect([name, res.status]).toEqual([name, 403]);
      expect(res.body.detail).toBe(Messages.forbidden);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
    const v1 = await request(secured.app)
      .get('/v1/models')
      .set(AUTH)
      .set('Origin', 'https://evil.example')
      .expect(403);
    expect(v1.body.error).toEqual({
      message: Messages.forbidden,
      type: 'permission_error',
      param: null,
      code: null,
    });
  });

  it('without CAPTION_ALLOWED_ORIGINS only the own origin passes', async () => {
    await request(open.app).get('/health').set('Origin', UI).expect(403);
    const own = await request(open.app)
      .get('/health')
      .set({ Host: 'captions.local:8765', Origin: 'http://captions.local:8765' });
    expect(own.status).toBe(200);
    expect(own.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('the own origin uses X-Forwarded-Proto only from a trusted proxy', async () => {
    const headers = {
      Host: 'captions.example',
      Origin: 'https://captions.example',
      'X-Forwarded-Proto': 'https',
    };
    await request(open.app).get('/health').set(headers).expect(403);
    const proxied = createApp({ queue: backend.queue, config: testConfig({ trustProxy: 'loopback' }) });
    await request(proxied.app).get('/health').set(headers).expect(200);
  });

  it('allowed origins get CORS headers; preflights list methods, headers and max-age', async () => {
    const res = await request(secured.app).get('/health').set(AUTH).set('Origin', UI).expect(200);
    expect(res.headers['access-control-allow-origin']).toBe(UI);
    expect(res.headers['access-control-expose-headers']).toBe('Retry-After');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers.vary).toMatch(/Origin/);

    const preflight = await request(secured.app)
      .options('/transcribe')
      .set({
        Origin: UI,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'x-stream-id',
      })
      .expect(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': UI,
      'access-control-allow-methods': 'GET, POST, DELETE',
      'access-control-allow-headers':
        'Authorization, Content-Type, X-Caption-Local, X-Stream-ID, X-Request-ID, X-Caption-Room, X-Caption-Backlog, X-Caption-Skipped',
      'access-control-max-age': '600',
    });
  });

  it('a preflight from a foreign origin gets 403 without CORS headers', async () => {
    const res = await request(secured.app)
      .options('/transcribe')
      .set({ Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' })
      .expect(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
  });
});

describe('static page', () => {
  it('serves the built capture page of @live-captions/web, or the placeholder without a build', async () => {
    const page = await request(open.app).get('/').expect(200);
    expect(page.text).toBe(readFileSync(join(staticDir(), 'index.html'), 'utf8'));
    const placeholder = createApp({ queue: backend.queue, config: testConfig(), publicDir: PLACEHOLDER_DIR });
    const res = await request(placeholder.app).get('/').expect(200);
    expect(res.text).toContain('The capture page arrives with the UI');
  });
});

describe('security headers', () => {
  it('are on every response: pages, API answers, errors and 404s', async () => {
    for (const pending of [
      request(secured.app).get('/'),
      request(secured.app).get('/health').set(AUTH),
      request(secured.app).get('/health'),
      request(secured.app).get('/nope'),
    ]) {
      const res = await pending;
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-powered-by']).toBeUndefined();
      const csp = res.headers['content-security-policy'] ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self' wss://relay.example");
      expect(csp).not.toMatch(/unsafe|\*/);
    }
  });
});

describe('GET /relay-config', () => {
  it('answers the stable camelCase fields with the token', async () => {
    const res = await request(secured.app).get('/relay-config').set(AUTH).expect(200);
    expect(res.body).toEqual({
      relayUrl: 'wss://relay.example/ws',
      site: 'https://ui.example/',
      sourceRoom: 'source',
      outputRoom: 'output',
      sourceReadToken: 'source-read',
      sourceWriteToken: 'source-write',
      outputReadToken: 'output-read',
      outputWriteToken: null,
      links: {
        editor:
          'https://ui.example/editor.html#relayUrl=wss%3A%2F%2Frelay.example%2Fws&sourceRoom=source&sourceReadToken=source-read&outputRoom=output',
        overlay:
          'https://ui.example/overlay.html#relayUrl=wss%3A%2F%2Frelay.example%2Fws&room=output&relayReadToken=output-read',
      },
    });
  });

  it('404 without CAPTION_API_KEY (even with the file) and without the file (even with the key)', async () => {
    const noKey = await request(open.app).get('/relay-config').expect(404);
    expect(noKey.body).toEqual({ detail: 'Not Found' });
    const noFile = createApp({ queue: backend.queue, config: testConfig({ apiKey: API_KEY }) });
    await request(noFile.app).get('/relay-config').set(AUTH).expect(404);
    await request(noFile.app).get('/relay-config').expect(401);
  });
});

describe('health and unknown routes', () => {
  it('503 Model loading until the engine is ready, then the full report', async () => {
    const cold = createInProcessQueue({ engine: engineConfig('tiny') });
    const app = createApp({ queue: cold, config: testConfig() }).app;
    const loading = await request(app).get('/health').expect(503);
    expect(loading.body).toEqual({ detail: Messages.modelLoading });
    expect(loading.headers['retry-after']).toBe('1');
    await request(app).get('/v1/models').expect(503);
    await request(app)
      .post('/transcribe')
      .set({ 'X-Caption-Local': '1', 'Content-Type': 'application/octet-stream' })
      .send(oneSecond)
      .expect(503);
    await cold.start();
    try {
      const ready = await request(app).get('/health').expect(200);
      expect(ready.body).toEqual({
        ready: true,
        version: expect.any(String),
        sample_rate: 16000,
        max_seconds: 12,
        model: 'synthetic-tiny',
        device: 'cpu',
        compute_type: 'f16',
        multilingual: true,
        languages: expect.arrayContaining(['en', 'de', 'fr']),
        modes: ['transcribe', 'translate', 'both'],
        translation_target: 'en',
        busy: false,
        completed: 0,
        failed: 0,
        max_streams: 12,
        workers: 1,
        threads_per_worker: 1,
        beam_size: 1,
        sessions: 0,
        running: 0,
        pending: 0,
        queue_timeout: 20,
        rejected: 0,
        queue_timeouts: 0,
        backlog_seconds: 0,
        // No VAD source given: the realtime route refuses, and the report says so.
        realtime: { available: false, reason: 'the VAD model is not loaded (no VAD model configured)' },
      });
    } finally {
      await cold.close();
    }
  });

  it('404 {"detail":"Not Found"} for unknown routes and methods', async () => {
    for (const pending of [
      request(open.app).get('/nope'),
      request(open.app).get('/transcribe'),
      request(open.app).post('/health'),
      request(open.app).get('/v1/audio/speech'),
      request(secured.app).get('/v1/nothing'),
    ]) {
      const res = await pending.expect(404);
      expect(res.body).toEqual({ detail: 'Not Found' });
    }
  });
});
