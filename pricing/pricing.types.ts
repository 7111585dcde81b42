// Rate-card shapes shared by ingest (the "no rate card" flag), the processor (pricing) and the api
// (rate estimation table). All rates are USD decimal strings; token rates are per million tokens.

type RateCardSource = 'standard' | 'organization';

/** The service tier of a card nobody named: what an event without `service_tier` is priced at. */
export const STANDARD_SERVICE_TIER = 'standard';

/**
 * A long-context tier of a token card: a request whose prompt (input + cache read + cache creation
 * tokens) is above `above_prompt_tokens` has every class priced at these rates. Null rates mean
 * the same as on the card: that class cannot be priced in this tier.
 */
export interface ContextTier {
  above_prompt_tokens: number;
  input_cost_per_million: string;
  output_cost_per_million: string;
  cache_creation_cost_per_million: string | null;
  cache_creation_1h_cost_per_million?: string | null;
  cache_read_cost_per_million: string | null;
  reasoning_cost_per_million: string | null;
}

/**
 * A time-of-day window of a token card (an off-peak discount, say): an event whose timestamp falls
 * in it has every class priced at these rates instead of the card's. Times are UTC, HH:MM, minute
 * precision; `start` is inclusive, `end` exclusive. An `end` before `start` runs past midnight into
 * the next day; `end` equal to `start` is the whole day. `days` names the ISO weekdays (1 = Monday
 * … 7 = Sunday, UTC) the window starts on; absent = every day. A card's windows never overlap.
 */
export interface TimeWindow {
  /** Recorded on every event the window prices (`off-peak`, say). */
  name: string;
  days?: number[];
  start_utc: string;
  end_utc: string;
  input_cost_per_million: string;
  output_cost_per_million: string;
  cache_creation_cost_per_million: string | null;
  cache_creation_1h_cost_per_million?: string | null;
  cache_read_cost_per_million: string | null;
  reasoning_cost_per_million: string | null;
}

/** A token rate card. A null rate means that token class cannot be priced by this card. */
export interface TokenRateCard {
  /** Lowercase; matches every model name it prefixes. */
  model_slug: string;
  input_cost_per_million: string;
  output_cost_per_million: string;
  cache_creation_cost_per_million: string | null;
  cache_read_cost_per_million: string | null;
  reasoning_cost_per_million: string | null;
  /** One-hour cache writes (the part of cache creation written with a 1 h TTL); absent = null. */
  cache_creation_1h_cost_per_million?: string | null;
  /** Absent = `standard`. Part of the card's identity with model_slug and effective_from. */
  service_tier?: string;
  /** Long-context tiers, any order; absent or empty = one price whatever the prompt size. */
  tiers?: readonly ContextTier[];
  /** Time-of-day windows with their own rates; absent or empty = one price at every hour. A card has windows or tiers, not both. */
  time_of_day_windows?: readonly TimeWindow[];
  effective_from: Date;
  source?: RateCardSource;
  /** A stable id recorded on every event the card prices (organization cards: their UUID). */
  id?: string;
}

/** A per-unit rate for metric events: (model or provider, metric, unit) → USD per unit. */
export interface UnitRate {
  model: string | null;
  provider: string | null;
  metric: string;
  /** Exactly as events send it; units are never converted. */
  unit: string;
  cost_per_unit: string;
  effective_from: Date;
}

/** One row of the spec's "Rate estimation table" (its fields), plus optional additions. */
export interface RateEstimationItem {
  model_slug: string;
  input_cost_per_million: string;
  cache_creation_cost_per_million: string | null;
  cache_read_cost_per_million: string | null;
  output_cost_per_million: string;
  reasoning_cost_per_million: string | null;
  /** One-hour cache writes; present only when the card prices them. */
  cache_creation_1h_cost_per_million?: string;
  /** Long-context tiers by prompt size, ascending; present only when the card has some. */
  tiers?: ContextTier[];
  /** Time-of-day windows (UTC) with their own rates; present only when the card has some. */
  time_of_day_windows?: TimeWindow[];
  /** The slug's cards of other service tiers (batch, flex, priority…) in effect then; present only when there are some. */
  service_tiers?: RateEstimationServiceTier[];
}

/** A non-standard service tier's rates in the rate estimation table. */
export interface RateEstimationServiceTier {
  service_tier: string;
  input_cost_per_million: string;
  cache_creation_cost_per_million: string | null;
  cache_read_cost_per_million: string | null;
  output_cost_per_million: string;
  reasoning_cost_per_million: string | null;
  cache_creation_1h_cost_per_million?: string;
  tiers?: ContextTier[];
  time_of_day_windows?: TimeWindow[];
}

export interface RateEstimationTable {
  items: RateEstimationItem[];
}

/** An entry of pricing/standard-rate-cards.json, as written in the file. */
export interface StandardRateCardEntry {
  model_slug: string;
  provider: string;
  input_cost_per_million: string;
  output_cost_per_million: string;
  cache_creation_cost_per_million: string | null;
  cache_read_cost_per_million: string | null;
  reasoning_cost_per_million: string | null;
  cache_creation_1h_cost_per_million?: string | null;
  /** Absent = `standard`. */
  service_tier?: string;
  tiers?: ContextTier[];
  time_of_day_windows?: TimeWindow[];
  /** ISO date (YYYY-MM-DD, UTC midnight) or full ISO timestamp. */
  effective_from: string;
  source: string;
  /** YYYY-MM-DD: the date the source states, or when the figure was last checked. */
  source_date: string;
  note?: string;
}

export interface StandardRateCardFile {
  version: string;
  currency: 'USD';
  notes: string[];
  cards: StandardRateCardEntry[];
}
