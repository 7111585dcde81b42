// Wire shapes of the margin endpoints (the spec's margin shapes; api/margin/ serves them, the rules
// in margin.ts build them). Money is a decimal string in USD; percentages are numbers rounded to 2
// decimals.
import type { Granularity } from '../core/time.js';
import type { ProfitabilityCategory } from './profitability.js';

/** All revenue and all cost of the window, attributed and unattributed. */
export interface MarginOrgTotal {
  /** Accrual-recognized revenue; "0" when nothing is synced or no connection is active. */
  total_revenue: string;
  total_cost: string;
  /** Revenue minus cost; negative when cost exceeds revenue. */
  margin_amount: string;
  /** (revenue - cost) / revenue × 100, 2 decimals; null when revenue is zero. */
  margin_percent: number | null;
  profitability_category: ProfitabilityCategory;
  /** Revenue records recognized in total_revenue (their billing period overlaps the window). */
  revenue_record_count: number;
  /** Usage events in total_cost. */
  cost_record_count: number;
  /** Raw sum of revenue records without an end user whose billing period starts in the window. */
  unattributed_revenue: string;
  /** Cost of events without an end user: in total_cost, in no end-user row. */
  unattributed_cost: string;
}

/** The margin summary: the org_total shape on its own. */
export type MarginSummary = MarginOrgTotal;

export interface EndUserMarginRow {
  /** Internal UUID. */
  end_user_id: string;
  /** The revenue source's customer name when known, else the external id. */
  end_user_name: string;
  revenue: string;
  cost: string;
  margin_amount: string;
  /** Null when this end user's revenue is zero. */
  margin_percent: number | null;
  profitability_category: ProfitabilityCategory;
}

type MarginWarningType = 'unattributed_revenue' | 'unattributed_cost' | 'revenue_not_connected';

export interface MarginWarning {
  type: MarginWarningType;
  /** Records concerned; 0 for revenue_not_connected. */
  count: number;
  message: string;
}

export interface MarginByEndUser {
  /** Least profitable first: margin_amount ascending, ties by end_user_id. */
  end_users: EndUserMarginRow[];
  org_total: MarginOrgTotal;
  /** Empty when every record is attributed and a revenue source is connected. */
  warnings: MarginWarning[];
}

interface MarginTrendPoint {
  /** Bucket start, ISO 8601 UTC. */
  date: string;
  revenue: string;
  cost: string;
  margin_amount: string;
  /** Null when the bucket's revenue is zero. */
  margin_percent: number | null;
}

export interface MarginTrend {
  /** Time-ordered; buckets with neither revenue nor cost are omitted. */
  data_points: MarginTrendPoint[];
  granularity: Granularity;
}
