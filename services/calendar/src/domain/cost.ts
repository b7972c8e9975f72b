/**
 * An event's cost as The Events Calendar 6.17.2 shows it (Tribe__Cost_Utils and
 * Tribe__Events__Cost_Utils): the numbers found in the cost text, sorted; the lowest and the
 * highest shown as `min – max`, a 0 as `Free`, each number with the currency symbol of the text
 * or else the site's, on the text's side or else the site's. A cost without numbers shows as
 * written.
 */

/** The site's currency settings (TEC's defaultCurrencySymbol, reverseCurrencyPosition, code). */
export interface Currency {
  symbol: string;
  position: 'prefix' | 'postfix';
  code: string;
}
export const defaultCurrency: Currency = { symbol: '$', position: 'prefix', code: 'USD' };

export interface CostDetails {
  currency_symbol: string;
  currency_code: string;
  currency_position: '' | 'prefix' | 'postfix';
  values: string[];
}

/**
 * TEC's cost regex (digits with at most one `,` or `.` inside, or one before), a separator
 * needing digits after it: a list of prices is stored as `5, 15`, where TEC keeps each apart.
 */
const NUMBER = /[,.]?\d+(?:[,.]\d+)?/g;

interface Part {
  /** As written (`12,50`). */
  text: string;
  /** Its value, or null for a cost without numbers. */
  value: number | null;
}

const numberOf = (text: string) => Number(text.replace(/[,.]/g, '.'));

const keyOf = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/**
 * parse_cost_range over `costs`: the numbers of each (equal values once: the first one's place,
 * the last one's text), or a cost without numbers as itself; sorted by value when `sort`.
 */
function parts(costs: string[], sort = true): Part[] {
  const byKey = new Map<string, Part>();
  for (const cost of costs) {
    const found = cost.match(NUMBER);
    if (!found) {
      if (cost !== '') byKey.set(keyOf(cost), { text: cost, value: null });
      continue;
    }
    for (const match of found) byKey.set(String(numberOf(match)), { text: match, value: numberOf(match) });
  }
  const list = [...byKey.values()];
  return sort ? list.sort((a, b) => (a.value ?? 0) - (b.value ?? 0)) : list;
}

/**
 * parse_currency_symbol: the text around the numbers of the comma-separated prices, when the
 * same for each. Like The Events Calendar, the n-th price found is matched with the n-th piece.
 */
function currencySymbol(cost: string): string | undefined {
  const pieces = cost.split(/\s*,\s*/);
  const symbols: string[] = [];
  parts(pieces, false).forEach((part, i) => {
    if (part.value !== null) symbols.push((pieces[i] ?? '').split(part.text).join('').trim());
  });
  if (symbols.length === 0 || symbols.some((s) => s !== symbols[0])) return undefined;
  return symbols[0];
}

/** parse_currency_position: which side of each price the symbol is on, when the same. */
function currencyPosition(cost: string, symbol: string | undefined): 'prefix' | 'postfix' | undefined {
  if (!symbol) return undefined;
  const sides = cost
    .split(/\s*,\s*/)
    .map((piece) => piece.trim().indexOf(symbol))
    .filter((at) => at >= 0)
    .map((at) => (at === 0 ? 'prefix' : 'postfix'));
  return sides.length > 0 && sides.every((side) => side === sides[0]) ? sides[0] : undefined;
}

/** A value of cost_details: the number with `.` as decimal point and no thousands separator. */
function detailValue(part: Part): string {
  if (part.value === null) return keyOf(part.text);
  const text = part.text.replace(/^[,.]/, '0.');
  return /^\d{1,3}([,.]\d{3})+$/.test(text) ? text.replace(/[,.]/g, '') : text.replace(',', '.');
}

/** A cost of `0` alone is no cost: The Events Calendar does not store an empty() value. */
const costText = (cost: string | null) => {
  const text = (cost ?? '').trim();
  return text === '0' ? '' : text;
};

export function costDetails(cost: string | null): CostDetails {
  const text = costText(cost);
  const symbol = currencySymbol(text);
  const values = parts([text]).map(detailValue);
  return {
    currency_symbol: symbol ?? '',
    currency_code: '',
    currency_position: currencyPosition(text, symbol) ?? '',
    // sort( SORT_NUMERIC ): words count as 0.
    values: values.sort((a, b) => (Number(a) || 0) - (Number(b) || 0)),
  };
}

/**
 * The `cost` of an event: with the currency (`withCurrency`, the REST field) or without (what
 * the JSON-LD offer's price is read from).
 */
export function displayCost(cost: string | null, currency: Currency, withCurrency = true): string {
  const text = costText(cost);
  const all = parts([text]);
  if (all.length === 0) return '';
  const symbol = currencySymbol(text) || currency.symbol;
  const position = currencyPosition(text, symbol) ?? currency.position;
  const show = (part: Part) => {
    if (part.value === null) return part.text;
    if (part.value === 0) return 'Free';
    if (!withCurrency) return part.text;
    return position === 'postfix' ? `${part.text}${symbol}` : `${symbol}${part.text}`;
  };
  const numeric = all.filter((part) => part.value !== null);
  const [low, high] = numeric.length > 0 ? [numeric[0]!, numeric.at(-1)!] : [all[0]!, all[0]!];
  const min = show(low);
  const max = show(high);
  return min === max ? min : `${min} – ${max}`;
}
