// Rules of /dimension-data: numeric aggregates as exact decimals, the numeric trend over every
// bucket of the range, and which parameters go together. Pure.
import { ValidationError } from '../../core/errors.js';
import { Big, formatMoney, toBig } from '../../core/money.js';
import { bucketStarts, type DateRange, type Granularity } from '../../core/time.js';
import { bucketIso } from '../costs/cost-series.js';
import type { NumericAggregation, NumericTrendPoint } from './dimension-data.types.js';

const NUMERIC_AGGREGATIONS: readonly NumericAggregation[] = ['sum', 'avg', 'min', 'max'];
const INTERVALS: readonly Granularity[] = ['daily', 'weekly', 'monthly'];

/** Sums, extremes and count of a group of numeric values (decimal strings from DuckDB). */
export interface NumericGroup {
  event_count: number;
  sum_value: string | null;
  min_value: string | null;
  max_value: string | null;
}

/** The aggregate of a group, or null when it has no values. avg = sum / count, 12 decimals. */
export function numericValue(g: NumericGroup, aggregation: NumericAggregation): string | null {
  if (g.event_count === 0 || g.sum_value === null) return null;
  switch (aggregation) {
    case 'sum':
      return formatMoney(g.sum_value);
    case 'min':
      return formatMoney(g.min_value!);
    case 'max':
      return formatMoney(g.max_value!);
    case 'avg':
      return formatMoney(toBig(g.sum_value).div(new Big(g.event_count)));
  }
}

/** Every bucket of the range in order; buckets without values have value null and count 0. */
export function numericTrendPoints(
  range: DateRange,
  granularity: Granularity,
  groups: ReadonlyArray<NumericGroup & { bucket: string }>,
  aggregation: NumericAggregation,
): NumericTrendPoint[] {
  const byBucket = new Map(groups.map((g) => [bucketIso(g.bucket), g]));
  return bucketStarts(range, granularity).map((start) => {
    const date = start.toISOString();
    const g = byBucket.get(date);
    return { date, value: g ? numericValue(g, aggregation) : null, event_count: g?.event_count ?? 0 };
  });
}

export function assertAggregation(value: string | undefined): NumericAggregation {
  if (value === undefined || value === '') throw new ValidationError('aggregation', 'is required');
  if (!(NUMERIC_AGGREGATIONS as readonly string[]).includes(value)) {
    throw new ValidationError('aggregation', `must be one of: ${NUMERIC_AGGREGATIONS.join(', ')}`);
  }
  return value as NumericAggregation;
}

export function assertInterval(value: string | undefined): Granularity | null {
  if (value === undefined) return null;
  if (!(INTERVALS as readonly string[]).includes(value)) throw new ValidationError('interval', `must be one of: ${INTERVALS.join(', ')}`);
  return value as Granularity;
}
