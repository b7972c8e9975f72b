import { describe, expect, test } from '@jest/globals';
import { chrF } from '../src/index.js';

// Scores from sacreBLEU 2.6.0 (`sentence_chrf` / `corpus_chrf` with their defaults: chrF2, char
// order 6, no word n-grams, whitespace removed, effective order), divided by 100.
describe('chrF agrees with sacreBLEU', () => {
  test.each([
    [
      'Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich.',
      'Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich.',
      0.648181237261,
    ],
    [
      'El consejo cumplió encima martes para hablar el presupuesto.',
      'El consejo se reunió el martes para discutir el presupuesto.',
      0.580510635911,
    ],
    [
      'Vespre bo, tothom, i benvinguda al regular conèixer.',
      'Bon vespre a tothom, i benvinguts a la reunió ordinària.',
      0.436010134414,
    ],
    ['ご視聴ありがとうございました', 'ご視聴ありがとう', 0.813727123398],
    ['a b c', 'abc', 1],
    ['aa', 'ab', 0.25],
    ['abcdefg', 'hijklmnop', 0],
    ['', 'reference', 0],
  ])('%s | %s', (hypothesis, reference, expected) => {
    expect(chrF(hypothesis, reference)).toBeCloseTo(expected, 9);
  });

  test('corpus level: n-gram counts summed over the pairs before the score', () => {
    expect(
      chrF(
        ['El consejo cumplió encima martes.', 'Hola mundo', 'a b c'],
        ['El consejo se reunió el martes.', 'Hola, mundo.', 'abc'],
      ),
    ).toBeCloseTo(0.503141759761, 9);
    // sacreBLEU's own test suite (test_chrf.py, effective order, beta 3).
    expect(chrF(['a', 'b'], ['a', 'c'], { beta: 3 })).toBeCloseTo(0.5, 9);
    expect(chrF('aa', 'ab', { beta: 3 })).toBeCloseTo(0.25, 9);
  });

  test('identical texts score 1 whatever their spacing; recall weighs more than precision', () => {
    const text = 'El consejo se reunió el martes para discutir el presupuesto.';
    expect(chrF(text, text)).toBe(1);
    expect(chrF(`  ${text.replace(/ /g, '   ')}\n`, text)).toBe(1);
    const half = 'El consejo se reunió el martes';
    expect(chrF(half, text)).toBeLessThan(chrF(text, half));
    expect(() => chrF(['a'], ['a', 'b'])).toThrow('as many');
  });
});
