// Response shapes of the read endpoints the console calls (the subset of openapi/openapi.json it
// reads). Money fields are USD decimal strings; counts are numbers.
export type Granularity = 'daily' | 'weekly' | 'monthly';
export type Profitability = 'profitable' | 'break-even' | 'unprofitable';

interface CostMeasures {
  total_cost: string;
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
  reasoning_tokens: number | null;
  input_cost: string;
  output_cost: string;
  event_count: number;
}

export interface EndUserCostItem extends CostMeasures {
  end_user_id: string;
  end_user_name: string;
  percent_of_total: number;
}
export interface CostByEndUser {
  end_users: EndUserCostItem[];
  total_cost: string;
}

export interface CostBreakdownItem extends CostMeasures {
  attribution_value: string;
  percent_of_total: number;
}
export interface ByAgent {
  items: CostBreakdownItem[];
  total_cost: string;
  total_groups: number;
  truncated: boolean;
}
export interface ByDimension {
  items: CostBreakdownItem[];
  total_cost: string;
}
export interface DistinctValues {
  values: string[];
  truncated: boolean;
}

interface TimeSeriesPoint {
  date: string;
  cost: string;
  event_count: number;
}
export interface TimeSeries {
  key: string;
  label: string;
  data_points: TimeSeriesPoint[];
}
export interface SeriesResponse {
  series: TimeSeries[];
  granularity: Granularity;
}

export interface MarginOrgTotal {
  total_revenue: string;
  total_cost: string;
  margin_amount: string;
  margin_percent: number | null;
  profitability_category: Profitability;
  revenue_record_count: number;
  cost_record_count: number;
  unattributed_revenue: string;
  unattributed_cost: string;
}
export interface EndUserMarginRow {
  end_user_id: string;
  end_user_name: string;
  revenue: string;
  cost: string;
  margin_amount: string;
  margin_percent: number | null;
  profitability_category: Profitability;
}
interface MarginWarning {
  type: 'unattributed_revenue' | 'unattributed_cost' | 'revenue_not_connected';
  count: number;
  message: string;
}
export interface MarginByEndUser {
  end_users: EndUserMarginRow[];
  org_total: MarginOrgTotal;
  warnings: MarginWarning[];
}
interface MarginTrendPoint {
  date: string;
  revenue: string;
  cost: string;
  margin_amount: string;
  margin_percent: number | null;
}
export interface MarginTrend {
  data_points: MarginTrendPoint[];
  granularity: Granularity;
}

export interface PendingRateCards {
  items: Array<{ model: string | null; provider: string | null; event_count: number }>;
  total_events: number;
}

interface EndUserEntry {
  end_user_id: string;
  external_id: string;
  end_user_name: string;
  created_at: string;
}
export interface EndUserDirectory {
  end_users: EndUserEntry[];
  total: number;
}
export interface EndUserSummary extends CostMeasures {
  end_user_id: string;
  external_id: string;
  end_user_name: string;
}

export interface DimensionDefinition {
  id: string;
  name: string;
  key: string;
  description?: string;
  value_type: 'string' | 'number';
  is_required: boolean;
  created_at: string;
}
export interface DimensionDefinitions {
  dimensions: DimensionDefinition[];
  total: number;
}
export interface DimensionBreakdown {
  items: Array<{ dimension_value: string; total_cost: string; input_tokens: number; output_tokens: number; event_count: number; percent_of_total: number }>;
  total_cost: string;
}
export interface NumericTrend {
  data_points: Array<{ date: string; value: string | null; event_count: number }>;
  granularity: Granularity;
  aggregation: string;
  dimension_key: string;
}

export interface SessionSummary {
  session_id: string;
  total_cost: string;
  event_count: number;
  span_count: number;
  untraced_event_count: number;
  first_event_at: string;
  last_event_at: string;
}
export interface SessionList {
  sessions: SessionSummary[];
  total: number;
  limit: number;
  offset: number;
}
export interface SessionTreeNode {
  span_id: string;
  parent_span_id: string | null;
  name: string | null;
  kind: string | null;
  agent_id: string | null;
  own_cost: string;
  subtree_cost: string;
  event_count: number;
  depth: number;
  orphaned: boolean;
  cycle?: boolean;
  depth_capped?: boolean;
  started_at: string | null;
  duration_ms: number | null;
  overlapped_by_sibling: boolean;
  children: SessionTreeNode[];
}
export interface SessionTree {
  session_id: string;
  roots: SessionTreeNode[];
  untraced: { total_cost: string; event_count: number };
  run_wall_ms: number | null;
  truncated: boolean;
  span_count: number;
  node_limit: number;
  withheld: { total_cost: string; span_count: number; event_count: number };
}

export interface UsageEvent {
  id: string;
  event_type: string;
  metric_name: string;
  quantity: number;
  event_timestamp: string;
  metadata?: Record<string, string>;
}
export interface UsageEventPage {
  events: UsageEvent[];
  total: number;
  limit: number;
  offset: number;
}
export interface UsageSummary {
  total_events: number;
  metrics: Array<{ metric_name: string; total_quantity: number; event_count: number }>;
}

export interface RateItem {
  model_slug: string;
  input_cost_per_million: string;
  cache_creation_cost_per_million: string | null;
  cache_read_cost_per_million: string | null;
  output_cost_per_million: string;
  reasoning_cost_per_million: string | null;
}
