import { describe, expect, it } from '@jest/globals';
import { autop } from '../src/domain/autop.js';
import { costDetails, defaultCurrency, displayCost } from '../src/domain/cost.js';
import { fixedOffset, timezoneAbbr } from '../src/domain/dates.js';
import { refusals } from '../src/domain/errors.js';
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
  // Issue 28: each line measured on The Events Calendar 6.17.2 (site currency `$`, prefix).
  it.each([
    ['€ 5', '€5', '€', 'prefix', ['5']],
    ['5 £', '5£', '£', 'postfix', ['5']],
    ['5€ - 10€', '$5 – $10', '', '', ['5', '10']],
    ['Donation, 5 suggested', '5suggested', 'suggested', 'postfix', ['5']],
    ['1,000', '$1,000', '', '', ['1000']],
    ['12,50 €', '$12,50', '', '', ['12.50']],
    ['0, 20, 30', 'Free – $30', '', '', ['0', '20', '30']],
    ['0', '', '', '', []],
  ])('shows %j as %j', (cost, shown, symbol, position, values) => {
    expect(displayCost(cost, defaultCurrency)).toBe(shown);
    expect(costDetails(cost)).toEqual({
      currency_symbol: symbol,
      currency_code: '',
      currency_position: position,
      values,
    });
  });

  it("uses the site's currency where the cost names none, and none for the JSON-LD price", () => {
    const euro = { symbol: '€', position: 'postfix', code: 'EUR' } as const;
    expect(displayCost('10-20', euro)).toBe('10€ – 20€');
    expect(displayCost('$12', euro)).toBe('$12');
    expect(displayCost('0, 30', defaultCurrency, false)).toBe('Free – 30');
    expect(costDetails(null)).toEqual({
      currency_symbol: '',
      currency_code: '',
      currency_position: '',
      values: [],
    });
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

describe('refusals', () => {
  it('keeps the stable status and code of every refusal', () => {
    const seen = (e: { status: number; code: string }) => `${e.status} ${e.code}`;
    expect(
      [
        refusals.notFound('event', 1),
        refusals.notFound('venue', 2),
        refusals.noLongerAvailable('organizer'),
        refusals.notAccessible('event'),
        refusals.passwordProtected(),
        refusals.inTrash('venue'),
        refusals.archivePageNotFound('event'),
        refusals.termInvalid(),
        refusals.parentTermInvalid(),
        refusals.termExists(7, true),
        refusals.duplicateTermSlug('x'),
        refusals.forbidden(false),
        refusals.forbidden(true),
        refusals.invalidJson(),
        refusals.internal(),
        refusals.noRoute(),
        refusals.unavailable(),
      ].map(seen),
    ).toEqual([
      '404 rest-event-not-found',
      '404 rest-venue-not-found',
      '403 organizer-no-longer-available',
      '403 event-not-accessible',
      '403 event-password-protected',
      '410 venue-is-in-trash',
      '404 event-archive-page-not-found',
      '400 rest_invalid_param',
      '400 rest_invalid_param',
      '400 term_exists',
      '400 duplicate_term_slug',
      '401 rest_forbidden',
      '403 rest_forbidden',
      '400 rest_invalid_json',
      '500 rest_internal_error',
      '404 rest_no_route',
      '503 rest_service_unavailable',
    ]);
    expect(refusals.termExists(7, false).toJSON()).toEqual({
      code: 'term_exists',
      message: 'A term with the name provided already exists in this taxonomy.',
      data: { status: 400, term_id: 7 },
      additional_data: [7, 7],
    });
  });
});
