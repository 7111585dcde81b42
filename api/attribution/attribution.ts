// Attribution rules over plain data: the breakdown's 1000-group cap (keeps the costliest),
// percentages that sum to exactly 100 over the groups returned, and the distinct-values cap.
import { Big, toBig } from '../../core/money.js';

/** Breakdown groups per response; the cheapest beyond it are dropped. */
export const GROUP_CAP = 1000;
/** Distinct values per response (agents, workflows, dimension values). */
export const DISTINCT_VALUES_CAP = 1000;

/** Costliest first; equal costs by value (code-point order), so the cut is deterministic. */
export function byCostDescending(a: { cost: string; value: string }, b: { cost: string; value: string }): number {
  return toBig(b.cost).cmp(toBig(a.cost)) || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);
}

export interface CappedGroups<T> {
  kept: T[];
  /** All groups matched. */
  totalGroups: number;
  /** True when groups were dropped. */
  truncated: boolean;
}

/** The costliest `cap` groups, ordered costliest first. */
export function capGroups<T extends { cost: string; value: string }>(groups: readonly T[], cap = GROUP_CAP): CappedGroups<T> {
  const kept = [...groups].sort(byCostDescending).slice(0, cap);
  return { kept, totalGroups: groups.length, truncated: groups.length > cap };
}

/**
 * Shares of the given costs in percent, 2 decimals, summing to exactly 100 (largest remainder
 * over hundredths of a percent: each share is within 0.01 of its exact value; ties go to the
 * earlier entry). All zeros when the costs sum to zero.
 */
export function percentsSummingTo100(costs: readonly string[]): number[] {
  const total = costs.reduce((s, c) => s.plus(toBig(c)), new Big(0));
  if (total.eq(0)) return costs.map(() => 0);
  const exact = costs.map((c) => toBig(c).times(10_000).div(total));
  const units = exact.map((e) => Number(e.round(0, Big.roundDown).toFixed()));
  let missing = 10_000 - units.reduce((s, u) => s + u, 0);
  const byRemainder = exact
    .map((e, i) => ({ i, rest: e.minus(units[i]!) }))
    .sort((a, b) => b.rest.cmp(a.rest) || a.i - b.i);
  for (const { i } of byRemainder) {
    if (missing <= 0) break;
    units[i]! += 1;
    missing--;
  }
  return units.map((u) => u / 100);
}

/**
 * Values already sorted (code-point order) and limited to cap + 1 by the query: the first `cap`,
 * with truncated = true when more existed.
 */
export function capDistinctValues(sortedValues: readonly string[], cap = DISTINCT_VALUES_CAP): { values: string[]; truncated: boolean } {
  return { values: sortedValues.slice(0, cap), truncated: sortedValues.length > cap };
}
