/**
 * The Apertium engine against a real Apertium APy: the installed pairs as BCP-47 targets, a batch
 * translated in order with names unmarked, a pair it lacks (not retryable), a killed APy
 * (retryable) that comes back. The hosted engines: engines-libretranslate.test.ts,
 * engines-deepl.test.ts, engines-faults.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { ApertiumServer } from '@live-captions/test-services';
import { failure, type Harness, startHarness } from './engine-harness.js';

let harness: Harness | undefined;
let apy: ApertiumServer;
let engine: Harness['engine'];

beforeAll(async () => {
  harness = await startHarness({ apertium: true });
  apy = harness.apy!;
  ({ engine } = harness);
}, 60_000);

afterAll(() => harness?.stop());

describe('Apertium APy (real)', () => {
  test('lists the installed pairs as BCP-47 targets with English names', async () => {
    const targets = await engine({ kind: 'apertium' }).targets('en');
    expect(targets).toEqual(
      expect.arrayContaining([
        { code: 'ca', name: 'Catalan' },
        { code: 'ca-valencia', name: 'Catalan (Valencian)' },
        { code: 'es', name: 'Spanish' },
      ]),
    );
    expect(targets.every((target) => !target.code.startsWith('en'))).toBe(true);
    expect((await engine({ kind: 'apertium' }).targets('es')).map((target) => target.code)).toEqual(
      expect.arrayContaining(['en', 'en-US']),
    );
    expect(await engine({ kind: 'apertium' }).targets('de')).toEqual([]);
  }, 60_000);

  test('translates a batch in order, one request per text; names pass unmarked; empty stays empty', async () => {
    const out = await engine({ kind: 'apertium' }).translate({
      source: 'en',
      target: 'es',
      texts: ['The council met on Tuesday.', '', 'Okonkwo said <b>no</b> & left.'],
    });
    expect(out).toHaveLength(3);
    expect(out[0]).toMatch(/consejo/);
    expect(out[1]).toBe('');
    // markUnknown=no: no "*Okonkwo"; format=txt: the brackets are text, not markup.
    expect(out[2]).toMatch(/^Okonkwo/);
    expect(out[2]).toContain('<b>');
    const valencian = await engine({ kind: 'apertium' }).translate({
      source: 'en',
      target: 'ca-valencia',
      texts: ['The council met.'],
    });
    expect(valencian[0]).toMatch(/consell/);
  }, 90_000);

  test('a pair it lacks is not retryable; a killed APy is, and it comes back', async () => {
    const unsupported = await failure(
      engine({ kind: 'apertium' }).translate({ source: 'en', target: 'de', texts: ['Hello.'] }),
    );
    expect(unsupported).toMatchObject({ code: 'unsupported_pair', status: 400, retryable: false });

    await apy.kill();
    const down = await failure(
      engine({ kind: 'apertium' }).translate({ source: 'en', target: 'es', texts: ['Hello.'] }),
    );
    expect(down).toMatchObject({ code: 'engine_unreachable', retryable: true });
    expect(down.message).toContain('ECONNREFUSED');
    await apy.start();
    expect(
      await engine({ kind: 'apertium' }).translate({ source: 'en', target: 'es', texts: ['Hello.'] }),
    ).toEqual(['Hola.']);
  }, 60_000);
});
