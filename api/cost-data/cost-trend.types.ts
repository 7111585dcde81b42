// Wire shapes of the console's cost read endpoints the spec lacks: cost over time split by a typed
// attribution column (model, provider, …), and the models whose events wait for a rate card.
import type { Granularity, TimeSeries } from '../costs/costs.types.js';

/** Typed event columns cost over time can be split by (`total`: one series of all cost). */
export type CostTrendGroupBy = 'total' | 'model' | 'provider' | 'agent_id' | 'workflow_id' | 'feature';

export interface CostTrend {
  /** The `top` costliest values over the whole range, costliest first, then `Other` (key `other`) when more exist. */
  series: TimeSeries[];
  granularity: Granularity;
  group_by: CostTrendGroupBy;
}

interface PendingRateCardItem {
  /** The event's model; null for metric events priced by provider. */
  model: string | null;
  provider: string | null;
  /** Events in the range stored as `pending_rate_card` with this model and provider. */
  event_count: number;
}

export interface PendingRateCards {
  /** Most events first, ties by model then provider. */
  items: PendingRateCardItem[];
  /** Sum of event_count over items. */
  total_events: number;
  period_start: string;
  period_end: string;
}
