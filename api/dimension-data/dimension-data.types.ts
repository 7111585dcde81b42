// Wire shapes of /dimension-data: definitions, cost trend per dimension value, numeric trend and
// summary of a number dimension, and the cost breakdown by dimension value.
import type { DimensionDefinitionView } from '../admin/admin-views.js';
import type { Granularity, TimeSeries } from '../costs/costs.types.js';

export interface DimensionDefinitions {
  /** By key. */
  dimensions: DimensionDefinitionView[];
  total: number;
}

export interface DimensionCostTrend {
  /**
   * Without dimension parameters: one series (key `total`, label "Total"). With dimension_key
   * only: the 5 costliest values (events lacking the key as `Unassigned`), costliest first, then
   * one "Other" series (key `other`) when more values exist. With both: one series of that value.
   */
  series: TimeSeries[];
  granularity: Granularity;
}

export type NumericAggregation = 'sum' | 'avg' | 'min' | 'max';

export interface NumericTrendPoint {
  /** Bucket start, ISO 8601 UTC. */
  date: string;
  /** The aggregate as a decimal string; null when no event in the bucket carries the key. */
  value: string | null;
  /** Events in the bucket carrying a numeric value for the key. */
  event_count: number;
}

export interface NumericTrend {
  /** Every bucket of the range, in time order. */
  data_points: NumericTrendPoint[];
  granularity: Granularity;
  aggregation: NumericAggregation;
  dimension_key: string;
}

export interface NumericSummary {
  dimension_key: string;
  /** ISO 8601 UTC, inclusive. */
  period_start: string;
  /** ISO 8601 UTC, exclusive. */
  period_end: string;
  /** Events carrying a numeric value for the key. */
  event_count: number;
  /** Decimal strings; null when no event carries the key. */
  sum: string | null;
  avg: string | null;
  min: string | null;
  max: string | null;
}

interface DimensionCostBreakdownItem {
  /** The value (non-string JSON values as JSON text); `Unassigned` for events lacking the key. */
  dimension_value: string;
  /** USD. */
  total_cost: string;
  input_tokens: number;
  output_tokens: number;
  event_count: number;
  /** Share of the organization's total cost in the range, percent rounded to 2 decimals. */
  percent_of_total: number;
}

export interface DimensionCostBreakdown {
  /** Costliest first. */
  items: DimensionCostBreakdownItem[];
  /** USD, the organization's total cost in the range. */
  total_cost: string;
}
