// Wire shapes shared by the cost endpoints (cost-data, end-user-costs, dimension-data and the
// attribution endpoints): the spec's cost breakdown item and time series. Money is a decimal
// string in USD; counts and token quantities are numbers; percentages are rounded to 2 decimals.
import type { Granularity } from '../../core/time.js';

export type { Granularity };

/**
 * Token and cost totals of one group. The three optional token classes (and their costs) are null
 * when no event in the group reported that class.
 */
export interface CostMeasures {
  /** USD, decimal string. */
  total_cost: string;
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
  reasoning_tokens: number | null;
  /** USD. */
  input_cost: string;
  /** USD. */
  output_cost: string;
  /** USD; null when no event in the group reported cache creation tokens. */
  cache_creation_cost: string | null;
  /** USD; null when no event in the group reported cache read tokens. */
  cache_read_cost: string | null;
  /** USD; null when no event in the group reported reasoning tokens. */
  reasoning_cost: string | null;
  /** Completed events in the group. */
  event_count: number;
}

/** The spec's cost breakdown item. */
export interface CostBreakdownItem extends CostMeasures {
  /** The grouping value; `Unassigned` for events without it. */
  attribution_value: string;
  /** Share of the response's total cost, percent rounded to 2 decimals. */
  percent_of_total: number;
}

export interface TimeSeriesPoint {
  /** Bucket start, ISO 8601 UTC. */
  date: string;
  /** USD. */
  cost: string;
  event_count: number;
}

export interface TimeSeries {
  key: string;
  label: string;
  /** Buckets with events only, in time order (gaps are omitted). */
  data_points: TimeSeriesPoint[];
}
