import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { clientAddress, parseTrustedProxies } from '@live-captions/http';
import { ConfigError } from '@live-captions/runtime';
import { errorThrown } from '@live-captions/test-services';
import { readRelayConfig } from '../src/adapters/config-file.js';
import { DEFAULT_LIMITS, parseRelayConfig, RelayConfigError } from '../src/app.js';
import { loadRelayEnv, redisTarget, withEnvOrigins } from '../src/config.js';
import { configFile, OUTPUT, SOURCE, TOKENS } from './helpers.js';

function issues(input: unknown): string[] {
  return errorThrown(() => parseRelayConfig(input, 'test.json'), RelayConfigError).issues;
}

describe('relay config file', () => {
  it('accepts the generated shape and fills the default limits', () => {
    const config = parseRelayConfig(configFile({ perIp: 8 }));
    expect(config.origins).toEqual(['http://localhost:8765', 'http://localhost:8081']);
    expect([...config.rooms.keys()]).toEqual([SOURCE, OUTPUT]);
    expect(config.limits).toEqual({ ...DEFAULT_LIMITS, perIp: 8 });
  });

  it.each([
    [
      'https://captions.example.org/path',
      'origins[0]: "https://captions.example.org/path" must be a bare origin scheme://host[:port] (no path, query or fragment)',
    ],
    [
      'https://captions.example.org?x=1',
      'origins[0]: "https://captions.example.org?x=1" must be a bare origin scheme://host[:port] (no path, query or fragment)',
    ],
    ['https://*.example.org', 'origins[0]: "https://*.example.org" must not contain a wildcard'],
    ['https://user@example.org', 'origins[0]: "https://user@example.org" must not contain userinfo'],
    [
      'http://captions.example.org',
      'origins[0]: "http://captions.example.org" http is allowed for loopback hosts only',
    ],
    ['ftp://example.org', 'origins[0]: "ftp://example.org" must use https (or http for loopback)'],
    [
      'captions.example.org',
      'origins[0]: "captions.example.org" must be an origin like https://captions.example.org',
    ],
  ])('refuses the origin %s naming the field', (origin, message) => {
    expect(issues(configFile({}, { origins: [origin] }))).toEqual([message]);
  });

  it('accepts https origins with ports and http on loopback', () => {
    const origins = ['https://captions.example.org:8443', 'http://127.0.0.1:8765', 'http://[::1]:8081'];
    expect(parseRelayConfig(configFile({}, { origins })).origins).toEqual(origins);
  });

  it('normalises an origin written with a trailing slash or capitals, as browsers send it', () => {
    const origins = ['https://Captions.Example.org/', 'http://localhost:8081/'];
    expect(parseRelayConfig(configFile({}, { origins })).origins).toEqual([
      'https://captions.example.org',
      'http://localhost:8081',
    ]);
    expect(issues(configFile({}, { origins: ['https://a.example/', 'https://a.example'] }))).toEqual([
      'origins: must not repeat an origin',
    ]);
  });

  it('names each wrong field', () => {
    expect(issues({ rooms: {} })).toEqual([
      expect.stringMatching(/^origins: /),
      'rooms: must define at least one room',
    ]);
    expect(issues(configFile({}, { origins: [] }))).toEqual(['origins: must list at least one origin']);
    expect(issues(configFile({}, { extra: true }))).toEqual(['extra: unknown field']);
    expect(issues(configFile({ perIP: 3 } as never))).toEqual(['limits.perIP: unknown field']);
    expect(issues(configFile({ perIp: 0 }))).toEqual(['limits.perIp: must be positive']);
    expect(issues(configFile({ slowMs: 1.5 }))).toEqual(['limits.slowMs: must be a whole number']);
    expect(issues(configFile({ joinMs: '10' } as never))).toEqual(['limits.joinMs: must be a number']);
    // A room must hold its largest caption.
    expect(issues(configFile({ replayRoomBytes: 4096 }))).toEqual([
      'limits.replayRoomBytes: must be at least payloadBytes (16384)',
    ]);
    expect(
      parseRelayConfig(configFile({ replayRoomBytes: 4096, payloadBytes: 4096 })).limits.replayRoomBytes,
    ).toBe(4096);
  });

  it('checks room names and tokens', () => {
    const room = { read: TOKENS.sourceRead, write: TOKENS.sourceWrite };
    expect(issues(configFile({}, { rooms: { 'bad room': room } }))).toEqual([
      'rooms.bad room: room names must be 1-128 characters of A-Z a-z 0-9 _ -',
    ]);
    expect(issues(configFile({}, { rooms: { a: { read: 'short', write: TOKENS.sourceWrite } } }))).toEqual([
      'rooms.a.read: must be 32-128 characters of A-Z a-z 0-9 _ -',
    ]);
    expect(issues(configFile({}, { rooms: { a: { ...room, admin: TOKENS.outputRead } } }))).toEqual([
      'rooms.a.admin: unknown field',
    ]);
    expect(
      issues(
        configFile({}, { rooms: { a: room, b: { read: TOKENS.outputRead, write: TOKENS.sourceRead } } }),
      ),
    ).toEqual(['rooms.b.write: must differ from rooms.a.read (tokens are unique across rooms and roles)']);
    const many = Object.fromEntries(
      Array.from({ length: 1001 }, (_, i) => [
        `r${i}`,
        { read: `read_${i}`.padEnd(40, 'x'), write: `write_${i}`.padEnd(40, 'y') },
      ]),
    );
    expect(issues(configFile({}, { rooms: many }))).toEqual(['rooms: must define at most 1000 rooms']);
  });

  it('reads a file and names it in errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'relay-config-'));
    try {
      const path = join(dir, 'relay.private.json');
      expect(() => readRelayConfig(path)).toThrow(`Invalid relay configuration ${path}`);
      expect(() => readRelayConfig(path)).toThrow('pnpm secrets:init');
      writeFileSync(path, '{"origins": [');
      expect(() => readRelayConfig(path)).toThrow('(file): not valid JSON');
      writeFileSync(path, JSON.stringify(configFile()));
      expect(readRelayConfig(path).rooms.size).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('relay environment', () => {
  it('defaults to 127.0.0.1:8080 and the secrets file', () => {
    expect(loadRelayEnv({})).toEqual({
      RELAY_BIND: '127.0.0.1',
      RELAY_PORT: 8080,
      CAPTION_RELAY_CONFIG: 'secrets/relay.private.json',
      RELAY_TRUSTED_PROXIES: '',
      RELAY_NODE_ID: `${hostname()}-${process.pid}`,
      RELAY_REDIS_PREFIX: 'relay:',
      RELAY_REDIS_FANOUT: 'stream',
      RELAY_ROOMS_POLL_MS: 1000,
      REDIS_URL: undefined,
      allowedOrigins: [],
    });
  });

  it("adds RELAY_ALLOWED_ORIGINS to the file's origins, each once, and names a wrong entry", () => {
    const env = loadRelayEnv({ RELAY_ALLOWED_ORIGINS: 'http://localhost:9081, http://127.0.0.1:9081' });
    expect(env.allowedOrigins).toEqual(['http://localhost:9081', 'http://127.0.0.1:9081']);
    const file = { origins: ['http://localhost:8081', 'http://127.0.0.1:9081'], rooms: 'kept' };
    expect(withEnvOrigins(file, env)).toEqual({
      origins: ['http://localhost:8081', 'http://127.0.0.1:9081', 'http://localhost:9081'],
      rooms: 'kept',
    });
    const { message } = errorThrown(
      () => loadRelayEnv({ RELAY_ALLOWED_ORIGINS: 'http://evil.example.org' }),
      ConfigError,
    );
    expect(message).toContain('RELAY_ALLOWED_ORIGINS');
  });

  it('takes REDIS_URL for cluster mode and never echoes it, even when wrong', () => {
    const env = loadRelayEnv({ REDIS_URL: 'redis://:s3cret@redis:6379/0', RELAY_NODE_ID: 'relay-a' });
    expect(env).toMatchObject({ REDIS_URL: 'redis://:s3cret@redis:6379/0', RELAY_NODE_ID: 'relay-a' });
    expect(redisTarget(env.REDIS_URL!)).toBe('redis://redis:6379/0');
    const { message } = errorThrown(
      () => loadRelayEnv({ REDIS_URL: 'http://:s3cret@redis', RELAY_REDIS_FANOUT: 'carrier-pigeon' }),
      ConfigError,
    );
    expect(message).toContain('REDIS_URL: must be a redis:// or rediss:// URL');
    expect(message).toContain('RELAY_REDIS_FANOUT');
    expect(message).not.toContain('s3cret');
  });

  it('names a malformed REDIS_URL without showing its password', () => {
    const { message } = errorThrown(() => loadRelayEnv({ REDIS_URL: 'redis://:s3cret@[bad' }), ConfigError);
    expect(message).toContain('REDIS_URL: must be a redis:// or rediss:// URL');
    expect(message).not.toContain('s3cret');
  });

  it('refuses a bad port or proxy list with a message naming the variable', () => {
    expect(() => loadRelayEnv({ RELAY_PORT: 'eighty' })).toThrow('RELAY_PORT="eighty": must be a number');
    expect(() => loadRelayEnv({ RELAY_TRUSTED_PROXIES: '10.0.0.0/40' })).toThrow(
      'RELAY_TRUSTED_PROXIES="10.0.0.0/40": "10.0.0.0/40" is not an IP address or CIDR range',
    );
  });
});

describe('client address', () => {
  const proxies = parseTrustedProxies('10.0.0.0/8, ::1');
  it('believes X-Forwarded-For only from trusted proxies, right to left', () => {
    expect(clientAddress('203.0.113.9', '198.51.100.1', proxies)).toBe('203.0.113.9');
    expect(clientAddress('10.1.2.3', '198.51.100.1', proxies)).toBe('198.51.100.1');
    expect(clientAddress('::ffff:10.1.2.3', 'spoofed, 198.51.100.1, 10.9.9.9', proxies)).toBe('198.51.100.1');
    expect(clientAddress('::1', undefined, proxies)).toBe('::1');
    expect(clientAddress('10.1.2.3', 'not-an-ip', proxies)).toBe('10.1.2.3');
    expect(clientAddress('10.1.2.3', '198.51.100.1', parseTrustedProxies(''))).toBe('10.1.2.3');
  });
});
