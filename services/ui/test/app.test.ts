import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ConfigError } from '@live-captions/runtime';
import { errorThrown } from '@live-captions/test-services';
import { buildPages } from '@live-captions/web';
import request from 'supertest';
import { createUiApp } from '../src/app.js';
import {
  DEFAULT_CALENDAR_API_URL,
  DEFAULT_CAPTURE_URL,
  DEFAULT_OUTPUTS_URL,
  DEFAULT_RELAY_URL,
  DEFAULT_SOURCES_URL,
  loadConfig,
} from '../src/config.js';

let pages: string;
let assetsDir: string;

beforeAll(async () => {
  pages = mkdtempSync(join(tmpdir(), 'ui-pages-'));
  await buildPages({ outDir: pages });
  assetsDir = join(pages, 'ui');
}, 60_000);

afterAll(() => rmSync(pages, { recursive: true, force: true }));

const app = (env: NodeJS.ProcessEnv = {}) => createUiApp({ config: loadConfig(env), assetsDir });

describe('config', () => {
  test('local defaults; empty CAPTURE_URL, RELAY_URL, OUTPUTS_URL, SOURCES_URL or CALENDAR_API_URL mean none', () => {
    expect(loadConfig({})).toEqual({
      bind: '127.0.0.1',
      port: 8081,
      relayUrl: DEFAULT_RELAY_URL,
      captureUrl: DEFAULT_CAPTURE_URL,
      outputsUrl: DEFAULT_OUTPUTS_URL,
      sourcesUrl: DEFAULT_SOURCES_URL,
      relayApiUrl: 'http://localhost:8080/',
      calendarApiUrl: DEFAULT_CALENDAR_API_URL,
    });
    expect(DEFAULT_CALENDAR_API_URL).toBe('http://localhost:8082/wp-json/cal/events/v1/');
    expect(
      loadConfig({ CAPTURE_URL: '', RELAY_URL: '', OUTPUTS_URL: '', SOURCES_URL: '', CALENDAR_API_URL: ' ' }),
    ).toMatchObject({
      captureUrl: null,
      relayUrl: null,
      outputsUrl: null,
      sourcesUrl: null,
      relayApiUrl: null,
      calendarApiUrl: null,
    });
  });

  test('RELAY_API_URL: the relay on loopback by default, none for a public relay unless set', () => {
    expect(loadConfig({ RELAY_URL: 'ws://127.0.0.1:9000/ws' }).relayApiUrl).toBe('http://127.0.0.1:9000/');
    expect(loadConfig({ RELAY_URL: 'wss://localhost:8443/ws' }).relayApiUrl).toBe('https://localhost:8443/');
    expect(loadConfig({ RELAY_URL: 'wss://relay.example.org/ws' }).relayApiUrl).toBeNull();
    expect(
      loadConfig({ RELAY_URL: 'wss://relay.example.org/ws', RELAY_API_URL: 'https://ui.example.org/relay/' })
        .relayApiUrl,
    ).toBe('https://ui.example.org/relay/');
    expect(loadConfig({ RELAY_API_URL: '' }).relayApiUrl).toBeNull();
    const error = errorThrown(
      () => loadConfig({ RELAY_API_URL: 'https://ui.example.org/relay' }),
      ConfigError,
    );
    expect(error.message).toContain('RELAY_API_URL="https://ui.example.org/relay": must end with a slash');
  });

  test('every wrong variable is named, once', () => {
    const error = errorThrown(
      () =>
        loadConfig({
          UI_PORT: '70000',
          RELAY_URL: 'https://relay.example.org',
          CAPTURE_URL: 'https://capture.example.org',
          OUTPUTS_URL: 'ftp://ui.example.org/outputs/',
          SOURCES_URL: 'https://ui.example.org/sources?x=1',
          CALENDAR_API_URL: 'https://ui.example.org/wp-json/cal/events/v1',
        }),
      ConfigError,
    );
    expect(error.issues).toEqual([
      'UI_PORT="70000": must be at most 65535',
      'RELAY_URL="https://relay.example.org": must be a ws:// or wss:// URL (e.g. wss://relay.example.org)',
      'CAPTURE_URL="https://capture.example.org": must end with a slash (e.g. https://capture.example.org/)',
      'OUTPUTS_URL="ftp://ui.example.org/outputs/": must be an http(s) URL (e.g. https://ui.example.org/)',
      'SOURCES_URL="https://ui.example.org/sources?x=1": must not carry userinfo, query or fragment',
      'CALENDAR_API_URL="https://ui.example.org/wp-json/cal/events/v1": must end with a slash (e.g. https://ui.example.org/)',
    ]);
  });

  test('an address with credentials is named, never shown', () => {
    const { message } = errorThrown(
      () =>
        loadConfig({
          RELAY_URL: 'wss://u:s3cret@relay.example.org',
          CAPTURE_URL: 'https://u:s3cret@capture.example.org/',
        }),
      ConfigError,
    );
    expect(message).toContain('RELAY_URL: must not carry userinfo, query or fragment');
    expect(message).toContain('CAPTURE_URL: must not carry userinfo, query or fragment');
    expect(message).not.toContain('s3cret');
  });
});

describe('pages', () => {
  test('/ is the links hub when a capture host is set, else the landing page', async () => {
    const hub = await request(app({ CAPTURE_URL: 'https://capture.example.org/' }))
      .get('/')
      .expect(200);
    expect(hub.text).toContain('<title>Links · Live captions</title>');
    const home = await request(app({ CAPTURE_URL: '' }))
      .get('/')
      .expect(200);
    expect(home.text).toContain('<title>Live captions</title>');
  });

  test('/ is served from an assets folder under a dot segment (node_modules/.pnpm in an image)', async () => {
    const deployed = join(pages, 'node_modules', '.pnpm', 'ui');
    cpSync(assetsDir, deployed, { recursive: true });
    const served = createUiApp({ config: loadConfig({}), assetsDir: deployed });
    const hub = await request(served).get('/').expect(200);
    expect(hub.text).toContain('<title>Links · Live captions</title>');
  });

  test('/site-config.js carries the six addresses and nothing else', async () => {
    const response = await request(
      app({
        RELAY_URL: 'wss://relay.example.org',
        CAPTURE_URL: 'https://capture.example.org/',
        OUTPUTS_URL: 'https://ui.example.org/outputs/',
        SOURCES_URL: 'https://ui.example.org/sources/',
        RELAY_API_URL: 'https://ui.example.org/relay/',
        CALENDAR_API_URL: 'https://ui.example.org/wp-json/cal/events/v1/',
      }),
    )
      .get('/site-config.js')
      .expect(200)
      .expect('Content-Type', /text\/javascript/);
    expect(response.text).toBe(
      'window.SITE_CONFIG = Object.freeze({"relayUrl":"wss://relay.example.org","captureUrl":"https://capture.example.org/","outputsUrl":"https://ui.example.org/outputs/","sourcesUrl":"https://ui.example.org/sources/","relayApiUrl":"https://ui.example.org/relay/","calendarApiUrl":"https://ui.example.org/wp-json/cal/events/v1/"});\n',
    );
    const local = await request(app()).get('/site-config.js');
    expect(local.text).toContain(`"relayUrl":"${DEFAULT_RELAY_URL}","captureUrl":"${DEFAULT_CAPTURE_URL}"`);
  });

  test('editor, overlay and their scripts are served; unknown paths are 404', async () => {
    const server = app();
    for (const path of [
      '/editor.html',
      '/overlay.html',
      '/links.html',
      '/index.html',
      '/editor.js',
      '/overlay.js',
      '/audience.html',
      '/audience.js',
      '/audience.css',
      '/now.html',
      '/now.js',
      '/now.css',
      '/base.css',
      '/components.css',
      '/reset.css',
    ]) {
      await request(server).get(path).expect(200);
    }
    await request(server).get('/nothing.html').expect(404);
    await request(server).get('/../package.json').expect(404);
  });

  test('health', async () => {
    await request(app()).get('/health').expect(200, { ready: true });
  });
});

describe('security headers', () => {
  test('self-only CSP with the relay, the capture host, the outputs and sources services, the calendar and the local OBS WebSocket as connect sources', async () => {
    const response = await request(
      app({
        RELAY_URL: 'wss://relay.example.org/ws',
        CAPTURE_URL: 'https://capture.example.org/',
        OUTPUTS_URL: 'https://outputs.example.org/',
        SOURCES_URL: 'https://sources.example.org/',
        CALENDAR_API_URL: 'https://calendar.example.org/wp-json/cal/events/v1/',
      }),
    ).get('/editor.html');
    const csp = response.headers['content-security-policy'];
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain(
      "connect-src 'self' wss://relay.example.org https://capture.example.org https://outputs.example.org https://sources.example.org https://calendar.example.org ws://127.0.0.1:*",
    );
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['x-powered-by']).toBeUndefined();
  });

  test("the relay's HTTP API is a connect source when it has its own origin", async () => {
    const response = await request(
      app({ RELAY_URL: 'wss://relay.example.org/ws', RELAY_API_URL: 'https://rooms.example.org/relay/' }),
    ).get('/links.html');
    expect(response.headers['content-security-policy']).toContain(' https://rooms.example.org ');
  });

  test("the calendar's API is a connect source (the local calendar by default); none when set empty", async () => {
    const apart = await request(
      app({ CALENDAR_API_URL: 'https://calendar.example.org/wp-json/tribe/events/v1/' }),
    ).get('/now.html');
    expect(apart.headers['content-security-policy']).toContain(' https://calendar.example.org ');
    const local = await request(app()).get('/now.html');
    expect(local.headers['content-security-policy']).toContain(' http://localhost:8082 ');
    const none = await request(app({ CALENDAR_API_URL: '' })).get('/now.html');
    expect(none.headers['content-security-policy']).not.toContain(':8082');
  });

  test('the pages have no inline scripts or styles (the CSP would block them)', async () => {
    const server = app();
    for (const path of [
      '/',
      '/editor.html',
      '/overlay.html',
      '/links.html',
      '/index.html',
      '/audience.html',
      '/now.html',
    ]) {
      const html = (await request(server).get(path)).text;
      expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
      // No asset from outside the stack.
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    }
  });
});

describe('GET /metrics', () => {
  test('counts requests by route and status for Prometheus', async () => {
    const ui = app();
    await request(ui).get('/health').expect(200);
    await request(ui).get('/no-such-page').expect(404);
    const res = await request(ui).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.text).toMatch(/^ui_http_requests_total\{route="\/health",method="GET",status="200"\} 1$/m);
    expect(res.text).toMatch(/^ui_http_requests_total\{route="unmatched",method="GET",status="404"\} 1$/m);
    expect(res.text).toContain('ui_process_cpu_seconds_total');
  });

  test('answers only at the exact path that the proxy hides', async () => {
    const ui = app();
    for (const path of ['/METRICS', '/metrics/']) {
      const res = await request(ui).get(path).expect(404);
      expect(res.text).not.toContain('ui_process_cpu_seconds_total');
    }
  });
});
