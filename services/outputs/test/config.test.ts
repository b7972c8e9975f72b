import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '@live-captions/runtime';
import { errorThrown } from '@live-captions/test-services';
import { loadConfig, outputsEnvironment } from '../src/config.js';

function issues(env: Record<string, string>): string[] {
  return errorThrown(() => loadConfig(env), ConfigError).issues;
}

describe('configuration', () => {
  test('defaults: port 8083 on loopback, one replica, platform pacing', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      OUTPUTS_BIND: '127.0.0.1',
      OUTPUTS_PORT: 8083,
      RELAY_URL: 'ws://127.0.0.1:8080/ws',
      OUTPUTS_YOUTUBE_INTERVAL_MS: 1000,
      OUTPUTS_ZOOM_INTERVAL_MS: 2500,
      OUTPUTS_LEASE_MS: 6000,
      OUTPUTS_APERTIUM_URL: 'http://127.0.0.1:2737',
      OUTPUTS_TRANSLATION_TIMEOUT_MS: 10_000,
      OUTPUTS_LIVE_MAX_AGE_MS: 60_000,
    });
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.allowedHosts.size).toBe(0);
  });

  test('one line per wrong variable, naming it, never echoing a secret', () => {
    const lines = issues({
      OUTPUTS_PORT: 'eighty',
      OUTPUTS_ALLOWED_HOSTS: '127.0.0.1',
      OUTPUTS_ALLOWED_ORIGINS: 'https://*.example.org',
      REDIS_URL: 'http://:hunter2@redis:6379',
      DATABASE_URL: 'mysql://user:hunter2@db/outputs',
      RELAY_URL: 'http://relay',
      OUTPUTS_APERTIUM_URL: 'http://user:hunter2@apy:2737',
      OUTPUTS_TRANSLATION_TIMEOUT_MS: '5',
      OUTPUTS_LIVE_MAX_AGE_MS: '10',
    });
    expect(lines).toHaveLength(9);
    for (const name of [
      'OUTPUTS_PORT',
      'OUTPUTS_ALLOWED_HOSTS',
      'OUTPUTS_ALLOWED_ORIGINS',
      'REDIS_URL',
      'DATABASE_URL',
      'RELAY_URL',
      'OUTPUTS_APERTIUM_URL',
      'OUTPUTS_TRANSLATION_TIMEOUT_MS',
      'OUTPUTS_LIVE_MAX_AGE_MS',
    ])
      expect(lines.some((line) => line.startsWith(name))).toBe(true);
    expect(lines.join('\n')).not.toContain('hunter2');
  });

  test('allowed hosts and origins are normalised', () => {
    const config = loadConfig({
      OUTPUTS_ALLOWED_HOSTS: 'Stand-In.local:9000, 127.0.0.1:9001',
      OUTPUTS_ALLOWED_ORIGINS: 'http://localhost:8081/,https://UI.example.org',
    });
    expect([...config.allowedHosts]).toEqual(['stand-in.local:9000', '127.0.0.1:9001']);
    expect([...config.allowedOrigins]).toEqual(['http://localhost:8081', 'https://ui.example.org']);
  });

  test('the service access token, for the relay rooms API: from caption-local.env, checked, never echoed', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'outputs-config-')), 'caption-local.env');
    writeFileSync(file, 'CAPTION_API_KEY=outputs-config-key-0123456789abcdef\n');
    expect(loadConfig(outputsEnvironment({ CAPTION_LOCAL_ENV_FILE: file })).apiKey).toBe(
      'outputs-config-key-0123456789abcdef',
    );
    expect(loadConfig({}).apiKey).toBeUndefined();
    const lines = issues({ CAPTION_API_KEY: 'short hunter2' });
    expect(lines).toEqual([expect.stringMatching(/^CAPTION_API_KEY: /)]);
    expect(lines.join('\n')).not.toContain('hunter2');
  });
});
