// Wire shapes of /usage: the usage event page, the usage summary and the usage aggregation.

/** One stored usage event. */
export interface UsageEventItem {
  /** The event_id (UUID). */
  id: string;
  /** Events from POST /usage-events carry `ai.inference`. */
  event_type: string;
  /** `tokens` for LLM calls; the lowercased `metric` for metric events. */
  metric_name: string;
  /** Input plus output tokens for LLM calls; `quantity` for metric events. */
  quantity: number;
  /** ISO 8601 UTC. */
  event_timestamp: string;
  /**
   * The supplied metadata (non-string values as JSON text; null values left out) plus the mapped
   * keys provider, feature, agent_id, workflow_id and units (the metric's unit) when set.
   */
  metadata?: { [key: string]: string };
}

export interface UsageEventPage {
  events: UsageEventItem[];
  /** All matching events. */
  total: number;
  limit: number;
  offset: number;
}

interface UsageMetric {
  /** Lowercase. */
  metric_name: string;
  total_quantity: number;
  event_count: number;
}

export interface UsageSummary {
  /** The account user who owns the usage: the API key's owner (not an end user). */
  user_id: string;
  /** ISO 8601 UTC, inclusive. */
  period_start: string;
  /** ISO 8601 UTC, exclusive. */
  period_end: string;
  total_events: number;
  /** One entry per metric name, by name. */
  metrics: UsageMetric[];
}

interface UsageAggregationItem extends UsageMetric {
  /** Earliest event_timestamp of the metric in the period, ISO 8601 UTC. */
  first_event_at: string;
  /** Latest event_timestamp of the metric in the period, ISO 8601 UTC. */
  last_event_at: string;
}

export interface UsageAggregation {
  /** One entry per metric name, by name. */
  aggregations: UsageAggregationItem[];
  period_start: string;
  period_end: string;
  total_events: number;
}
