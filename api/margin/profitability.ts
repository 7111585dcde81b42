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

// Percent division needs only enough digits to round to 2 decimals: truncating toward zero at 6
// decimals keeps every comparison with a x.xx5 boundary exact, so the half-up rounding to 2
// decimals equals that of the exact quotient (and is ~10× cheaper than big.js's 40 digits).
const PercentBig = Big();
PercentBig.DP = 6;
PercentBig.RM = Big.roundDown;

/** (revenue - cost) / revenue × 100 rounded half-up to 2 decimals; null when revenue is zero. */
export function marginPercent(revenue: Big, cost: Big): number | null {
  if (revenue.eq(0)) return null;
  const quotient = new PercentBig(revenue.minus(cost).times(100)).div(revenue);
  return Number(quotient.round(2, Big.roundHalfUp).toFixed(2));
}

/**
 * profitable above 20 %; break-even from 0 to 20 %, or with no activity at all; unprofitable
 * below 0 %, or with cost and zero revenue. Net-negative revenue (refunds exceeding sales) is
 * unprofitable whatever the formula's sign says. Compared on the rounded percent the client sees.
 */
export function profitabilityCategory(revenue: Big, cost: Big): ProfitabilityCategory {
  return categoryOf(revenue, cost, marginPercent(revenue, cost));
}

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

/** Least profitable first (DESIGN.md): margin_amount ascending, ties by end_user_id. */
export function leastProfitableFirst(a: { margin_amount: string; end_user_id: string }, b: { margin_amount: string; end_user_id: string }): number {
  return new Big(a.margin_amount).cmp(b.margin_amount) || (a.end_user_id < b.end_user_id ? -1 : a.end_user_id > b.end_user_id ? 1 : 0);
}
