// Input rules that tsoa's type checks cannot express, shared by the admin and write endpoints of
// every capability: exact decimal rates, non-blank text, UUIDs, "exactly one of". Each throws
// ValidationError naming the field as the client sent it.
// (Timestamps are core/time.ts's parseDateParam, the rule every endpoint shares.)
import { Big, isUnsignedDecimalString } from '../money.js';
import { ValidationError } from '../errors.js';
import { isUuid } from '../ids.js';

/** Rates are stored as NUMERIC below 1e15 with at most 12 fractional digits. */
const MAX_RATE = new Big('1e15');
const MAX_RATE_FRACTION_DIGITS = 12;

/**
 * A non-negative USD rate as a plain decimal string ("3", "0.075"). Strings must be plain decimals;
 * JSON numbers are taken by their shortest decimal text (0.1 → "0.1"), never through binary math.
 * More than 12 fractional digits is refused: it is float noise (0.30000000000000004), not a price.
 */
export function parseRate(field: string, value: string | number): string {
  let rate: Big;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new ValidationError(field, 'must be a finite number');
    rate = new Big(String(value));
  } else {
    if (!isUnsignedDecimalString(value)) {
      throw new ValidationError(field, 'must be a non-negative decimal string such as "3" or "0.075"');
    }
    rate = new Big(value);
  }
  if (rate.lt(0)) throw new ValidationError(field, 'must be >= 0');
  if (rate.gte(MAX_RATE)) throw new ValidationError(field, 'must be below 1000000000000000');
  const fractionDigits = Math.max(0, rate.c.length - rate.e - 1);
  if (fractionDigits > MAX_RATE_FRACTION_DIGITS) {
    throw new ValidationError(field, `must have at most ${MAX_RATE_FRACTION_DIGITS} fractional digits`);
  }
  return rate.toFixed();
}

/** parseRate, keeping null (and absence) as null: that token class cannot be priced. */
export function parseNullableRate(field: string, value: string | number | null | undefined): string | null {
  return value === null || value === undefined ? null : parseRate(field, value);
}

/** Trimmed text of 1..max characters (blank is refused). */
export function requireText(field: string, value: string, max: number): string {
  const text = value.trim();
  if (text.length === 0) throw new ValidationError(field, 'must not be empty');
  if (text.length > max) throw new ValidationError(field, `must be at most ${max} characters`);
  return text;
}

export function requireUuid(field: string, value: string): string {
  if (!isUuid(value)) throw new ValidationError(field, 'must be a UUID');
  return value.toLowerCase();
}

/** Exactly one of two optional fields; returns which one was given. */
export function exactlyOne<A extends string, B extends string>(
  a: [A, string | null | undefined],
  b: [B, string | null | undefined],
): { field: A | B; value: string } {
  const given = [a, b].filter(([, v]) => v !== undefined && v !== null);
  if (given.length !== 1) {
    throw new ValidationError(a[0], `give exactly one of ${a[0]} or ${b[0]}`);
  }
  const [field, value] = given[0]!;
  return { field, value: value! };
}
