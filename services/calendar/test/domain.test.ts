import { describe, expect, it } from '@jest/globals';
import { autop } from '../src/domain/autop.js';
import { costDetails, displayCost } from '../src/domain/cost.js';
import { fixedOffset, timezoneAbbr } from '../src/domain/dates.js';
import { searchPlan } from '../src/domain/search.js';

describe('autop', () => {
  it('wraps paragraphs, breaks lines, leaves blocks and empty text alone', () => {
    expect(autop('')).toBe('');
    expect(autop('  \n ')).toBe('');
    expect(autop('a\r\nb\n\n\nc')).toBe('<p>a<br />\nb</p>\n<p>c</p>\n');
    expect(autop('<p>done</p>')).toBe('<p>done</p>\n');
  });
});

describe('cost', () => {
  it('reads the symbol and its side from the text', () => {
    expect(costDetails('€ 5')).toMatchObject({ currency_symbol: '€', currency_position: 'prefix' });
    expect(costDetails('5 £')).toMatchObject({ currency_symbol: '£', currency_position: 'postfix' });
    expect(costDetails(null)).toEqual({
      currency_symbol: '',
      currency_code: '',
      currency_position: 'prefix',
      values: [],
    });
    expect(displayCost('5€ - 10€')).toBe('5€ – 10€');
    expect(displayCost('Donation, 5 suggested')).toBe('Donation, 5 suggested');
  });
});

describe('fixed offsets', () => {
  it('reads UTC±H[:MM] and refuses what is not an offset', () => {
    expect(fixedOffset('UTC+9')).toBe(9 * 3_600_000);
    expect(fixedOffset('UTC-3:30')).toBe(-3.5 * 3_600_000);
    expect(fixedOffset('UTC+0530')).toBe(5.5 * 3_600_000);
    for (const bad of ['UTC+15', 'UTC+1:60', 'GMT+1', 'UTC', 'Europe/Paris'])
      expect(fixedOffset(bad)).toBeUndefined();
    expect(timezoneAbbr('UTC+9', new Date())).toBe('UTC+9');
  });
});

describe('search plan', () => {
  it('uses full text when a word is not a stop word, else a substring', () => {
    expect(searchPlan(' Jazz fest ')).toEqual({ kind: 'fulltext', query: 'jazz:* & fest:*' });
    expect(searchPlan('the jazz')).toEqual({ kind: 'fulltext', query: 'the:* & jazz:*' });
    expect(searchPlan('for')).toEqual({ kind: 'substring', text: 'for' });
    expect(searchPlan('!!')).toEqual({ kind: 'substring', text: '!!' });
  });
});
