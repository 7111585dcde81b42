// Rate-card shapes shared by ingest (the "no rate card" flag), the processor (pricing) and the api
// (rate estimation table). All rates are USD decimal strings; token rates are per million tokens.

type RateCardSource = 'standard' | 'organization';

/** A token rate card. A null rate means that token class cannot be priced by this card. */
export interface TokenRateCard {
  /** Lowercase; matches every model name it prefixes. */
  model_slug: string;
  input_cost_per_million: string;
  output_cost_per_million: string;
  cache_creation_cost_per_million: string | null;
  cache_read_cost_per_million: string | null;
  reasoning_cost_per_million: string | null;
  effective_from: Date;
  source?: RateCardSource;
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

/** One row of the spec's "Rate estimation table". */
export interface RateEstimationItem {
  model_slug: string;
  input_cost_per_million: string;
  cache_creation_cost_per_million: string | null;
  cache_read_cost_per_million: string | null;
  output_cost_per_million: string;
  reasoning_cost_per_million: string | null;
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
