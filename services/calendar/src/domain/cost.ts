/** Currency symbols recognised in a cost string, longest first so `US$` wins over `$`. */
const symbols = [
  'US$',
  'CA$',
  'A$',
  'R$',
  'CHF',
  'kr',
  'zł',
  '$',
  '€',
  '£',
  '¥',
  '₹',
  '₩',
  '₽',
  '₺',
  '₪',
  '฿',
  '₫',
  '₴',
];
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const symbolPattern = symbols.map(escapeRegExp).join('|');
const prefixed = new RegExp(`^\\s*(${symbolPattern})\\s*\\d`);
const postfixed = new RegExp(`\\d\\s*(${symbolPattern})\\s*$`);

export interface CostDetails {
  currency_symbol: string;
  currency_code: string;
  currency_position: 'prefix' | 'postfix';
  values: string[];
}

/**
 * `cost_details` read from the cost string as The Events Calendar reads it: the symbol and its
 * side from the text (`5€` -> `€`, postfix; none -> `''`, prefix), no currency code, the numbers
 * as values (`Free` -> `['free']`).
 */
export function costDetails(cost: string | null): CostDetails {
  const text = (cost ?? '').trim();
  const pre = prefixed.exec(text);
  const post = pre ? null : postfixed.exec(text);
  const numbers = (text.match(/\d+(?:[.,]\d+)?/g) ?? []).map((v) => v.replace(',', '.'));
  return {
    currency_symbol: pre?.[1] ?? post?.[1] ?? '',
    currency_code: '',
    currency_position: post ? 'postfix' : 'prefix',
    values: numbers.length > 0 ? numbers : /^free$/i.test(text) ? ['free'] : [],
  };
}

/**
 * The `cost` an event shows: a range of numbers as `$10 – $20` (symbol on its side), a single
 * `0` as `''`, anything else as written.
 */
export function displayCost(cost: string | null): string {
  const text = (cost ?? '').trim();
  if (text === '' || text === '0') return '';
  const details = costDetails(text);
  // Only numbers (with their symbols) joined by `,`, `-`, `–` or `to`: a range to normalize.
  const numeric =
    /^[^\d]*\d+(?:[.,]\d+)?(?:[^\d\s,–-]*\s*(?:,|-|–|to)\s*[^\d\s]*\s*\d+(?:[.,]\d+)?)+[^\d]*$/.test(text);
  if (!numeric || details.values.length < 2) return text;
  const amounts = details.values.map(Number).filter((n) => !Number.isNaN(n));
  const low = Math.min(...amounts);
  const high = Math.max(...amounts);
  const show = (n: number) => {
    const value = String(n);
    return details.currency_position === 'postfix'
      ? `${value}${details.currency_symbol}`
      : `${details.currency_symbol}${value}`;
  };
  return low === high ? show(low) : `${show(low)} – ${show(high)}`;
}
