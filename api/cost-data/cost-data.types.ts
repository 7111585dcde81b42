// Wire shapes of /cost-data: the organization's cost summary with its previous-period comparison
// and status counts, and the breakdown by end user.
import type { CostMeasures } from '../costs/costs.types.js';

/** The spec's time windows (core/time's TIME_WINDOWS, spelled out for the OpenAPI document). */
export type CostTimeWindow = 'current-period' | 'last-period' | 'last-7-days' | 'last-30-days' | 'last-90-days' | 'ytd' | 'last-year';

/** Organization-wide event counts by processing status (all time, not only the window). */
export interface StatusCounts {
  /** Cost calculation finished; these count toward current and previous period totals. */
  completed: number;
  /** Accepted at ingestion (in the idempotency ledger) but not yet in the lake. */
  pending: number;
  /** Stored, waiting for a rate card that prices them. */
  pending_rate_card: number;
  /** Cost calculation failed. */
  failed: number;
}

export interface CostSummary {
  /** USD. */
  current_period_cost: string;
  /** USD, the comparison period (see period rules in the README). */
  previous_period_cost: string;
  /** current minus previous, USD. */
  change_amount: string;
  /** (current − previous) / previous × 100, rounded to 2 decimals; null when previous is 0. */
  change_percent: number | null;
  /** ISO 8601 UTC, inclusive. */
  period_start: string;
  /** ISO 8601 UTC, exclusive. */
  period_end: string;
  /** Completed events contributing to current_period_cost. */
  event_count?: number;
  status_counts?: StatusCounts;
}

/** The organization end-user breakdown item. */
interface EndUserCostItem extends CostMeasures {
  /** Internal UUID, or `unassigned` for events without an end user. */
  end_user_id: string;
  /** The revenue source's customer name when known, else the external id; `Unassigned` for the bucket. */
  end_user_name: string;
  /** Share of total_cost, percent rounded to 2 decimals. */
  percent_of_total: number;
}

export interface CostByEndUser {
  /** Every end user with completed events in the range, costliest first; items sum to total_cost. */
  end_users: EndUserCostItem[];
  /** USD. */
  total_cost: string;
}
