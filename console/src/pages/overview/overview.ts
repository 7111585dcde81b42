// The Overview's figures from API answers: headline totals of a range and their change against
// the previous one, the top-customers join of cost and margin rows, and anomalies placed on the
// chart's buckets. Pure, exact decimals.
import Big from 'big.js';
import type { CostByEndUser, EndUserCostItem, EndUserMarginRow } from '../../api/types.js';
import { changePercent, perUnit } from '../../format/money.js';

export interface CostTotals {
  cost: string;
  events: number;
  tokens: number;
  costPerEvent: string | null;
}

export function costTotals(r: CostByEndUser): CostTotals {
  const events = r.end_users.reduce((n, u) => n + u.event_count, 0);
  const tokens = r.end_users.reduce((n, u) => n + u.input_tokens + u.output_tokens, 0);
  return { cost: r.total_cost, events, tokens, costPerEvent: perUnit(r.total_cost, events) };
}

/** Change of a count or amount in percent (2 decimals), null without a previous value. */
export function change(cur: string | number | null, prev: string | number | null): string | null {
  if (cur === null || prev === null) return null;
  return changePercent(cur, prev);
}

/** Change of a percentage in percentage points (2 decimals). */
export function pointsChange(cur: number | null, prev: number | null): string | null {
  if (cur === null || prev === null) return null;
  return new Big(cur).minus(prev).toFixed(2);
}

export interface TopCustomer extends EndUserCostItem {
  revenue: string | null;
  margin_amount: string | null;
  margin_percent: number | null;
}

/** The `n` costliest end users (the API's order) with their margin row beside, when there is one. */
export function topCustomers(cost: CostByEndUser, margin: EndUserMarginRow[] | null, n = 10): TopCustomer[] {
  const byId = new Map((margin ?? []).map((m) => [m.end_user_id, m]));
  return cost.end_users.slice(0, n).map((u) => {
    const m = byId.get(u.end_user_id);
    return { ...u, revenue: m?.revenue ?? null, margin_amount: m?.margin_amount ?? null, margin_percent: m?.margin_percent ?? null };
  });
}

export interface ChartMarker {
  /** The bucket start (ISO) the marker stands on. */
  date: string;
  /** What a hover on it says. */
  label: string;
}

/** A spike's one-line description: "alice (end user): $8.00 vs $2.00 usual". */
export function anomalyText(a: { dimension: string; value: string; cost: string; baseline: string }, money: (v: string) => string): string {
  return `${a.value} (${a.dimension.replace('_', ' ')}): ${money(a.cost)} vs ${money(a.baseline)} usual`;
}

/** One marker per chart bucket holding anomalies (the last bucket starting on or before each date), naming them. */
export function anomalyMarkers(
  anomalies: ReadonlyArray<{ date: string; dimension: string; value: string; cost: string; baseline: string }>,
  buckets: readonly string[],
  money: (v: string) => string,
): ChartMarker[] {
  const byBucket = new Map<string, string[]>();
  for (const a of anomalies) {
    const at = `${a.date}T00:00:00.000Z`;
    const bucket = buckets.filter((b) => b <= at).at(-1);
    if (bucket === undefined) continue;
    byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), anomalyText(a, money)]);
  }
  return [...byBucket].map(([date, texts]) => ({ date, label: texts.join('; ') }));
}
