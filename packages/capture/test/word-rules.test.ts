import { describe, expect, test } from '@jest/globals';
import { applyWordRules, parseReplacements } from '../src/word-rules.js';

describe('word rules', () => {
  test('replacements: whole words or phrases only, whatever their case, following it', () => {
    const replacements = parseReplacements(
      'kubernetes => Kubernetes\nlive captions = LiveCaptions\n\nno arrow here\num =>',
    );
    expect(replacements).toEqual([
      { from: 'kubernetes', to: 'Kubernetes' },
      { from: 'live captions', to: 'LiveCaptions' },
      { from: 'um', to: '' },
    ]);
    const rules = { replacements, maskProfanity: false };
    expect(applyWordRules('we run kubernetes, um, with live captions', rules)).toBe(
      'we run Kubernetes, , with LiveCaptions',
    );
    expect(applyWordRules('Um KUBERNETES is not kubernetesish', rules)).toBe(
      'KUBERNETES is not kubernetesish',
    );
    expect(applyWordRules('Live Captions rock', rules)).toBe('LiveCaptions rock');
    expect(applyWordRules('drum and umbrella', rules)).toBe('drum and umbrella');
  });

  test('the profanity mask keeps the first letter, only when asked', () => {
    expect(applyWordRules('Oh shit, what the fuck', { replacements: [], maskProfanity: true })).toBe(
      'Oh s***, what the f***',
    );
    expect(applyWordRules('Oh shit', { replacements: [], maskProfanity: false })).toBe('Oh shit');
    expect(applyWordRules('Shitake and Scunthorpe', { replacements: [], maskProfanity: true })).toBe(
      'Shitake and Scunthorpe',
    );
  });

  test('special characters in a phrase are taken literally', () => {
    expect(
      applyWordRules('C++ and c', { replacements: parseReplacements('c => C'), maskProfanity: false }),
    ).toBe('C++ and C');
    expect(
      applyWordRules('a.b axb', { replacements: parseReplacements('a.b => ab'), maskProfanity: false }),
    ).toBe('ab axb');
  });
});
