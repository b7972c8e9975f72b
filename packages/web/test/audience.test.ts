import { readFileSync } from 'node:fs';
import { describe, expect, test } from '@jest/globals';
import type { RelayCaption } from '@live-captions/protocol';
import { audienceUrl, qrModules } from '../src/browser/lib/audience-link.js';
import {
  atLiveEdge,
  DEFAULT_SETTINGS,
  parseSettings,
  resize,
  sizePercent,
  TEXT_SIZES,
} from '../src/browser/lib/audience-settings.js';
import { ALL_TRACKS, AudienceTranscript } from '../src/browser/lib/audience-transcript.js';
import { readParams } from '../src/browser/lib/params.js';

let sequence = 0;
const caption = (fields: Partial<RelayCaption> & { id: string | number }): RelayCaption =>
  ({ msg: true, relay: { epoch: 'e', sequence: ++sequence }, ...fields }) as RelayCaption;
const texts = (model: AudienceTranscript, show = ALL_TRACKS) =>
  model.lines(show).map((line) => line.parts.map((p) => `${p.interim ? '~' : ''}${p.text}`).join(' | '));

describe('audience transcript', () => {
  test('keeps the session in arrival order; the same id replaces its text in place (interim, final, correction)', () => {
    const model = new AudienceTranscript();
    expect(model.apply(caption({ id: 'a-1', interm: 'Hello' }))).toMatchObject({
      kind: 'added',
      final: false,
    });
    model.apply(caption({ id: 'a-2', final: 'Second.' }));
    expect(model.apply(caption({ id: 'a-1', final: 'Hello there.' }))).toMatchObject({
      kind: 'updated',
      id: 'a-1',
      final: true,
      text: 'Hello there.',
    });
    expect(texts(model)).toEqual(['Hello there.', 'Second.']);
    // An editor's correction of a caption already shown.
    model.apply(caption({ id: 'a-2', final: 'Second, corrected.' }));
    expect(texts(model)).toEqual(['Hello there.', 'Second, corrected.']);
  });

  test('a caption sent again (a publisher resending after a relay restart) is no change: never shown twice', () => {
    const model = new AudienceTranscript();
    model.apply(caption({ id: 7, final: 'Once.' }));
    expect(model.apply(caption({ id: 7, final: 'Once.' }))).toEqual({ kind: 'none' });
    expect(model.apply(caption({ id: '7', final: ' Once. ' }))).toEqual({ kind: 'none' });
    expect(texts(model)).toEqual(['Once.']);
  });

  test('an empty final takes the caption away; a clear (`c`) keeps the session', () => {
    const model = new AudienceTranscript();
    model.apply(caption({ id: 1, interm: 'Um' }));
    model.apply(caption({ id: 2, final: 'Kept.' }));
    expect(model.apply(caption({ id: 1, final: '' }))).toMatchObject({ kind: 'removed', id: '1' });
    expect(model.apply(caption({ id: 3, final: '', c: true }))).toEqual({ kind: 'none' });
    expect(model.apply(caption({ id: 9, final: '' }))).toEqual({ kind: 'none' });
    expect(texts(model)).toEqual(['Kept.']);
  });

  test('offers the tracks seen (the original first) and shows one of them or all', () => {
    const model = new AudienceTranscript();
    model.apply(caption({ id: 'c-1', final: 'Translated first.', label: 'translation', ln: 'en' }));
    model.apply(caption({ id: 'c-1', final: 'Zuerst übersetzt.', ln: 'de' }));
    model.apply(caption({ id: 'c-2', final: 'Nur Deutsch.', ln: 'de' }));
    model.apply(caption({ id: 'c-2', final: 'Sólo alemán.', label: 'translation', ln: 'ES' }));
    expect(model.tracks.map((t) => t.key)).toEqual(['original', 'en', 'es']);
    expect(model.tracks[0]).toMatchObject({ ln: 'de', translation: false });
    expect(texts(model)).toEqual(['Zuerst übersetzt. | Translated first.', 'Nur Deutsch. | Sólo alemán.']);
    expect(texts(model, 'en')).toEqual(['Translated first.']);
    // c-1 came before Spanish was added: it shows in the original.
    expect(texts(model, 'es')).toEqual(['Zuerst übersetzt.', 'Sólo alemán.']);
    expect(texts(model, 'original')).toEqual(['Zuerst übersetzt.', 'Nur Deutsch.']);
    expect(model.line('c-2', 'en')).toBeNull();
  });

  test('the original is one track whatever language its captions say; a correction replaces it in place', () => {
    const model = new AudienceTranscript();
    model.apply(caption({ id: 'r-1', final: 'Bon dia.', ln: 'en' }));
    model.apply(caption({ id: 'r-1', final: 'Bon dia a tothom.', ln: 'ca' }));
    model.apply(caption({ id: 'r-1', final: 'Buenos días.', label: 'translation', ln: 'es' }));
    model.apply(caption({ id: 'r-1', final: 'Buenos días a todos.', label: 'translation', ln: 'es' }));
    expect(texts(model, 'original')).toEqual(['Bon dia a tothom.']);
    expect(texts(model, 'es')).toEqual(['Buenos días a todos.']);
    // A translation's clear (`c`, per track) is an overlay's business: the session keeps its text.
    expect(model.apply(caption({ id: 'r-1', final: '', c: true, label: 'translation', ln: 'es' }))).toEqual({
      kind: 'none',
    });
    // What the tab keeps for a reload comes back as the same tracks.
    const again = new AudienceTranscript();
    again.restore(model.kept());
    expect(texts(again, 'es')).toEqual(['Buenos días a todos.']);
    expect(again.tracks.map((t) => t.key)).toEqual(['original', 'es']);
  });

  test('a language added mid-session: the captions from before it show in the original, later ones in that language once translated', () => {
    const model = new AudienceTranscript();
    model.apply(caption({ id: 1, final: 'Welcome.', ln: 'en' }));
    model.apply(caption({ id: 2, final: 'Item one.', ln: 'en' }));
    // Spanish is added now: caption 3 is its first.
    model.apply(caption({ id: 3, final: 'The vote.', ln: 'en' }));
    model.apply(caption({ id: 3, final: 'La votación.', label: 'translation', ln: 'es' }));
    model.apply(caption({ id: 4, final: 'Aye.', ln: 'en' }));
    expect(texts(model, 'es')).toEqual(['Welcome.', 'Item one.', 'La votación.']);
    expect(model.line('1', 'es')?.parts[0]?.track).toMatchObject({ key: 'original', ln: 'en' });
    // Caption 4 waits for its translation, then shows it.
    model.apply(caption({ id: 4, final: 'Sí.', label: 'translation', ln: 'es' }));
    expect(texts(model, 'es')).toEqual(['Welcome.', 'Item one.', 'La votación.', 'Sí.']);
    expect(texts(model, 'original')).toEqual(['Welcome.', 'Item one.', 'The vote.', 'Aye.']);
    // A reload keeps the rule.
    const again = new AudienceTranscript();
    again.restore(model.kept());
    expect(texts(again, 'es')).toEqual(texts(model, 'es'));
  });

  test('keeps at most `limit` captions, dropping the oldest and reporting them once', () => {
    const model = new AudienceTranscript(2);
    for (const id of [1, 2, 3]) model.apply(caption({ id, final: `t${id}` }));
    expect(texts(model)).toEqual(['t2', 't3']);
    expect(model.takeDropped()).toEqual(['1']);
    expect(model.takeDropped()).toEqual([]);
  });
});

describe('audience settings', () => {
  test('read back defensively: each bad field falls back alone', () => {
    expect(parseSettings({})).toEqual(DEFAULT_SETTINGS);
    expect(parseSettings(null)).toEqual(DEFAULT_SETTINGS);
    expect(parseSettings({ size: 4, theme: 'contrast' })).toEqual({ size: 4, theme: 'contrast' });
    // The language is no display setting any more (kept per room, languages.ts): an old one is ignored.
    expect(parseSettings({ size: 4, track: 'translation:en' })).toEqual({ size: 4 });
    expect(parseSettings({ size: 99, theme: 'neon', track: 3 })).toEqual(DEFAULT_SETTINGS);
    expect(parseSettings({ size: 1.5, theme: 'dark' })).toEqual({ ...DEFAULT_SETTINGS, theme: 'dark' });
  });

  test('text size steps stay within the sizes', () => {
    let settings = DEFAULT_SETTINGS;
    expect(sizePercent(settings)).toBe(100);
    settings = resize(resize(settings, 1), 1);
    expect(settings.size).toBe(DEFAULT_SETTINGS.size + 2);
    expect(sizePercent(settings)).toBeGreaterThan(100);
    for (let i = 0; i < 20; i++) settings = resize(settings, 1);
    expect(settings.size).toBe(TEXT_SIZES.length - 1);
    for (let i = 0; i < 20; i++) settings = resize(settings, -1);
    expect(settings.size).toBe(0);
  });

  test('the live edge is the bottom of the view, with some slack', () => {
    expect(atLiveEdge({ scrollTop: 1000, clientHeight: 800, scrollHeight: 1800 })).toBe(true);
    expect(atLiveEdge({ scrollTop: 970, clientHeight: 800, scrollHeight: 1800 })).toBe(true);
    expect(atLiveEdge({ scrollTop: 600, clientHeight: 800, scrollHeight: 1800 })).toBe(false);
    expect(atLiveEdge({ scrollTop: 0, clientHeight: 800, scrollHeight: 400 })).toBe(true);
  });
});

describe('audience link', () => {
  test('carries the output room and its read token in the fragment only', () => {
    const token = 'OR'.repeat(20);
    const link = audienceUrl(
      'https://ui.example.org/',
      'wss://relay.example.org/ws',
      'captions-output',
      token,
    );
    expect(link).toBe(
      `https://ui.example.org/audience.html#relayUrl=wss%3A%2F%2Frelay.example.org%2Fws&room=captions-output&relayReadToken=${token}`,
    );
    const params = readParams(link);
    expect([params.get('relayUrl'), params.get('room'), params.get('relayReadToken')]).toEqual([
      'wss://relay.example.org/ws',
      'captions-output',
      token,
    ]);
    expect(params.cleanUrl).not.toContain(token);
  });

  test('can carry a language (`ln`), which the page reads like any setting; the original needs none', () => {
    const link = audienceUrl(
      'https://ui.example.org/',
      'wss://r.example.org/ws',
      'out',
      'x'.repeat(43),
      'es',
    );
    expect(link.endsWith('&ln=es')).toBe(true);
    expect(readParams(link).get('ln')).toBe('es');
    // Once the token is out of the address, the language stays in it (a reload keeps it).
    expect(readParams(readParams(link).cleanUrl).get('ln')).toBe('es');
    expect(
      audienceUrl('https://ui.example.org/', 'wss://r.example.org/ws', 'out', 'x'.repeat(43), 'original'),
    ).toBe(audienceUrl('https://ui.example.org/', 'wss://r.example.org/ws', 'out', 'x'.repeat(43)));
  });

  test('its QR code is made locally: a square of modules with the three finder patterns', () => {
    const modules = qrModules(
      audienceUrl('https://ui.example.org/', 'wss://r.example.org/ws', 'out', 'x'.repeat(43)),
    );
    const n = modules.length;
    expect(n).toBeGreaterThanOrEqual(21);
    expect((n - 17) % 4).toBe(0); // version v has 17 + 4v modules
    expect(modules.every((row) => row.length === n)).toBe(true);
    // A finder pattern: a dark 7x7 ring around a light ring around a dark 3x3 centre.
    const finder = (top: number, left: number) =>
      [0, 6].every((i) =>
        [0, 1, 2, 3, 4, 5, 6].every((j) => modules[top + i]![left + j] && modules[top + j]![left + i]),
      ) &&
      !modules[top + 1]![left + 1] &&
      modules[top + 3]![left + 3];
    expect([finder(0, 0), finder(0, n - 7), finder(n - 7, 0)]).toEqual([true, true, true]);
    expect(finder(n - 7, n - 7)).toBe(false);
  });
});

describe('audience colours', () => {
  // Every theme of audience.css and its dark palette (audience-dark.css, for the device's dark
  // preference and the chosen dark theme alike): text, interim (muted), translations (accent) and
  // the jump button at least 4.5:1 (WCAG AA for text) against what they are drawn on.
  const stylesheet = (name: string) =>
    readFileSync(new URL(`../static/css/${name}`, import.meta.url), 'utf8');
  const css = stylesheet('audience.css');
  const darkCss = stylesheet('audience-dark.css');
  const themes = Object.fromEntries(
    (
      [
        ['light', css, /^:root \{([^}]*)\}/m],
        ['dark (the device preference or chosen)', darkCss, /^:root \{([^}]*)\}/m],
        ['contrast', css, /:root\[data-theme="contrast"\] \{([^}]*)\}/],
      ] as const
    ).map(([name, text, pattern]) => {
      const body = pattern.exec(text)?.[1] ?? '';
      const vars = Object.fromEntries(
        [...body.matchAll(/--([a-z-]+):\s*(#[0-9a-f]{6})/gi)].map((m) => [m[1], m[2]]),
      );
      return [name as string, vars];
    }),
  );
  const luminance = (hex: string) => {
    const [r, g, b] = [1, 3, 5].map((i) => {
      const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const ratio = (a: string, b: string) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi! + 0.05) / (lo! + 0.05);
  };

  test.each(Object.keys(themes))('%s: every pair at least 4.5:1', (name) => {
    const v = themes[name]!;
    const pairs = [
      ['text', 'bg'],
      ['text', 'bar'],
      ['muted', 'bg'],
      ['muted', 'bar'],
      ['accent', 'bg'],
      ['accent-text', 'accent'],
    ];
    const low = pairs
      .map(([fg, bg]) => ({ pair: `${fg} on ${bg}`, ratio: ratio(v[fg!] ?? '#000000', v[bg!] ?? '#000000') }))
      .filter(({ ratio }) => ratio < 4.5);
    expect(pairs.flat().filter((name) => !v[name])).toEqual([]);
    expect(low).toEqual([]);
  });
});
