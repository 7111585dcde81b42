// Attribution rules over plain data: the breakdown's 1000-group cap (keeps the costliest, on the
// order api/costs/cost-breakdown.ts defines), percentages that sum to exactly 100 over the groups
// returned, the distinct-values cap, and the CSV form of a breakdown. Pure.
import { toCsv } from '../../core/csv.js';
import { Big, formatMoney, sumMoney, toBig } from '../../core/money.js';
import { breakdownItems } from '../costs/cost-breakdown.js';
import type { KeyedCostGroupRow } from '../costs/costs.queries.js';
import type { CostBreakdownItem } from '../costs/costs.types.js';
import type { AttributionBreakdown } from './attribution.types.js';

/** Breakdown groups per response; the cheapest beyond it are dropped. */
const GROUP_CAP = 1000;
/** Distinct values per response (agents, workflows, dimension values). */
export const DISTINCT_VALUES_CAP = 1000;

export interface CappedGroups<T> {
  kept: T[];
  /** All groups matched. */
  totalGroups: number;
  /** True when groups were dropped. */
  truncated: boolean;
}

/** The first `cap` of groups already ordered costliest first. */
export function capGroups<T>(costliestFirst: readonly T[], cap = GROUP_CAP): CappedGroups<T> {
  return { kept: costliestFirst.slice(0, cap), totalGroups: costliestFirst.length, truncated: costliestFirst.length > cap };
}

/**
 * Shares of the given costs in percent, 2 decimals, summing to exactly 100 (largest remainder
 * over hundredths of a percent: each share is within 0.01 of its exact value; ties go to the
 * earlier entry). All zeros when the costs sum to zero.
 */
export function percentsSummingTo100(costs: readonly string[]): number[] {
  const total = sumMoney(costs);
  if (total.eq(0)) return costs.map(() => 0);
  const exact = costs.map((c) => toBig(c).times(10_000).div(total));
  const units = exact.map((e) => Number(e.round(0, Big.roundDown).toFixed()));
  let missing = 10_000 - units.reduce((s, u) => s + u, 0);
  const byRemainder = exact.map((e, i) => ({ i, rest: e.minus(units[i]!) })).sort((a, b) => b.rest.cmp(a.rest) || a.i - b.i);
  for (const { i } of byRemainder) {
    if (missing <= 0) break;
    units[i]! += 1;
    missing--;
  }
  return units.map((u) => u / 100);
}

/**
 * The attribution breakdown: groups (NULL → Unassigned) costliest first, capped; total_cost of the
 * whole matched population; percent_of_total over the returned items, summing to 100.
 */
export function cappedBreakdown(rows: Array<KeyedCostGroupRow>, cap = GROUP_CAP): AttributionBreakdown {
  const { items, total } = breakdownItems(rows);
  const { kept, totalGroups, truncated } = capGroups(items, cap);
  const percents = percentsSummingTo100(kept.map((i) => i.total_cost));
  return {
    items: kept.map((item, i) => ({ ...item, percent_of_total: percents[i]! })),
    total_cost: formatMoney(total),
    total_groups: totalGroups,
    truncated,
  };
}

/**
 * Values already sorted (code-point order) and limited to cap + 1 by the query: the first `cap`,
 * with truncated = true when the cap was reached (the spec: "true when the value cap was
 * reached"), so exactly `cap` values also say the list may be incomplete.
 */
export function capDistinctValues(sortedValues: readonly string[], cap = DISTINCT_VALUES_CAP): { values: string[]; truncated: boolean } {
  return { values: sortedValues.slice(0, cap), truncated: sortedValues.length >= cap };
}

const CSV_COLUMNS = [
  'attribution_value',
  'total_cost',
  'input_tokens',
  'output_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'reasoning_tokens',
  'input_cost',
  'output_cost',
  'cache_creation_cost',
  'cache_read_cost',
  'reasoning_cost',
  'event_count',
  'percent_of_total',
] as const satisfies ReadonlyArray<keyof CostBreakdownItem>;

/** Breakdown items as CSV (core/csv.ts: RFC 4180, null empty, formulas defused), one row per item. */
export function breakdownCsv(items: readonly CostBreakdownItem[]): string {
  return toCsv(
    CSV_COLUMNS,
    items.map((item) => CSV_COLUMNS.map((c) => item[c])),
  );
}
