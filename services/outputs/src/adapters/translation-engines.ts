/**
 * The translation engines as this service calls them: built from a target's settings with the
 * operator's allowed hosts, Apertium address and call timeout, and the targets each engine reports
 * for a source language kept a few minutes (the editor asks for them, and every added target is
 * checked against them: an engine is not asked twice a second for the same list).
 */
import { createHash } from 'node:crypto';
import {
  createEngine,
  type EngineSettings,
  engineEndpoint,
  type LanguageOption,
  type TranslationEngine,
} from '@live-captions/translation';

export interface TranslationEnginesOptions {
  allowedHosts: ReadonlySet<string>;
  apertiumUrl: string;
  timeoutMs: number;
  /** How long a reported list of targets is reused. */
  targetsTtlMs?: number;
}

/** Lists kept at most: one per engine, address, key and source language asked. */
const CACHE_ENTRIES = 200;

export function translationEngines(options: TranslationEnginesOptions) {
  const ttlMs = options.targetsTtlMs ?? 5 * 60_000;
  const cache = new Map<string, { until: number; targets: LanguageOption[] }>();
  const addressRule = { allowedHosts: options.allowedHosts, apertiumUrl: options.apertiumUrl };

  const engines = {
    /** Where the engine is called (never a key); throws EngineSettingsError (400 or 422). */
    endpoint(settings: EngineSettings): string {
      return engineEndpoint(settings, addressRule);
    },

    engine(settings: EngineSettings): TranslationEngine & { endpoint: string } {
      return createEngine(settings, { ...addressRule, timeoutMs: options.timeoutMs });
    },

    /** The targets the engine reports for `source` (BCP-47); throws EngineError or EngineSettingsError. */
    async targets(settings: EngineSettings, source: string): Promise<LanguageOption[]> {
      const endpoint = engines.endpoint(settings);
      // The key only as a hash: a list fetched with one key is not answered to another.
      const keyHash = createHash('sha256')
        .update(settings.key ?? '')
        .digest('base64url');
      const cacheKey = JSON.stringify([settings.kind, endpoint, keyHash, source]);
      const now = Date.now();
      const cached = cache.get(cacheKey);
      if (cached && cached.until > now) return cached.targets;
      const targets = await engines.engine(settings).targets(source);
      cache.delete(cacheKey);
      if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
      cache.set(cacheKey, { until: now + ttlMs, targets });
      return targets;
    },
  };
  return engines;
}

export type TranslationEngines = ReturnType<typeof translationEngines>;
