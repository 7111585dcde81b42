// Wire shapes of /end-user-costs/{externalId}: one end user's cost summary, breakdowns (by model,
// provider or a metadata dimension) and trend.
import type { CostBreakdownItem, CostMeasures, Granularity, TimeSeries } from '../costs/costs.types.js';

export interface EndUserCostSummary extends CostMeasures {
  /** Internal UUID. */
  end_user_id: string;
  /** The `user_id` sent on events. */
  external_id: string;
  /** The revenue source's customer name when known, else the external id. */
  end_user_name: string;
  /** ISO 8601 UTC, inclusive. */
  period_start: string;
  /** ISO 8601 UTC, exclusive. */
  period_end: string;
}

export interface EndUserCostBreakdown {
  /** Internal UUID. */
  end_user_id: string;
  /** Costliest first; percent_of_total is each item's share of total_cost. */
  items: CostBreakdownItem[];
  /** USD; the items sum to it. */
  total_cost: string;
}

export interface EndUserCostTrend {
  /** Internal UUID. */
  end_user_id: string;
  /** One series; key and label are the external id. */
  series: TimeSeries[];
  granularity: Granularity;
}
