import { describe, expect, test } from '@jest/globals';
import type { RelayCaption } from '@live-captions/protocol';
import { levelFromRms, smoothLevel } from '../src/browser/lib/level.js';
import { buildLinks, overlayUrl } from '../src/browser/lib/links.js';
import { OVERLAY_SHOWTIME_MS, OverlayModel, overlayOptions } from '../src/browser/lib/overlay-model.js';
import { fragment, isRelayUrl, readParams } from '../src/browser/lib/params.js';
import { ReviewQueue } from '../src/browser/lib/review-queue.js';
import { Transcript } from '../src/browser/lib/transcript.js';
import { parseTransport, VAD_THRESHOLD } from '../src/browser/lib/transport.js';

const relay = {
  relayUrl: 'wss://relay.example.org/ws',
  sourceRoom: 'captions',
  outputRoom: 'captions-output',
  sourceReadToken: 'SR'.repeat(20),
  sourceWriteToken: 'SW'.repeat(20),
  outputReadToken: 'OR'.repeat(20),
  outputWriteToken: 'OW'.repeat(20),
};

const caption = (fields: Partial<RelayCaption> & { id: string | number }, sequence = 1): RelayCaption =>
  ({ msg: true, relay: { epoch: 'e', sequence }, ...fields }) as RelayCaption;

describe('links', () => {
  test('each link carries only its own tokens, in the fragment', () => {
    const links = buildLinks('https://ui.example.org/', 'https://capture.example.org/', relay, {
      maxlines: 2,
    });
    const tokensIn = (link: string | null) =>
      Object.entries(relay)
        .filter(([key, value]) => key.endsWith('Token') && link!.includes(value))
        .map(([key]) => key);
    expect(tokensIn(links.capture)).toEqual(['sourceWriteToken']);
    // The editor also carries the output read token, for its "Copy overlay link".
    expect(tokensIn(links.editor)).toEqual(['sourceReadToken', 'outputReadToken', 'outputWriteToken']);
    expect(tokensIn(links.overlay)).toEqual(['outputReadToken']);
    for (const link of Object.values(links)) expect(new URL(link!).search).not.toMatch(/Token/);
    expect(links.capture).toBe(
      `https://capture.example.org/#relayUrl=wss%3A%2F%2Frelay.example.org%2Fws&room=captions&relayWriteToken=${relay.sourceWriteToken}`,
    );
    expect(links.overlay).toMatch(/^https:\/\/ui\.example\.org\/overlay\.html\?maxlines=2#relayUrl=/);
  });

  test('a link without its token is not built', () => {
    const links = buildLinks('https://ui.example.org/', null, { ...relay, outputReadToken: null });
    expect(links).toEqual({ capture: null, editor: expect.any(String), overlay: null });
    expect(
      overlayUrl('https://ui.example.org/', relay.relayUrl, 'out', 't'.repeat(32), {
        clear: true,
        showtime: 0,
      }),
    ).toContain('overlay.html?clear=1&showtime=0#');
  });
});

describe('params', () => {
  test('tokens only from the fragment, stripped from the clean address', () => {
    const params = readParams(
      'https://ui.example.org/overlay.html?maxlines=2&relayReadToken=query#room=out&relayReadToken=abc&dual=1',
    );
    expect(params.get('relayReadToken')).toBe('abc');
    expect(params.get('maxlines')).toBe('2');
    expect(params.get('dual')).toBe('1');
    expect(params.hadTokens).toBe(true);
    expect(params.cleanUrl).toBe(
      'https://ui.example.org/overlay.html?maxlines=2&relayReadToken=query#room=out&dual=1',
    );
    expect(readParams('https://x.example/?relayReadToken=q').get('relayReadToken')).toBeUndefined();
    expect(fragment({ a: 'x y', b: undefined, c: true, d: false, e: 0 })).toBe('a=x+y&c=1&e=0');
    expect(isRelayUrl('ws://localhost:8080/ws')).toBe(true);
    expect(isRelayUrl('https://relay.example.org')).toBe(false);
    expect(isRelayUrl('nonsense')).toBe(false);
  });
});

describe('overlay model', () => {
  test('keeps the last maxlines captions; clear replaces; c clears', () => {
    const model = new OverlayModel(overlayOptions((name) => ({ maxlines: '2' })[name]));
    for (const id of [1, 2, 3]) model.apply(caption({ id, final: `line ${id}` }, id));
    expect(model.lines.map((line) => line.text)).toEqual(['line 2', 'line 3']);
    expect(model.apply(caption({ id: 4, final: '', c: true }))).toBe(true);
    expect(model.lines).toEqual([]);

    const replace = new OverlayModel({ maxlines: 3, clear: true, dual: false, showtimeMs: 0 });
    replace.apply(caption({ id: 1, final: 'one' }));
    replace.apply(caption({ id: 2, final: 'two' }));
    expect(replace.lines.map((line) => line.text)).toEqual(['two']);
  });

  test('a final shown once is never shown twice; interim text is replaced by its final', () => {
    const model = new OverlayModel(overlayOptions(() => undefined));
    expect(model.apply(caption({ id: 'a', interm: 'hel' } as never))).toBe(true);
    expect(model.lines).toEqual([{ key: 's:a', text: 'hel', translation: false, interim: true }]);
    expect(model.apply(caption({ id: 'a', final: 'hello' }))).toBe(true);
    expect(model.apply(caption({ id: 'a', final: 'hello' }, 9))).toBe(false);
    expect(model.lines.map((line) => line.text)).toEqual(['hello']);
    // An empty final withdraws a line.
    model.apply(caption({ id: 'b', interm: 'oops' } as never));
    model.apply(caption({ id: 'b', final: '' }));
    expect(model.lines.map((line) => line.text)).toEqual(['hello']);
  });

  test('translations only with dual, counted with their transcript', () => {
    const single = new OverlayModel(overlayOptions(() => undefined));
    expect(single.apply(caption({ id: 1, final: 'Hallo', ln: 'de' }))).toBe(true);
    expect(single.apply(caption({ id: 1, final: 'Hello', ln: 'en', label: 'translation' }))).toBe(false);

    const dual = new OverlayModel(overlayOptions((name) => ({ dual: '1', maxlines: '1' })[name]));
    dual.apply(caption({ id: 1, final: 'Hallo' }));
    dual.apply(caption({ id: 1, final: 'Hello', label: 'translation' }));
    expect(dual.lines.map((line) => [line.text, line.translation])).toEqual([
      ['Hallo', false],
      ['Hello', true],
    ]);
    dual.apply(caption({ id: 2, final: 'Tschüss' }));
    expect(dual.lines.map((line) => line.text)).toEqual(['Tschüss']);
  });

  test('options: defaults and bad values', () => {
    expect(overlayOptions(() => undefined)).toEqual({
      maxlines: 3,
      clear: false,
      dual: false,
      showtimeMs: OVERLAY_SHOWTIME_MS,
    });
    expect(OVERLAY_SHOWTIME_MS).toBeGreaterThan(9_000);
    const given: Record<string, string> = { maxlines: '0', showtime: '0', clear: 'true' };
    expect(overlayOptions((name) => given[name])).toEqual({
      maxlines: 3,
      clear: true,
      dual: false,
      showtimeMs: 0,
    });
  });
});

describe('review queue, transcript, level', () => {
  test('the queue is FIFO and bounded, oldest dropped first', () => {
    const queue = new ReviewQueue(2);
    for (const id of [1, 2, 3]) queue.push({ id, text: `t${id}`, receivedAt: id * 1000 });
    expect(queue.dropped).toBe(1);
    expect(queue.age(5000)).toBe(3000);
    expect(queue.shift()?.id).toBe(2);
    expect(queue.length).toBe(1);
  });

  test('transcript text and file name', () => {
    const transcript = new Transcript();
    transcript.add({ at: new Date(2025, 0, 2, 9, 5, 7), text: 'Hallo', translation: 'Hello' });
    transcript.add({ at: new Date(2025, 0, 2, 9, 5, 9), text: 'Welt' });
    expect(transcript.toText()).toBe('[09:05:07] Hallo\n[09:05:07] (en) Hello\n[09:05:09] Welt\n');
    expect(transcript.fileName()).toBe('captions-2025-01-02-0905.txt');
  });

  test('level meter maps -60..0 dBFS to 0..1 and releases slowly', () => {
    expect(levelFromRms(0)).toBe(0);
    expect(levelFromRms(1)).toBe(1);
    expect(levelFromRms(0.001)).toBeCloseTo(0, 6);
    expect(levelFromRms(0.0316)).toBeCloseTo(0.5, 2);
    expect(smoothLevel(0.2, 0.8)).toBe(0.8);
    expect(smoothLevel(0.8, 0.2)).toBeCloseTo(0.71, 6);
  });
});

describe('capture transport', () => {
  test('the URL parameter or saved choice picks the transport; anything else is rolling', () => {
    expect(parseTransport('realtime')).toBe('realtime');
    expect(parseTransport('rolling')).toBe('rolling');
    for (const other of [undefined, null, '', 'Realtime', 'websocket'])
      expect(parseTransport(other)).toBe('rolling');
  });

  test('sensitivity maps to a stricter VAD threshold in a noisier room', () => {
    expect(VAD_THRESHOLD.quiet).toBeLessThan(VAD_THRESHOLD.normal);
    expect(VAD_THRESHOLD.normal).toBe(0.5);
    expect(VAD_THRESHOLD.noisy).toBeGreaterThan(VAD_THRESHOLD.normal);
  });
});
