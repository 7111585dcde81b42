// Rules of cost time series: bucket dates as full ISO timestamps, omitted gaps (only buckets
// with events appear), and the top-N-values-plus-"Other" split of a dimension. Pure.
import { Big, formatMoney, toBig } from '../../core/money.js';
import { byCostDescending } from './cost-breakdown.js';
import type { CostBucketRow } from './costs.queries.js';
import type { TimeSeries, TimeSeriesPoint } from './costs.types.js';

/** 'YYYY-MM-DD' (a UTC bucket start) → '2025-03-10T00:00:00.000Z'. */
export function bucketIso(bucket: string): string {
  return new Date(`${bucket}T00:00:00.000Z`).toISOString();
}

/** Points in time order; rows for the same bucket are added (exact decimals). */
export function seriesPoints(rows: ReadonlyArray<Pick<CostBucketRow, 'bucket' | 'event_count' | 'total_cost'>>): TimeSeriesPoint[] {
  const byBucket = new Map<string, { cost: Big; events: number }>();
  for (const r of rows) {
    if (r.event_count <= 0) continue; // a bucket without events is a gap, not a zero
    const acc = byBucket.get(r.bucket) ?? { cost: new Big(0), events: 0 };
    acc.cost = acc.cost.plus(toBig(r.total_cost));
    acc.events += r.event_count;
    byBucket.set(r.bucket, acc);
  }
  return [...byBucket.keys()]
    .sort()
    .map((b) => ({ date: bucketIso(b), cost: formatMoney(byBucket.get(b)!.cost), event_count: byBucket.get(b)!.events }));
}

const OTHER_SERIES = { key: 'other', label: 'Other' } as const;

/**
 * One series per value for the `top` costliest values over the whole range (ties by value), then
 * one "Other" series adding up every remaining value, present only when there are such values.
 */
export function topValueSeries(rows: ReadonlyArray<CostBucketRow & { group_value: string }>, top = 5): TimeSeries[] {
  const totals = new Map<string, Big>();
  for (const r of rows) totals.set(r.group_value, (totals.get(r.group_value) ?? new Big(0)).plus(toBig(r.total_cost)));
  const ranked = [...totals]
    .map(([value, cost]) => ({ value, cost: cost.toFixed() }))
    .sort(
      byCostDescending(
        (v) => v.cost,
        (v) => v.value,
      ),
    )
    .map((v) => v.value);
  const topValues = ranked.slice(0, top);
  const series: TimeSeries[] = topValues.map((value) => ({
    key: value,
    label: value,
    data_points: seriesPoints(rows.filter((r) => r.group_value === value)),
  }));
  if (ranked.length > top) {
    const shown = new Set(topValues);
    series.push({ ...OTHER_SERIES, data_points: seriesPoints(rows.filter((r) => !shown.has(r.group_value))) });
  }
  return series;
}
