// Margin figures of one row (an end user, a bucket or the whole organization) and the spec's
// profitability rule. Revenue is rounded to the wire's 12 digits first, so margin_amount and
// margin_percent agree exactly with the revenue and cost strings the client sees.
import { compareCodePoints } from '../core/compare.js';
import { Big, formatMoney, percentOf, toBig } from '../core/money.js';

export type ProfitabilityCategory = 'profitable' | 'break-even' | 'unprofitable';

export interface MarginFigures {
  revenue: string;
  cost: string;
  margin_amount: string;
  margin_percent: number | null;
  profitability_category: ProfitabilityCategory;
}

/**
 * (revenue - cost) / |revenue| × 100 rounded half-up to 2 decimals; null when revenue is zero.
 * The spec's formula divides by revenue; over net-negative revenue (refunds exceeding sales) that
 * flips the sign and a loss would read as a gain, so the magnitude is used: the percent then
 * always has the sign of margin_amount and agrees with profitability_category.
 */
export function marginPercent(revenue: Big, cost: Big): number | null {
  return revenue.eq(0) ? null : percentOf(revenue.minus(cost), revenue.abs());
}

/**
 * profitable above 20 %; break-even from 0 to 20 %, or with no activity at all; unprofitable
 * below 0 %, or with cost and zero revenue. Net-negative revenue (refunds exceeding sales) is
 * unprofitable (its percent is negative too). Compared on the rounded percent the client sees.
 */
function categoryOf(revenue: Big, cost: Big, pct: number | null): ProfitabilityCategory {
  if (revenue.eq(0) || pct === null) return cost.gt(0) ? 'unprofitable' : 'break-even';
  if (revenue.lt(0)) return 'unprofitable';
  return pct > 20 ? 'profitable' : pct >= 0 ? 'break-even' : 'unprofitable';
}

export function marginFigures(revenue: Big | string, cost: Big | string): MarginFigures {
  const rev = toBig(formatMoney(revenue));
  const cst = toBig(formatMoney(cost));
  const pct = marginPercent(rev, cst);
  return {
    revenue: formatMoney(rev),
    cost: formatMoney(cst),
    margin_amount: formatMoney(rev.minus(cst)),
    margin_percent: pct,
    profitability_category: categoryOf(rev, cst, pct),
  };
}

interface MarginRow {
  margin_amount: string;
  end_user_id: string;
}

function byMarginThenId(a: { margin: Big; id: string }, b: { margin: Big; id: string }): number {
  return a.margin.cmp(b.margin) || compareCodePoints(a.id, b.id);
}

/** Least profitable first (docs/design.md): margin_amount ascending, ties by end_user_id. */
export function leastProfitableFirst(a: MarginRow, b: MarginRow): number {
  return byMarginThenId({ margin: new Big(a.margin_amount), id: a.end_user_id }, { margin: new Big(b.margin_amount), id: b.end_user_id });
}

/** The rows in leastProfitableFirst's order, each margin parsed once rather than per comparison. */
export function sortLeastProfitableFirst<T extends MarginRow>(rows: readonly T[]): T[] {
  return rows
    .map((row) => ({ row, margin: new Big(row.margin_amount), id: row.end_user_id }))
    .sort(byMarginThenId)
    .map((k) => k.row);
}
