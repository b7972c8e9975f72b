/**
 * What the engine suites share: a real Apertium APy, or the strict stand-ins of LibreTranslate
 * (one with a key, one elsewhere without) and DeepL (packages/test-services), all allowed; engines
 * made against them; the EngineError a call fails with; and that a key is never in an error.
 */
import { expect } from '@jest/globals';
import {
  type ApertiumServer,
  type DeepLStandIn,
  type LibreTranslateStandIn,
  startApertium,
  startDeepLStandIn,
  startLibreTranslateStandIn,
} from '@live-captions/test-services';
import { createEngine, EngineError, type EngineSettings, type TranslationEngine } from '../src/index.js';

export const LIBRE_KEY = 'libre-SECRET-key-0123456789';
export const DEEPL_KEY = 'deepl-SECRET-0000-1111-2222:fx';

/** Apertium's address for engines that never ask it. */
export const NO_APERTIUM = 'http://127.0.0.1:9';

export interface Harness {
  /** With `apertium` only. */
  apy?: ApertiumServer;
  libre: LibreTranslateStandIn;
  deepl: DeepLStandIn;
  /** A LibreTranslate without a key, on another port: where a redirect would lead. */
  elsewhere: LibreTranslateStandIn;
  engine(settings: EngineSettings, timeoutMs?: number): TranslationEngine;
  /** Stops everything; no stand-in may have seen a request its platform would call a contract violation. */
  stop(): Promise<void>;
}

/** `apertium`: a real APy too (its address is where Apertium engines go; without it, nowhere). */
export async function startHarness(options: { apertium: boolean }): Promise<Harness> {
  const [apy, libre, deepl, elsewhere] = await Promise.all([
    options.apertium ? startApertium() : undefined,
    startLibreTranslateStandIn({ apiKey: LIBRE_KEY }),
    startDeepLStandIn({ key: DEEPL_KEY }),
    startLibreTranslateStandIn(),
  ]);
  const allowedHosts = new Set([libre.hostPort, deepl.hostPort, elsewhere.hostPort]);
  const apertiumUrl = apy?.url ?? NO_APERTIUM;
  return {
    ...(apy ? { apy } : {}),
    libre,
    deepl,
    elsewhere,
    // Generous: a pair's first request starts its pipeline, which takes seconds on a loaded machine.
    engine: (settings, timeoutMs = 30_000) =>
      createEngine(settings, { allowedHosts, apertiumUrl, timeoutMs }),
    async stop() {
      await Promise.all([apy?.stop(), libre.close(), deepl.close(), elsewhere.close()]);
      expect([...libre.violations, ...deepl.violations, ...elsewhere.violations]).toEqual([]);
    },
  };
}

/** The EngineError a call fails with; the test fails if it succeeds or throws anything else. */
export async function failure(call: Promise<unknown>): Promise<EngineError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof EngineError) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}

export function keyless(error: EngineError, key: string): void {
  expect(error.message).not.toContain(key);
  expect(JSON.stringify({ ...error, message: error.message })).not.toContain(key);
  expect(String(error.stack)).not.toContain(key);
}
