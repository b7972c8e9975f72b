import { describe, expect, it } from '@jest/globals';
import { errorThrown } from '../src/thrown.js';

class Refused extends Error {
  constructor(readonly issues: string[]) {
    super(issues.join('\n'));
  }
}

describe('errorThrown', () => {
  it('answers the error of the expected class', () => {
    const error = errorThrown(() => {
      throw new Refused(['PORT: must be a number']);
    }, Refused);
    expect(error.issues).toEqual(['PORT: must be a number']);
  });

  it('fails when nothing is thrown, and lets another error through', () => {
    expect(() => errorThrown(() => 1, Refused)).toThrow('expected a Refused, nothing was thrown');
    expect(() =>
      errorThrown(() => {
        throw new TypeError('not a refusal');
      }, Refused),
    ).toThrow(TypeError);
  });
});
