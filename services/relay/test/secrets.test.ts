import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { parseEnvFile } from '@live-captions/runtime';
import { initSecrets } from '@live-captions/secret-files';
import { parseRelayConfig } from '../src/app.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'secrets-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const read = (name: string) => readFileSync(join(dir, name), 'utf8');
const names = ['relay.private.json', 'relay-tokens.env', 'caption-local.env'];

describe('secrets generator', () => {
  it('writes a valid relay config with loopback origins and matching token and key files', () => {
    const result = initSecrets({ dir });
    expect(result.written).toEqual(names.map((name) => join(dir, name)));
    const config = parseRelayConfig(JSON.parse(read('relay.private.json')));
    expect(config.origins).toEqual([
      'http://localhost:8765',
      'http://127.0.0.1:8765',
      'http://localhost:8081',
      'http://127.0.0.1:8081',
    ]);
    const env = parseEnvFile(read('relay-tokens.env'));
    expect(env).toMatchObject({
      RELAY_ADDRESS: 'ws://localhost:8080/ws',
      RELAY_SITE: 'http://localhost:8081/',
    });
    expect(config.rooms.get(env.RELAY_ROOM!)).toEqual({
      read: env.RELAY_SOURCE_READ,
      write: env.RELAY_SOURCE_WRITE,
    });
    expect(config.rooms.get(env.RELAY_OUTPUT_ROOM!)).toEqual({
      read: env.RELAY_OUTPUT_READ,
      write: env.RELAY_OUTPUT_WRITE,
    });
    for (const token of [env.RELAY_SOURCE_READ, env.RELAY_OUTPUT_WRITE])
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const captionLocal = parseEnvFile(read('caption-local.env'));
    expect(captionLocal.CAPTION_API_KEY).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The local links hub (ui on :8081) reads /relay-config cross-origin.
    expect(captionLocal.CAPTION_ALLOWED_ORIGINS).toBe('http://localhost:8081,http://127.0.0.1:8081');
  });

  it('never overwrites, and completes a missing file from the existing one', () => {
    initSecrets({ dir });
    const before = names.map(read);
    const again = initSecrets({ dir });
    expect(again.written).toEqual([]);
    expect(names.map(read)).toEqual(before);

    rmSync(join(dir, 'relay-tokens.env'));
    expect(initSecrets({ dir }).written).toEqual([join(dir, 'relay-tokens.env')]);
    expect(read('relay-tokens.env')).toBe(before[1]);

    rmSync(join(dir, 'relay.private.json'));
    initSecrets({ dir });
    expect(parseRelayConfig(JSON.parse(read('relay.private.json'))).rooms).toEqual(
      parseRelayConfig(JSON.parse(before[0]!)).rooms,
    );
  });

  it('adds the production hosts of an env file', () => {
    const envFile = join(dir, 'env.production');
    writeFileSync(
      envFile,
      'CAPTURE_HOST=capture.example.org\nRELAY_HOST=relay.example.org\nUI_HOST=ui.example.org\n',
    );
    initSecrets({ dir: join(dir, 'out'), envFile });
    const config = JSON.parse(readFileSync(join(dir, 'out', 'relay.private.json'), 'utf8'));
    expect(config.origins).toEqual(
      expect.arrayContaining(['https://capture.example.org', 'https://ui.example.org']),
    );
    const env = parseEnvFile(readFileSync(join(dir, 'out', 'relay-tokens.env'), 'utf8'));
    expect(env).toMatchObject({
      RELAY_ADDRESS: 'wss://relay.example.org',
      RELAY_SITE: 'https://ui.example.org/',
    });
    writeFileSync(envFile, 'CAPTURE_HOST=capture.example.org\nUI_HOST=ui.example.org\n');
    expect(() => initSecrets({ dir: join(dir, 'other'), envFile })).toThrow(
      'RELAY_HOST is missing from the env file',
    );
  });

  it('writes 0600 for the user, or 0640 owned by 1000:1000 as root', () => {
    const root = process.getuid?.() === 0;
    initSecrets({ dir });
    for (const name of names) {
      const stat = statSync(join(dir, name));
      expect({ name, mode: stat.mode & 0o777 }).toEqual({ name, mode: root ? 0o640 : 0o600 });
      if (root) expect([stat.uid, stat.gid]).toEqual([1000, 1000]);
      else expect(stat.uid).toBe(process.getuid?.());
    }
  });
});
