/**
 * Connection faults of either hosted engine (the LibreTranslate and DeepL stand-ins): a hanging
 * engine times out, a reset or a stopped one is unreachable, an aborted call says so; all
 * retryable but the abort.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  type DeepLStandIn,
  type EngineStandIn,
  type LibreTranslateStandIn,
  standInTranslation,
} from '@live-captions/test-services';
import type { EngineSettings } from '../src/index.js';
import { DEEPL_KEY, failure, type Harness, LIBRE_KEY, startHarness } from './engine-harness.js';

let harness: Harness | undefined;
let libre: LibreTranslateStandIn;
let deepl: DeepLStandIn;
let engine: Harness['engine'];

beforeAll(async () => {
  harness = await startHarness({ apertium: false });
  ({ libre, deepl, engine } = harness);
}, 60_000);

afterAll(() => harness?.stop());

describe('connection faults (either stand-in)', () => {
  const cases: [string, () => EngineStandIn, () => EngineSettings][] = [
    ['LibreTranslate', () => libre, () => ({ kind: 'libretranslate', url: libre.url, key: LIBRE_KEY })],
    ['DeepL', () => deepl, () => ({ kind: 'deepl', url: deepl.url, key: DEEPL_KEY })],
  ];

  test.each(cases)(
    '%s: a hanging engine times out, a reset or a stopped one is unreachable; all retryable',
    async (_, standIn, settings) => {
      const call = () =>
        engine(settings(), 400).translate({ source: 'en', target: 'es', texts: ['hello there'] });
      standIn().script('hang', 'reset');
      const started = Date.now();
      const hung = await failure(call());
      expect(hung).toMatchObject({ code: 'engine_timeout', retryable: true });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(await failure(call())).toMatchObject({ code: 'engine_unreachable', retryable: true });
      await standIn().down();
      try {
        expect(await failure(call())).toMatchObject({ code: 'engine_unreachable', retryable: true });
      } finally {
        await standIn().up();
      }
      const aborted = new AbortController();
      aborted.abort();
      expect(
        await failure(
          engine(settings()).translate({ source: 'en', target: 'es', texts: ['x y'] }, aborted.signal),
        ),
      ).toMatchObject({ code: 'aborted' });
      expect(await call()).toEqual([standInTranslation('hello there')]);
    },
  );
});
