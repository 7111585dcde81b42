// Rules of cost breakdowns: how summed token classes become the spec's nullable fields, how items
// are ordered, and each item's share of the total. Pure.
import { type Big, formatMoney, percentOf, sumMoney, toBig } from '../../core/money.js';
import type { CostGroupRow } from './costs.queries.js';
import type { CostMeasures } from './costs.types.js';
import { compareCodePoints } from '../../core/compare.js';

export const UNASSIGNED = 'Unassigned';

const money = (v: string | null): string => formatMoney(v ?? '0');
/** A class's cost is reported exactly when its tokens are (null = no event reported the class). */
const classCost = (tokens: number | null, cost: string | null): string | null => (tokens === null ? null : money(cost));

/** The spec's fields from summed columns; input/output are never null (0 when unreported). */
export function costMeasures(row: CostGroupRow): CostMeasures {
  return {
    total_cost: money(row.total_cost),
    input_tokens: row.input_tokens ?? 0,
    output_tokens: row.output_tokens ?? 0,
    cache_creation_input_tokens: row.cache_creation_input_tokens,
    cache_read_input_tokens: row.cache_read_input_tokens,
    reasoning_tokens: row.reasoning_tokens,
    input_cost: money(row.input_cost),
    output_cost: money(row.output_cost),
    cache_creation_cost: classCost(row.cache_creation_input_tokens, row.cache_creation_cost),
    cache_read_cost: classCost(row.cache_read_input_tokens, row.cache_read_cost),
    reasoning_cost: classCost(row.reasoning_tokens, row.reasoning_cost),
    event_count: row.event_count ?? 0,
  };
}

/** Costliest first; ties by the label, so the order is deterministic. */
export function byCostDescending<T>(cost: (t: T) => string, label: (t: T) => string): (a: T, b: T) => number {
  return (a, b) => {
    const c = toBig(cost(b)).cmp(toBig(cost(a)));
    if (c !== 0) return c;
    return compareCodePoints(label(a), label(b));
  };
}

/**
 * Breakdown items from grouped rows: NULL group values become `Unassigned` (merged with a literal
 * "Unassigned" value if one was sent), ordered costliest first, each with its share of the sum.
 */
export function breakdownItems(rows: Array<CostGroupRow & { group_value: string | null }>): {
  items: Array<CostMeasures & { attribution_value: string; percent_of_total: number }>;
  total: Big;
} {
  const merged = new Map<string, CostGroupRow>();
  for (const r of rows) {
    const value = r.group_value ?? UNASSIGNED;
    const prev = merged.get(value);
    merged.set(value, prev ? addRows(prev, r) : r);
  }
  // Each cost parsed once: sorting re-reads it about log2(n) times per item.
  const measured = [...merged].map(([value, r]) => {
    const m = { attribution_value: value, ...costMeasures(r) };
    return { m, cost: toBig(m.total_cost) };
  });
  const total = sumMoney(measured.map((x) => x.cost));
  const items = measured
    .sort((a, b) => b.cost.cmp(a.cost) || compareCodePoints(a.m.attribution_value, b.m.attribution_value))
    .map(({ m, cost }) => ({ ...m, percent_of_total: percentOf(cost, total) }));
  return { items, total };
}

const addCount = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : a + b);
const addMoney = (a: string | null, b: string | null): string | null =>
  a === null ? b : b === null ? a : toBig(a).plus(toBig(b)).toFixed();

/** Two partial sums of one group (null + x = x: the class is reported if either reported it). */
export function addRows(a: CostGroupRow, b: CostGroupRow): CostGroupRow {
  return {
    event_count: addCount(a.event_count, b.event_count),
    input_tokens: addCount(a.input_tokens, b.input_tokens),
    output_tokens: addCount(a.output_tokens, b.output_tokens),
    cache_creation_input_tokens: addCount(a.cache_creation_input_tokens, b.cache_creation_input_tokens),
    cache_read_input_tokens: addCount(a.cache_read_input_tokens, b.cache_read_input_tokens),
    reasoning_tokens: addCount(a.reasoning_tokens, b.reasoning_tokens),
    input_cost: addMoney(a.input_cost, b.input_cost),
    output_cost: addMoney(a.output_cost, b.output_cost),
    cache_creation_cost: addMoney(a.cache_creation_cost, b.cache_creation_cost),
    cache_read_cost: addMoney(a.cache_read_cost, b.cache_read_cost),
    reasoning_cost: addMoney(a.reasoning_cost, b.reasoning_cost),
    total_cost: addMoney(a.total_cost, b.total_cost),
  };
}
