// The console's one module for showing numbers: money from the API's exact decimal strings (big.js,
// never a binary float), percentages with two decimals, counts with thousands separators.
import Big from 'big.js';
import { changePercent as changePercentRule, sumMoney as sumMoneyRule } from '../../../core/money.js';

/** "1234.5" → "$1,234.50"; "-0.000123" → "-$0.000123". Every digit the API sent is kept. */
export function money(value: string | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const b = new Big(value);
  const [int, frac = ''] = b.abs().toFixed().split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const digits = frac.length < 2 ? frac.padEnd(2, '0') : frac;
  return `${b.lt(0) ? '-' : ''}$${grouped}.${digits}`;
}

/**
 * To the cent, rounded half-up: "87.49689119171" → "$87.50". For headline figures and estimates (a
 * forecast), with the exact figure on hover (exactly()); tables keep every digit with money().
 */
export function cents(value: string | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return money(new Big(value).round(2, Big.roundHalfUp).toFixed(2));
}

/** The hover text of a figure shown to the cent: "exactly $97.333333333333"; none without a figure. */
export function exactly(value: string | null | undefined): string | undefined {
  return value === null || value === undefined ? undefined : `exactly ${money(value)}`;
}

/** The exact sum of the figures present (the API's money sum), as a decimal string. */
export function sumMoney(values: ReadonlyArray<string | null | undefined>): string {
  return sumMoneyRule(values.filter((v): v is string => !!v)).toFixed();
}

/** Cost per unit (e.g. per event), rounded half-up to `dp` decimals; null when count is 0. */
export function perUnit(total: string, count: number, dp = 6): string | null {
  if (count === 0) return null;
  return new Big(total).div(count).round(dp, Big.roundHalfUp).toFixed();
}

/** A period's change in percent, by the API's own rule (core/money.ts), shown with 2 decimals; null when previous is 0. */
export function changePercent(current: string | number, previous: string | number): string | null {
  const p = changePercentRule(String(current), String(previous));
  return p === null ? null : p.toFixed(2);
}

/** A percentage the API rounded to 2 decimals (a number), shown with exactly 2. */
export function percent(value: number | string | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return `${new Big(value).toFixed(2)}%`;
}

export function count(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return value.toLocaleString('en-US', { maximumFractionDigits: 12 });
}

/** Sort comparator for decimal strings (nulls first). */
export function compareMoney(a: string | null | undefined, b: string | null | undefined): number {
  if (a == null || b == null) return a == null ? (b == null ? 0 : -1) : 1;
  return new Big(a).cmp(b);
}
