import { describe, expect, it } from '@jest/globals';
import { tokenLookup, tokensEqual } from '../src/token.js';

describe('tokensEqual', () => {
  it('is true for the same token only, whatever the lengths', () => {
    const token = 'a'.repeat(32);
    expect(tokensEqual(token, token)).toBe(true);
    for (const other of ['', 'a', `${token}a`, token.slice(1), `b${token.slice(1)}`]) {
      expect(tokensEqual(other, token)).toBe(false);
    }
  });
});

describe('tokenLookup', () => {
  const lookup = tokenLookup(
    new Map([
      ['reader-token-0123456789', { role: 'reader' }],
      ['writer-token-0123456789', { role: 'writer' }],
    ]),
  );

  it('finds what the presented token grants', () => {
    expect(lookup('reader-token-0123456789')).toEqual({ role: 'reader' });
    expect(lookup('writer-token-0123456789')).toEqual({ role: 'writer' });
  });

  it('grants nothing to a missing, empty, near or unknown token', () => {
    for (const given of [
      undefined,
      '',
      'reader-token-012345678',
      'reader-token-01234567890',
      'READER-TOKEN-0123456789',
    ]) {
      expect(lookup(given)).toBeUndefined();
    }
    expect(tokenLookup<string>([])('anything')).toBeUndefined();
  });
});
