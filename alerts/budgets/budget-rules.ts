// Budget rules as pure functions: the calendar period (UTC) holding an instant, which thresholds a
// spend has reached, and the figures a budget view shows. Money is decimal (big.js), never floats.
import { Big, formatMoney, percentOf } from '../../core/money.js';
import { bucketStart, nextBucket } from '../../core/time.js';

const BUDGET_SCOPES = ['organization', 'end_user', 'each_end_user', 'agent', 'workflow', 'dimension'] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];
const BUDGET_PERIODS = ['daily', 'weekly', 'monthly'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];
export const DEFAULT_THRESHOLDS = [50, 80, 100];

/** [start, end) of the calendar period holding `now`: UTC day, ISO week from Monday, calendar month. */
export function budgetPeriod(period: BudgetPeriod, now: Date): { start: Date; end: Date } {
  const start = bucketStart(now, period);
  return { start, end: nextBucket(start, period) };
}

/** The thresholds (percent of amount) that `spent` has reached: spent × 100 ≥ amount × threshold. */
export function thresholdsReached(spent: string, amount: string, thresholds: readonly number[]): number[] {
  const s = new Big(spent).times(100);
  return thresholds.filter((t) => s.gte(new Big(amount).times(t)));
}

/** Whether the budget is used up: spent ≥ amount. */
export function isExhausted(spent: string, amount: string): boolean {
  return new Big(spent).gte(new Big(amount));
}

export interface BudgetFigures {
  spent: string;
  /** amount − spent, never below 0. */
  remaining: string;
  /** spent / amount × 100, rounded to 2 decimals. */
  percent: number;
  thresholds_crossed: number[];
  exhausted: boolean;
}

export function budgetFigures(spent: string, amount: string, thresholds: readonly number[]): BudgetFigures {
  const left = new Big(amount).minus(spent);
  return {
    spent: formatMoney(spent),
    remaining: formatMoney(left.lt(0) ? 0 : left),
    percent: percentOf(spent, amount),
    thresholds_crossed: thresholdsReached(spent, amount, thresholds),
    exhausted: isExhausted(spent, amount),
  };
}
