// Money is decimal end to end: big.js here, DECIMAL(38,12) in DuckDB, decimal strings on the wire.
import Big from 'big.js';

Big.DP = 40;
Big.RM = Big.roundHalfUp;

export { Big };

export const MONEY_SCALE = 12;

/**
 * The most integer digits a cost of one event may have: every cost is below 10^15 USD. The lake's
 * DECIMAL(38,12) holds 26 integer digits, so this leaves room for sums over 10^11 events at the
 * bound; at 10^26 per event (the column's own limit) two events overflowed DuckDB's SUM and every
 * read of the organization's range answered 500.
 */
export const MAX_EVENT_COST_DIGITS = 15;

/** Integer digits of a well-formed decimal string, leading zeros included (an upper bound). */
export function integerDigits(value: string): number {
  const dot = value.indexOf('.');
  return (dot < 0 ? value.length : dot) - (value.startsWith('-') ? 1 : 0);
}

/** Parse a decimal string or a finite number (taken by its shortest decimal form). */
export function toBig(value: string | number | Big): Big {
  if (value instanceof Big) return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
    return new Big(String(value));
  }
  return new Big(value);
}

// The one decimal-string pattern of every money or rate input: optional minus, digits, optional
// fraction ("3", "-0.075"). No exponent, no "+", no spaces, no bare "." — what exact decimal
// columns (NUMERIC, DECIMAL(38,12)) and big.js all read the same way.
const DECIMAL_STRING = /^-?\d+(\.\d+)?$/;

export function isDecimalString(value: string): boolean {
  return DECIMAL_STRING.test(value);
}

/** A decimal string (as above) that does not start with a minus. */
export function isUnsignedDecimalString(value: string): boolean {
  return !value.startsWith('-') && DECIMAL_STRING.test(value);
}

/** Digits after the point of a decimal string ("1.250" → 3). */
export function fractionDigits(value: string): number {
  const dot = value.indexOf('.');
  return dot < 0 ? 0 : value.length - dot - 1;
}

// A canonical decimal string with at most 12 fractional digits (what DuckDB prints for
// DECIMAL(38,12)) needs no rounding, only its trailing zeros trimmed.
const CANONICAL_DECIMAL = /^-?(0|[1-9]\d*)(\.\d{1,12})?$/;

/** "12.5", "0", "-3.000000000001": at most 12 fractional digits, trailing zeros trimmed. */
export function formatMoney(value: string | number | Big): string {
  if (typeof value === 'string' && CANONICAL_DECIMAL.test(value)) {
    const s = value.includes('.') ? value.replace(/\.?0+$/, '') : value;
    return s === '-0' ? '0' : s;
  }
  const rounded = toBig(value).round(MONEY_SCALE, Big.roundHalfUp);
  const s = rounded.toFixed(MONEY_SCALE).replace(/\.?0+$/, '');
  return s === '-0' || s === '' ? '0' : s;
}

/** Exact sum of decimal strings (or Bigs): the one money sum. */
export function sumMoney(values: Iterable<string | number | Big>): Big {
  let total = new Big(0);
  for (const v of values) total = total.plus(toBig(v));
  return total;
}

/** A plain decimal string as an integer scaled by 10^scale, or null when it has more fraction digits. */
function scaled(value: string, scale: number): bigint | null {
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(value);
  if (!m) return null;
  const fraction = m[3] ?? '';
  if (fraction.length > scale) return null;
  const n = BigInt(`${m[2]}${fraction.padEnd(scale, '0')}`);
  return m[1] ? -n : n;
}

/**
 * The one percent rule (shares of a total, period changes, margins): part / whole × 100 rounded
 * half-up (ties away from zero) to 2 decimals, as a JSON number; 0 when whole is 0 (a share of
 * nothing). Where the spec wants null for a zero base (change and margin percents) the caller says so.
 * Exact: the quotient in integers (both scaled by 10^12, as money is), rounded once; a breakdown
 * of 1,000 end users asks for 1,000 of them, and Big's division cost the first request ~15 ms.
 */
export function percentOf(part: string | Big, whole: string | Big): number {
  const p = scaled(typeof part === 'string' ? part : part.toFixed(), MONEY_SCALE);
  const w = scaled(typeof whole === 'string' ? whole : whole.toFixed(), MONEY_SCALE);
  if (p === null || w === null) return percentOfBig(toBig(part), toBig(whole));
  if (w === 0n) return 0;
  const a = p * 10_000n;
  let q = a / w; // truncated toward zero
  const r = a % w;
  const twiceRemainder = (r < 0n ? -r : r) * 2n;
  if (twiceRemainder >= (w < 0n ? -w : w)) q += a < 0n === w < 0n ? 1n : -1n;
  return Number(q) / 100;
}

/**
 * The change from `previous` to `current` in percent of |previous| (the percent rule above); null
 * when previous is 0, as the spec's change_percent. Over a negative base (a loss that shrank) an
 * improvement reads as a positive change. The API's change_percent and the console's period
 * changes both come from here.
 */
export function changePercent(current: string | Big, previous: string | Big): number | null {
  const prev = toBig(previous);
  if (prev.eq(0)) return null;
  return percentOf(toBig(current).minus(prev), prev.abs());
}

// Big's div rounds its quotient correctly at DP places, so a constructor with DP = 2 gives the
// percentage directly (values with more than 12 fraction digits, or in exponent form, come here).
const PercentBig = Big();
PercentBig.DP = 2;
PercentBig.RM = Big.roundHalfUp;

function percentOfBig(part: Big, whole: Big): number {
  const w = new PercentBig(whole);
  if (w.eq(0)) return 0;
  return Number(new PercentBig(part).times(100).div(w).toFixed(2)) || 0;
}
