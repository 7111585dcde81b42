// Wire shapes of the attribution endpoints. Items are the spec's cost breakdown item.
import type { CostBreakdownItem } from '../costs/costs.types.js';

export interface AttributionBreakdown {
  /** The costliest groups (at most 1000), costliest first; percent_of_total sums to 100 over them. */
  items: CostBreakdownItem[];
  /** USD, of the whole matched population (not the sum of items when truncated). */
  total_cost: string;
  /** All groups matched. */
  total_groups: number;
  /** True when total_groups exceeded the cap and the cheapest groups were dropped. */
  truncated: boolean;
}

export interface AttributionDimensionBreakdown extends AttributionBreakdown {
  /** The grouping key as requested. */
  dimension: string;
}

export interface DistinctValues {
  /** Sorted by code point; at most 1000. */
  values: string[];
  /** True when more than 1000 distinct values exist in the range. */
  truncated: boolean;
}

export interface DimensionValues extends DistinctValues {
  dimension: string;
}
