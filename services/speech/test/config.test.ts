import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parseOrigin } from '@live-captions/http';
import { ConfigError } from '@live-captions/runtime';
import { errorThrown } from '@live-captions/test-services';
import { loadRelayTokens } from '../src/adapters/relay-tokens.js';
import { loadConfig } from '../src/config.js';
import { bearerChecker, originAllowed } from '../src/domain/access.js';
import { parseRelaySettings } from '../src/domain/relay-settings.js';

const KEY = 'k'.repeat(24);

function issues(env: NodeJS.ProcessEnv): string[] {
  return errorThrown(() => loadConfig(env), ConfigError).issues;
}

describe('loadConfig', () => {
  it('has the contract defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      bind: '127.0.0.1',
      port: 8765,
      apiKey: undefined,
      allowedOrigins: [],
      maxStreams: 12,
      queueTimeoutSeconds: 20,
      httpLimit: 88,
      redisUrl: undefined,
    });
    expect(config.relayTokensFile).toMatch(/secrets\/relay-tokens\.env$/);
    expect(loadConfig({ CAPTION_MAX_STREAMS: '4' }).httpLimit).toBe(64);
  });

  it('refuses short, non-ASCII or whitespace keys without echoing them', () => {
    expect(issues({ CAPTION_API_KEY: 'short' })).toEqual(['CAPTION_API_KEY: must be at least 24 characters']);
    expect(issues({ CAPTION_API_KEY: `${KEY} x` })).toEqual([
      'CAPTION_API_KEY: must be printable ASCII without whitespace',
    ]);
    expect(issues({ CAPTION_API_KEY: `${KEY}é` })[0]).not.toContain(KEY);
    expect(loadConfig({ CAPTION_API_KEY: KEY }).apiKey).toBe(KEY);
  });

  it('needs the key for allowed origins and refuses anything but exact https origins', () => {
    expect(issues({ CAPTION_ALLOWED_ORIGINS: 'https://a.example' })[0]).toMatch(/needs CAPTION_API_KEY/);
    for (const entry of [
      '*',
      'https://*.example.org',
      'http://captions.example.org',
      'https://a.example/path',
      'https://a.example?x=1',
      'https://user@a.example',
      'captions.example.org',
    ]) {
      expect(issues({ CAPTION_API_KEY: KEY, CAPTION_ALLOWED_ORIGINS: entry })).toHaveLength(1);
    }
    const config = loadConfig({
      CAPTION_API_KEY: KEY,
      CAPTION_ALLOWED_ORIGINS: 'https://a.example, https://b.example:8443/,http://localhost:3000',
    });
    expect(config.allowedOrigins).toEqual([
      'https://a.example',
      'https://b.example:8443',
      'http://localhost:3000',
    ]);
  });

  it('normalises allowed origins written with a trailing slash or capitals', () => {
    const config = loadConfig({
      CAPTION_API_KEY: KEY,
      CAPTION_ALLOWED_ORIGINS: 'https://UI.Example/, http://localhost:8081/',
    });
    expect(config.allowedOrigins).toEqual(['https://ui.example', 'http://localhost:8081']);
    expect(issues({ CAPTION_API_KEY: KEY, CAPTION_ALLOWED_ORIGINS: 'https://ui.example/editor' })).toEqual([
      'CAPTION_ALLOWED_ORIGINS: "https://ui.example/editor" must be a bare origin scheme://host[:port] (no path, query or fragment)',
    ]);
  });

  it('names a malformed REDIS_URL without showing its password', () => {
    const found = issues({ REDIS_URL: 'redis://:s3cret@[bad' });
    expect(found).toEqual(['REDIS_URL: must be a redis:// or rediss:// URL']);
    expect(found.join('\n')).not.toContain('s3cret');
    expect(loadConfig({ REDIS_URL: 'redis://:s3cret@redis:6379/0' }).redisUrl).toBe(
      'redis://:s3cret@redis:6379/0',
    );
  });

  it('takes CAPTION_TRUST_PROXY as a list of proxies, refusing what it cannot read', () => {
    expect(loadConfig({ CAPTION_TRUST_PROXY: '172.30.240.2' }).trustProxy).toBe('172.30.240.2');
    expect(issues({ CAPTION_TRUST_PROXY: 'true' })).toEqual([
      'CAPTION_TRUST_PROXY="true": "true" is not an IP address or CIDR range (nor loopback, linklocal, uniquelocal)',
    ]);
  });

  it('reports every wrong variable at once', () => {
    const found = issues({
      CAPTION_MAX_STREAMS: '0',
      CAPTION_QUEUE_TIMEOUT: '121',
      CAPTION_PORT: 'x',
      REDIS_URL: 'localhost',
    });
    expect(found).toHaveLength(4);
  });
});

describe('access rules', () => {
  it('compares Bearer tokens exactly', () => {
    const check = bearerChecker(KEY);
    expect(check(`Bearer ${KEY}`)).toBe(true);
    for (const header of [
      undefined,
      '',
      KEY,
      `bearer ${KEY}`,
      `Bearer ${KEY}x`,
      `Bearer ${KEY.slice(1)}`,
      'Bearer ',
    ]) {
      expect(check(header)).toBe(false);
    }
  });

  it('allows no Origin, the own origin and listed origins only', () => {
    const allowed = new Set([parseOrigin('https://ui.example')]);
    expect(originAllowed(undefined, 'http://127.0.0.1:8765', allowed)).toBe(true);
    expect(originAllowed('http://127.0.0.1:8765', 'http://127.0.0.1:8765', allowed)).toBe(true);
    expect(originAllowed('https://ui.example', 'http://127.0.0.1:8765', allowed)).toBe(true);
    expect(originAllowed('https://evil.example', 'http://127.0.0.1:8765', allowed)).toBe(false);
    expect(originAllowed('null', 'http://127.0.0.1:8765', allowed)).toBe(false);
  });
});

describe('relay settings', () => {
  const vars = {
    RELAY_ADDRESS: 'wss://relay.example/ws',
    RELAY_SITE: 'https://ui.example/',
    RELAY_ROOM: 'source',
    RELAY_OUTPUT_ROOM: 'output',
    RELAY_SOURCE_READ: 'sr-token',
    RELAY_SOURCE_WRITE: 'sw-token',
    RELAY_OUTPUT_READ: 'or-token',
    RELAY_OUTPUT_WRITE: 'ow-token',
  };

  it('maps the file to stable camelCase fields and builds links carrying only the tokens each page needs', () => {
    const { settings, problems } = parseRelaySettings(vars);
    expect(problems).toEqual([]);
    expect(settings).toEqual({
      relayUrl: 'wss://relay.example/ws',
      site: 'https://ui.example/',
      sourceRoom: 'source',
      outputRoom: 'output',
      sourceReadToken: 'sr-token',
      sourceWriteToken: 'sw-token',
      outputReadToken: 'or-token',
      outputWriteToken: 'ow-token',
      links: {
        editor:
          'https://ui.example/editor.html#relayUrl=wss%3A%2F%2Frelay.example%2Fws&sourceRoom=source&sourceReadToken=sr-token&outputRoom=output&outputWriteToken=ow-token',
        overlay:
          'https://ui.example/overlay.html#relayUrl=wss%3A%2F%2Frelay.example%2Fws&room=output&relayReadToken=or-token',
      },
    });
    expect(settings?.links.overlay).not.toContain('sw-token');
  });

  it('needs wss:// and the required variables; optional ones become null', () => {
    expect(parseRelaySettings({ ...vars, RELAY_ADDRESS: 'ws://relay.example/ws' }).problems).toEqual([
      'RELAY_ADDRESS: must use wss:// (ws:// only for localhost)',
    ]);
    expect(parseRelaySettings({ ...vars, RELAY_ADDRESS: 'ws://localhost:8080/ws' }).problems).toEqual([]);
    expect(parseRelaySettings({ RELAY_ADDRESS: 'wss://r.example' }).problems).toHaveLength(4);
    const { RELAY_OUTPUT_READ: _r, RELAY_OUTPUT_WRITE: _w, RELAY_SITE: _s, ...required } = vars;
    expect(parseRelaySettings(required).settings).toMatchObject({
      site: null,
      outputReadToken: null,
      outputWriteToken: null,
      links: { editor: null, overlay: null },
    });
  });

  it('reads the token file: absent -> undefined, invalid -> ConfigError naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'speech-relay-'));
    expect(loadRelayTokens(join(dir, 'missing.env'))).toBeUndefined();
    const file = join(dir, 'relay-tokens.env');
    writeFileSync(
      file,
      Object.entries(vars)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n'),
    );
    expect(loadRelayTokens(file)?.sourceRoom).toBe('source');
    // The environment's addresses win over the file's (`pnpm start` with moved ports), checked alike.
    const moved = loadRelayTokens(file, {
      RELAY_ADDRESS: 'ws://localhost:9080/ws',
      RELAY_SITE: 'http://localhost:9081/',
    });
    expect(moved).toMatchObject({
      relayUrl: 'ws://localhost:9080/ws',
      site: 'http://localhost:9081/',
      sourceRoom: 'source',
    });
    expect(moved?.links.overlay?.startsWith('http://localhost:9081/overlay.html#')).toBe(true);
    expect(() => loadRelayTokens(file, { RELAY_ADDRESS: 'http://x' })).toThrow(ConfigError);
    writeFileSync(file, 'RELAY_ADDRESS=http://x\n');
    expect(() => loadRelayTokens(file)).toThrow(ConfigError);
  });
});
