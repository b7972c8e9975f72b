import { describe, expect, test } from '@jest/globals';
import {
  CEA608_COLUMNS,
  captionChunks,
  cea608Text,
  holdMs,
  OBS_CAPTION_BYTES,
  wrapRows,
} from '../src/browser/lib/cea608-lines.js';

const longCaption =
  'Welcome everyone to the annual meeting of the association, where we will first review the budget and then elect the new board members for the coming year.';

describe('wrapping for CEA-608', () => {
  test('rows of at most 32 characters, broken at spaces, nothing lost or reordered', () => {
    const rows = wrapRows(longCaption);
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(CEA608_COLUMNS);
    expect(rows.join(' ')).toBe(longCaption);
    // Greedy: no row could have taken the next word.
    for (let i = 0; i + 1 < rows.length; i++) {
      expect(`${rows[i]} ${rows[i + 1]!.split(' ')[0]}`.length).toBeGreaterThan(CEA608_COLUMNS);
    }
    expect(rows[0]).toBe('Welcome everyone to the annual');
  });

  test('a word longer than a row is split; whitespace and control characters collapse', () => {
    expect(wrapRows(`a ${'x'.repeat(70)} b`)).toEqual(['a', 'x'.repeat(32), 'x'.repeat(32), 'xxxxxx b']);
    expect(cea608Text('  one\n\ttwo\u0007  three ')).toBe('one two three');
    expect(wrapRows('  ')).toEqual([]);
  });

  test('characters 608 lacks (OBS would end the caption there) are replaced or dropped', () => {
    expect(cea608Text('Café… it’s 5€ – “déjà vu” `x`')).toBe("Café... it’s 5EUR - “déjà vu” 'x'");
    expect(cea608Text('Ærø łódź ŝ Größe Œuvre')).toBe('AErø ódz s Größe OEuvre');
    expect(cea608Text('smile 🙂 please 日本語')).toBe('smile please');
    // Spanish and Catalan translations: 608 has their letters; the ela geminada's dot becomes a stop.
    expect(cea608Text('¿Señoría? El col·legi és aquí, però')).toBe('¿Señoría? El col.legi és aquí, però');
    expect(cea608Text('日本語')).toBe('');
    expect(captionChunks('🙂🙂')).toEqual([]);
    const plain = ' !"#$%&\'()*+,-./0123456789:;<=>?@ABCXYZ[\\]^_abcxyz{|}~';
    expect(cea608Text(plain)).toBe(plain.trim());
  });

  test('characters, not UTF-16 units, are counted', () => {
    const word = 'é'.repeat(20);
    expect(wrapRows(`${word} ${word}`)).toEqual([word, word]);
  });

  test('a long caption becomes successive captions of at most two rows and 128 bytes', () => {
    const chunks = captionChunks(longCaption);
    expect(chunks.length).toBe(3);
    for (const chunk of chunks) {
      expect(chunk.split('\n').length).toBeLessThanOrEqual(2);
      expect(new TextEncoder().encode(chunk).length).toBeLessThanOrEqual(OBS_CAPTION_BYTES);
    }
    expect(chunks.join('\n').split('\n')).toEqual(wrapRows(longCaption));
    expect(captionChunks('Short one.')).toEqual(['Short one.']);
    expect(captionChunks('')).toEqual([]);
    expect(captionChunks(longCaption, { rows: 3 }).length).toBe(2);
  });

  test('multi-byte text is kept within OBS 128-byte buffer (it would cut the rest)', () => {
    // Three bytes each in UTF-8: two full rows would be 196 bytes.
    const wide = Array.from({ length: 12 }, () => '♪♪┌┐└┘•™').join(' ');
    const chunks = captionChunks(wide);
    expect(chunks.length).toBe(wrapRows(wide).length);
    for (const chunk of chunks) expect(new TextEncoder().encode(chunk).length).toBeLessThanOrEqual(128);
    expect(chunks.join(' ').replace(/\n/g, ' ')).toBe(wide);
  });
});

describe('pacing', () => {
  test('reading time within 1.5-4 s, shorter when captions are waiting', () => {
    expect(holdMs('Hi.', 0)).toBe(1500);
    expect(holdMs('x'.repeat(50), 0)).toBe(3000);
    expect(holdMs('x'.repeat(65), 0)).toBe(3900);
    expect(holdMs('x'.repeat(200), 0)).toBe(4000);
    expect(holdMs('x'.repeat(50), 2)).toBe(3000);
    expect(holdMs('x'.repeat(50), 3)).toBe(1500);
    expect(holdMs('Hi.', 5)).toBe(1000);
  });
});
