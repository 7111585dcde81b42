// Margin figures of one row (an end user, a bucket or the whole organization) and the spec's
// profitability rule. Revenue is rounded to the wire's 12 digits first, so margin_amount and
// margin_percent agree exactly with the revenue and cost strings the client sees.
import { Big, formatMoney, toBig } from '../../core/money.js';

export type ProfitabilityCategory = 'profitable' | 'break-even' | 'unprofitable';

export interface MarginFigures {
  revenue: string;
  cost: string;
  margin_amount: string;
  margin_percent: number | null;
  profitability_category: ProfitabilityCategory;
}

/** (revenue - cost) / revenue × 100 rounded half-up to 2 decimals; null when revenue is zero. */
export function marginPercent(revenue: Big, cost: Big): number | null {
  if (revenue.eq(0)) return null;
  return Number(revenue.minus(cost).times(100).div(revenue).round(2, Big.roundHalfUp).toFixed(2));
}

/**
 * profitable above 20 %; break-even from 0 to 20 %, or with no activity at all; unprofitable
 * below 0 %, or with cost and zero revenue. Net-negative revenue (refunds exceeding sales) is
 * unprofitable whatever the formula's sign says. Compared on the rounded percent the client sees.
 */
export function profitabilityCategory(revenue: Big, cost: Big): ProfitabilityCategory {
  if (revenue.eq(0)) return cost.gt(0) ? 'unprofitable' : 'break-even';
  if (revenue.lt(0)) return 'unprofitable';
  const pct = marginPercent(revenue, cost)!;
  return pct > 20 ? 'profitable' : pct >= 0 ? 'break-even' : 'unprofitable';
}

export function marginFigures(revenue: Big | string, cost: Big | string): MarginFigures {
  const rev = toBig(formatMoney(revenue));
  const cst = toBig(formatMoney(cost));
  return {
    revenue: formatMoney(rev),
    cost: formatMoney(cst),
    margin_amount: formatMoney(rev.minus(cst)),
    margin_percent: marginPercent(rev, cst),
    profitability_category: profitabilityCategory(rev, cst),
  };
}

/** Least profitable first (DESIGN.md): margin_amount ascending, ties by end_user_id. */
export function leastProfitableFirst(a: { margin_amount: string; end_user_id: string }, b: { margin_amount: string; end_user_id: string }): number {
  return new Big(a.margin_amount).cmp(b.margin_amount) || (a.end_user_id < b.end_user_id ? -1 : a.end_user_id > b.end_user_id ? 1 : 0);
}
