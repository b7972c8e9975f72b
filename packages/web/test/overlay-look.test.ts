import { describe, expect, test } from '@jest/globals';
import { buildLinks, overlayQuery } from '../src/browser/lib/links.js';
import { captionsThatFit, OVERLAY_FONTS, overlayLook, relayNotice } from '../src/browser/lib/overlay-look.js';

const given = (values: Record<string, string>) => (name: string) => values[name];

describe('overlay look', () => {
  test('font, size, colours and position from the link; bad values ignored', () => {
    const look = overlayLook(
      given({ fontsize: '60', font: 'serif', color: '#ffcc00', bg: 'transparent', position: 'top' }),
      () => true,
    );
    expect(look).toEqual({
      properties: {
        '--caption-size': '60px',
        '--caption-font': OVERLAY_FONTS.serif,
        '--caption-color': '#ffcc00',
        '--caption-background': 'transparent',
      },
      position: 'top',
    });
    const bad = overlayLook(
      given({ fontsize: '2', font: 'Comic; url(x)', color: 'red;x', bg: 'nocolour', position: 'left' }),
      (value) => value !== 'nocolour',
    );
    expect(bad).toEqual({ properties: {}, position: 'bottom' });
  });

  test('the hub puts the new options in the overlay link', () => {
    expect(overlayQuery({ maxlines: 2, font: 'mono', bg: 'black', position: 'top' })).toBe(
      'maxlines=2&font=mono&bg=black&position=top',
    );
    const links = buildLinks(
      'https://ui.example.org/',
      null,
      {
        relayUrl: 'wss://r.example.org/ws',
        sourceRoom: 'a',
        outputRoom: 'b',
        outputReadToken: 'o'.repeat(32),
      },
      { position: 'top' },
    );
    expect(new URL(links.overlay!).search).toBe('?position=top');
  });
});

describe('a limit in visual lines', () => {
  test('the newest captions that fit in the lines are kept', () => {
    expect(captionsThatFit([1, 1, 1, 1], 3)).toBe(3);
    // Three long captions of two lines each in three lines: only the newest fits.
    expect(captionsThatFit([2, 2, 2], 3)).toBe(1);
    expect(captionsThatFit([1, 2], 3)).toBe(2);
    // One caption taller than the limit is still shown (its last lines).
    expect(captionsThatFit([1, 5], 3)).toBe(1);
    expect(captionsThatFit([], 3)).toBe(0);
  });
});

describe('the overlay notice', () => {
  test('wrong token, unreachable relay, none once joined', () => {
    expect(relayNotice('stopped', 1008)).toMatch(/refused \(wrong or old token\)/);
    expect(relayNotice('lost', undefined, true)).toMatch(/unreachable/);
    expect(relayNotice('waiting')).toBeUndefined();
    expect(relayNotice('joined')).toBeUndefined();
    expect(relayNotice('connecting')).toBeUndefined();
  });

  test('on air (no notice=1) a relay blip shows nothing; a refused link still shows', () => {
    expect(relayNotice('lost')).toBeUndefined();
    expect(relayNotice('lost', undefined, false)).toBeUndefined();
    expect(relayNotice('stopped', 1008, false)).toMatch(/refused/);
  });
});
