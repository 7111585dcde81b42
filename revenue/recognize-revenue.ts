// Accrual recognition (docs/design.md): a revenue record's amount is spread evenly over its billing
// period, to the millisecond, and a window recognizes amount × overlap / length. Exact decimal
// (big.js); refunds are negative amounts and recognize negatively the same way.
import type { DateRange } from '../core/time.js';
import { Big, toBig } from '../core/money.js';

export interface RecognizableRevenue {
  /** USD (a decimal string, or already parsed); negative for a refund. */
  amount: string | Big;
  periodStart: Date;
  /** Exclusive; later than periodStart. */
  periodEnd: Date;
}

/** Milliseconds the half-open intervals [a.start, a.end) and [b.start, b.end) share. */
function overlapMs(aStart: Date, aEnd: Date, bStart: Date, bEnd: Date): number {
  return Math.max(0, Math.min(aEnd.getTime(), bEnd.getTime()) - Math.max(aStart.getTime(), bStart.getTime()));
}

/** The part of the record's amount that falls in the window (full precision; format at the edge). */
export function recognizeRevenue(record: RecognizableRevenue, window: DateRange): Big {
  const length = record.periodEnd.getTime() - record.periodStart.getTime();
  if (!(length > 0)) throw new Error("a revenue record's billing period must have a positive length");
  const overlap = overlapMs(record.periodStart, record.periodEnd, window.start, window.end);
  if (overlap === 0) return new Big(0);
  const amount = toBig(record.amount);
  // A period wholly inside the window recognizes exactly its amount, with no division.
  if (overlap === length) return amount;
  return amount.times(overlap).div(length);
}

/** True when some of the record's period lies inside the window (it counts toward the window). */
export function isRecognizedIn(record: RecognizableRevenue, window: DateRange): boolean {
  return overlapMs(record.periodStart, record.periodEnd, window.start, window.end) > 0;
}
