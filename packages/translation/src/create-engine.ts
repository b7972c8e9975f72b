/** The engine a target's settings name, at an address the rule allows. */
import { checkEngineAddress } from './address.js';
import { apertiumEngine } from './engines/apertium.js';
import { deeplEngine } from './engines/deepl.js';
import { libreTranslateEngine } from './engines/libretranslate.js';
import { EngineSettingsError } from './errors.js';
import type { CreateEngineOptions, EngineSettings, TranslationEngine } from './types.js';

const hostPortOf = (url: URL) =>
  `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`.toLowerCase();

/**
 * Where an engine with these settings is called (origin and path prefix, never a key): also what
 * the API shows as its `endpoint`. Throws EngineSettingsError (400 missing, 422 not allowed).
 */
export function engineEndpoint(
  settings: EngineSettings,
  options: Omit<CreateEngineOptions, 'timeoutMs' | 'fetch'>,
): string {
  const url = settings.url?.trim() ? settings.url.trim() : undefined;
  switch (settings.kind) {
    case 'apertium': {
      const configured = new URL(options.apertiumUrl);
      if (url === undefined) return `${configured.origin}${configured.pathname.replace(/\/+$/, '')}`;
      // The configured APy is allowed by being configured, whatever OUTPUTS_ALLOWED_HOSTS says.
      const allowed = new Set([...options.allowedHosts, hostPortOf(configured)]);
      return checkEngineAddress('apertium', url, allowed);
    }
    case 'libretranslate':
      if (url === undefined) throw new EngineSettingsError('url', 'is required for LibreTranslate');
      return checkEngineAddress('libretranslate', url, options.allowedHosts);
    case 'deepl': {
      const key = settings.key?.trim();
      if (!key) throw new EngineSettingsError('key', 'is required for DeepL');
      // DeepL: keys of the free plan end in ":fx" and are served by the free host only.
      const fallback = key.endsWith(':fx') ? 'https://api-free.deepl.com' : 'https://api.deepl.com';
      return checkEngineAddress('deepl', url ?? fallback, options.allowedHosts);
    }
    default:
      throw new EngineSettingsError(
        'url',
        `unknown engine ${JSON.stringify((settings as { kind: unknown }).kind)}`,
      );
  }
}

export function createEngine(
  settings: EngineSettings,
  options: CreateEngineOptions,
): TranslationEngine & { endpoint: string } {
  const endpoint = engineEndpoint(settings, options);
  const call = { fetch: options.fetch ?? globalThis.fetch, timeoutMs: options.timeoutMs };
  const key = settings.key?.trim() || undefined;
  const engine =
    settings.kind === 'apertium'
      ? apertiumEngine(endpoint, call)
      : settings.kind === 'libretranslate'
        ? libreTranslateEngine(endpoint, key, call)
        : deeplEngine(endpoint, key!, call);
  return Object.assign(engine, { endpoint });
}

/** How a key is shown: `…` and its last 4 characters (only `…` for a key under 12), or null without one. */
export function maskKey(key: string | undefined | null): string | null {
  const trimmed = key?.trim();
  if (!trimmed) return null;
  return trimmed.length >= 12 ? `…${trimmed.slice(-4)}` : '…';
}
