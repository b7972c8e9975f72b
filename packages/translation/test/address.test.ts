import { describe, expect, test } from '@jest/globals';
import {
  checkEngineAddress,
  createEngine,
  EngineAddressError,
  type EngineKind,
  EngineSettingsError,
  engineEndpoint,
  maskKey,
} from '../src/index.js';

const listed = new Set(['127.0.0.1:5000', 'libre.internal:80']);

describe('engine addresses (the rule of destination URLs)', () => {
  test.each([
    ['deepl', 'https://api.deepl.com', 'https://api.deepl.com'],
    ['deepl', 'https://API-FREE.deepl.com/', 'https://api-free.deepl.com'],
    ['libretranslate', 'https://libretranslate.com', 'https://libretranslate.com'],
    ['libretranslate', 'http://127.0.0.1:5000/', 'http://127.0.0.1:5000'],
    ['libretranslate', 'http://libre.internal/translate-api/', 'http://libre.internal/translate-api'],
    ['apertium', 'http://127.0.0.1:5000', 'http://127.0.0.1:5000'],
    ['deepl', 'http://127.0.0.1:5000', 'http://127.0.0.1:5000'],
  ] as [EngineKind, string, string][])('%s %s is called at %s', (kind, url, base) => {
    expect(checkEngineAddress(kind, url, listed)).toBe(base);
  });

  test.each([
    ['deepl', 'http://api.deepl.com', 'url: must use https'],
    [
      'deepl',
      'https://api.deepl.com:8443',
      'url: must be on api.deepl.com or api-free.deepl.com, or a host:port the operator allowed',
    ],
    [
      'deepl',
      'https://api.deepl.com.evil.example',
      'url: must be on api.deepl.com or api-free.deepl.com, or a host:port the operator allowed',
    ],
    [
      'deepl',
      'https://libretranslate.com',
      'url: must be on api.deepl.com or api-free.deepl.com, or a host:port the operator allowed',
    ],
    ['deepl', 'https://api.deepl.com/v2', 'url: must be https://api.deepl.com'],
    [
      'libretranslate',
      'https://169.254.169.254/',
      'url: must be on libretranslate.com, or a host:port the operator allowed',
    ],
    [
      'libretranslate',
      'http://127.0.0.1:5001',
      'url: must be on libretranslate.com, or a host:port the operator allowed',
    ],
    [
      'apertium',
      'http://10.0.0.5:2737',
      'url: must be a host:port the operator allowed (OUTPUTS_ALLOWED_HOSTS)',
    ],
    ['libretranslate', 'https://user:SECRET@libretranslate.com', 'url: must not carry userinfo'],
    ['libretranslate', 'https://libretranslate.com/#SECRET', 'url: must not carry a fragment'],
    ['libretranslate', 'https://libretranslate.com/?api_key=SECRET', 'url: must not carry a query'],
    ['libretranslate', 'file:///etc/passwd', 'url: must be an https URL'],
    ['libretranslate', 'SECRET', 'url: must be an absolute https URL'],
  ] as [EngineKind, string, string][])('%s %s is refused (422) without quoting it', (kind, url, message) => {
    let thrown: unknown;
    try {
      checkEngineAddress(kind, url, listed);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(EngineAddressError);
    expect((thrown as EngineAddressError).status).toBe(422);
    expect((thrown as Error).message).toBe(message);
    expect((thrown as Error).message).not.toContain('SECRET');
  });

  const options = { allowedHosts: new Set<string>(), apertiumUrl: 'http://apertium:2737', timeoutMs: 1000 };

  test('defaults: the configured APy (allowed by being configured), DeepL by its key', () => {
    expect(engineEndpoint({ kind: 'apertium' }, options)).toBe('http://apertium:2737');
    expect(engineEndpoint({ kind: 'apertium', url: 'http://apertium:2737/' }, options)).toBe(
      'http://apertium:2737',
    );
    expect(engineEndpoint({ kind: 'deepl', key: 'abc-123:fx' }, options)).toBe('https://api-free.deepl.com');
    expect(engineEndpoint({ kind: 'deepl', key: 'abc-123' }, options)).toBe('https://api.deepl.com');
    expect(createEngine({ kind: 'deepl', key: 'abc-123' }, options).endpoint).toBe('https://api.deepl.com');
  });

  test('missing settings are 400s naming the field', () => {
    for (const [settings, field] of [
      [{ kind: 'libretranslate' }, 'url'],
      [{ kind: 'deepl', key: '  ' }, 'key'],
    ] as const) {
      let thrown: unknown;
      try {
        createEngine(settings, options);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(EngineSettingsError);
      expect(thrown).toMatchObject({ field, status: 400 });
    }
    expect(() => createEngine({ kind: 'apertium', url: 'http://other:2737' }, options)).toThrow(
      EngineAddressError,
    );
  });

  test('keys are shown by their last 4 characters only', () => {
    expect(maskKey('279a2e9d-83b3-c416-7e2d-f721593e42a0:fx')).toBe('…0:fx');
    expect(maskKey('short')).toBe('…');
    expect(maskKey(undefined)).toBeNull();
    expect(maskKey('')).toBeNull();
  });
});
