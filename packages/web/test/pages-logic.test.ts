import { describe, expect, test } from '@jest/globals';
import type { RelayCaption } from '@live-captions/protocol';
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

  test("the overlay's language is a display option in its query (OBS users edit it), read back as its track", () => {
    const link = overlayUrl('https://ui.example.org/', relay.relayUrl, 'out', 't'.repeat(32), {
      ln: 'es',
      maxlines: 2,
    });
    expect(link).toContain('overlay.html?ln=es&maxlines=2#');
    const params = readParams(link);
    expect(overlayOptions(params.get).track).toBe('es');
    // The editor's "Copy overlay link" keeps the hub's query, language included.
    const { editor } = buildLinks('https://ui.example.org/', null, relay, { ln: 'ca' });
    expect(readParams(editor!).get('overlay')).toBe('ln=ca');
    // The original is the default: no `ln` at all.
    expect(
      overlayUrl('https://ui.example.org/', relay.relayUrl, 'out', 't', { ln: 'original' }),
    ).not.toContain('ln=');
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
      track: 'original',
    });
    expect(OVERLAY_SHOWTIME_MS).toBeGreaterThan(9_000);
    const given: Record<string, string> = { maxlines: '0', showtime: '0', clear: 'true' };
    expect(overlayOptions((name) => given[name])).toEqual({
      maxlines: 3,
      clear: true,
      dual: false,
      showtimeMs: 0,
      track: 'original',
    });
    expect(overlayOptions((name) => ({ ln: 'PT-br' })[name]).track).toBe('pt-BR');
    // `all` is the audience page's; an overlay shows one track.
    expect(overlayOptions((name) => ({ ln: 'all' })[name]).track).toBe('original');
    expect(overlayOptions((name) => ({ ln: '"><b>' })[name]).track).toBe('original');
  });

  test("ln: one language only, its clear and the original's clear (the editor's), not another's", () => {
    const spanish = new OverlayModel(overlayOptions((name) => ({ ln: 'es' })[name]));
    expect(spanish.apply(caption({ id: 1, final: 'Good morning.' }))).toBe(false);
    expect(spanish.apply(caption({ id: 1, final: 'Bon dia.', label: 'translation', ln: 'ca' }))).toBe(false);
    expect(spanish.apply(caption({ id: 1, final: 'Buenos días.', label: 'translation', ln: 'es' }))).toBe(
      true,
    );
    // Whisper's own English translation is the track `en`, not this one.
    expect(spanish.apply(caption({ id: 2, final: 'Hello.', label: 'translation', ln: 'en' }))).toBe(false);
    // A correction of the translation (same id again) replaces its line.
    spanish.apply(caption({ id: 1, final: 'Buenos días a todos.', label: 'translation', ln: 'es' }));
    // The line carries its language: the page sets it as the line's `lang`.
    expect(spanish.lines).toEqual([
      { key: 's:1', text: 'Buenos días a todos.', translation: false, interim: false, ln: 'es' },
    ]);
    expect(spanish.apply(caption({ id: 3, final: '', c: true, label: 'translation', ln: 'ca' }))).toBe(false);
    expect(spanish.lines).toHaveLength(1);
    expect(spanish.apply(caption({ id: 3, final: '', c: true, label: 'translation', ln: 'es' }))).toBe(true);
    spanish.apply(caption({ id: 4, final: 'Otra.', label: 'translation', ln: 'es' }));
    expect(spanish.apply(caption({ id: 5, final: '', c: true }))).toBe(true);
    expect(spanish.lines).toEqual([]);

    // dual with ln: the chosen language, and the original beside it as the smaller line.
    const both = new OverlayModel(overlayOptions((name) => ({ ln: 'es', dual: '1' })[name]));
    both.apply(caption({ id: 1, final: 'Good morning.' }));
    both.apply(caption({ id: 1, final: 'Bon dia.', label: 'translation', ln: 'ca' }));
    both.apply(caption({ id: 1, final: 'Buenos días.', label: 'translation', ln: 'es' }));
    expect(both.lines.map((line) => [line.text, line.translation])).toEqual([
      ['Good morning.', true],
      ['Buenos días.', false],
    ]);
    // dual without ln: the translation beside the original carries its own language.
    const dual = new OverlayModel(overlayOptions((name) => ({ dual: '1' })[name]));
    dual.apply(caption({ id: 1, final: 'Bon dia.', ln: 'ca' }));
    dual.apply(caption({ id: 1, final: 'Buenos días.', label: 'translation', ln: 'es' }));
    expect(dual.lines.map((line) => [line.text, line.ln])).toEqual([
      ['Bon dia.', 'ca'],
      ['Buenos días.', 'es'],
    ]);
    const reloaded = new OverlayModel(overlayOptions((name) => ({ dual: '1' })[name]));
    reloaded.restore(dual.lines);
    expect(reloaded.lines).toEqual(dual.lines);
  });
});

describe('review queue, transcript', () => {
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
