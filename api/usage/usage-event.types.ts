// Wire shape of GET /v1/usage/events/{eventId}: one event as the spec's usage event item, plus how
// it was priced (status, token counts, the cost breakdown and the rate card used).

/** The event's cost in USD decimal strings; a class the event did not report is null. */
interface EventCostBreakdown {
  /** Every class below plus unit_cost, or the override when cost_override was sent; "0" while unpriced. */
  total_cost: string;
  input_cost: string | null;
  output_cost: string | null;
  /** All cache writes, five-minute and one-hour. */
  cache_creation_cost: string | null;
  /** The part of cache_creation_cost from one-hour writes. */
  cache_creation_1h_cost: string | null;
  cache_read_cost: string | null;
  reasoning_cost: string | null;
  /** Metric events: quantity × the unit rate. */
  unit_cost: string | null;
  /** The total the client sent in place of the computed one, or null. */
  cost_override: string | null;
}

/** The token rate card that priced the event. */
interface EventRateCard {
  /** The organization card's UUID, or `standard:<slug>:<service tier>:<effective_from>` for a shipped card. */
  rate_card_id: string;
  model_slug: string;
  service_tier: string;
  /** ISO 8601 UTC. */
  effective_from: string;
  /** The context tier's threshold when the prompt was above one; null at the card's base rates. */
  context_tier_above_prompt_tokens: number | null;
  /** The time-of-day window (its name, as on the card) whose rates priced the event; null at the card's own rates. */
  time_of_day_window: string | null;
}

export interface UsageEventDetail {
  /** The event_id (UUID). */
  id: string;
  event_type: string;
  metric_name: string;
  quantity: number;
  /** ISO 8601 UTC. */
  event_timestamp: string;
  /** As on GET /usage/events. */
  metadata?: { [key: string]: string };
  /** `completed`, `pending_rate_card` or `failed`. */
  status: string;
  /** Why the event is pending_rate_card or failed; null when completed. */
  status_reason: string | null;
  /** Why ingest answered accepted_flagged, or null. */
  flag_reason: string | null;
  /** Set when the event was priced otherwise than it asked (a service tier without its own card). */
  pricing_note: string | null;
  model: string | null;
  provider: string | null;
  /** As sent (lowercased); null = standard. */
  service_tier: string | null;
  /** The end user's external id as sent, or null. */
  user_id: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_creation_input_tokens: number | null;
  cache_creation_1h_input_tokens: number | null;
  cache_read_input_tokens: number | null;
  reasoning_tokens: number | null;
  cost: EventCostBreakdown;
  /** Null when no token card priced the event (unpriced, per-unit priced, or overridden). */
  rate_card: EventRateCard | null;
  /** When the cost was last computed (ISO 8601 UTC); a re-priced event shows the re-pricing time. */
  priced_at: string;
}
