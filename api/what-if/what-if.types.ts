// The wire shapes of POST /v1/what-if: a scenario (range, optional scope filters, model
// substitutions, price changes, a cache hit rate, hypothetical cards) and its answer. Money is an exact decimal string; null margins mean "no revenue known".

/** Price the events of one model as if they had gone to another. */
export interface WhatIfSubstitution {
  /** The model name as the events carry it (exact match). */
  from_model: string;
  /** The model to price them at; the organization's cards (and the standard ones) must price it. */
  to_model: string;
  /**
   * Tokens the new model would use per token of the old one, applied to every token class and
   * rounded half-up to whole tokens (default 1).
   * @minimum 0.000001
   * @maximum 1000
   */
  token_ratio?: number;
}

/** A token class whose rates a price change moves; cache_creation covers both write durations. */
export type WhatIfTokenClass = 'input' | 'output' | 'cache_creation' | 'cache_read' | 'reasoning';

/** Token rates moved by a percentage for events of a provider, a model (after substitution), or both. */
export interface WhatIfPriceChange {
  /** The events' provider, exact; absent = any. */
  provider?: string;
  /** The model as priced (a substitution's to_model for moved events), exact; absent = any. */
  model?: string;
  /** Absent = every class. */
  token_class?: WhatIfTokenClass;
  /**
   * +20 = rates × 1.2; −100 = free.
   * @minimum -100
   * @maximum 1000
   */
  percent: number;
}

/** A share of each event's uncached input tokens read from the cache instead (at its card's cache-read rate). */
export interface WhatIfCacheHitRate {
  /**
   * Percent of input_tokens moved to cache_read_input_tokens, rounded half-up to whole tokens.
   * @minimum 0
   * @maximum 100
   */
  percent: number;
  /** Only events of this model (as priced); absent = every model whose card has a cache-read rate. */
  model?: string;
}

/** A hypothetical standard-tier card used in place of every card of its slug, at all times. Rates are USD per million tokens as decimal strings. */
export interface WhatIfCard {
  model_slug: string;
  input_cost_per_million: string;
  output_cost_per_million: string;
  cache_creation_cost_per_million?: string | null;
  cache_creation_1h_cost_per_million?: string | null;
  cache_read_cost_per_million?: string | null;
  reasoning_cost_per_million?: string | null;
}

/** Events whose attribution or metadata key `key` has exactly `value`. */
export interface WhatIfDimension {
  /** agent_id, workflow_id, feature or a metadata key. */
  key: string;
  value: string;
}

/** A scenario without its range: the scope filters and at least one change. */
export interface WhatIfScenario {
  /** The internal end-user UUID (as /margin-data and /end-user-costs name it): only this end user's events. */
  end_user_id?: string;
  /** Only events of this agent_id. */
  agent?: string;
  /** Only events of this workflow_id. */
  workflow?: string;
  /** Only events of this feature. */
  feature?: string;
  /** Only events with this dimension value. */
  dimension?: WhatIfDimension;
  /** At most 20, each from_model at most once. The scenario needs at least one change of any kind. */
  substitutions?: WhatIfSubstitution[];
  /** At most 20, applied in order. */
  price_changes?: WhatIfPriceChange[];
  cache_hit_rate?: WhatIfCacheHitRate;
  /** At most 20, each slug once. */
  cards?: WhatIfCard[];
}

export interface WhatIfRequest extends WhatIfScenario {
  /** ISO 8601 date or datetime, inclusive. Must be before end_date. */
  start_date: string;
  /** ISO 8601 date or datetime, exclusive; at most 12 months after start_date. */
  end_date: string;
}

/** A scenario to save under a name. */
export interface WhatIfScenarioBody {
  /** 1 to 200 characters. */
  name: string;
  scenario: WhatIfScenario;
}

export interface WhatIfScenarioView {
  id: string;
  name: string;
  scenario: WhatIfScenario;
  created_at: string;
}

export interface WhatIfScenarioList {
  /** Oldest first. */
  items: WhatIfScenarioView[];
}

/** The range a saved scenario is run over. */
export interface WhatIfRange {
  /** ISO 8601 date or datetime, inclusive. Must be before end_date. */
  start_date: string;
  /** ISO 8601 date or datetime, exclusive; at most 12 months after start_date. */
  end_date: string;
}

export interface WhatIfEndUser {
  end_user_id: string;
  /** The end user's external id (the events' user_id). */
  external_id: string | null;
  actual_cost: string;
  simulated_cost: string;
  /** Recognized revenue − actual_cost; null without revenue for this end user in the range, or without revenue:read. */
  actual_margin: string | null;
  /** Recognized revenue − simulated_cost; null as actual_margin is. */
  simulated_margin: string | null;
}

export interface WhatIfResult {
  /** Completed events' cost in the range and scope, as stored. */
  actual_cost: string;
  /** The same events with the scenario priced in. */
  simulated_cost: string;
  /** simulated_cost − actual_cost (negative: the scenario is cheaper). */
  difference: string;
  /** End users with completed events in the range (ordered by end_user_id); events without an end user count in the totals only. */
  end_users: WhatIfEndUser[];
}
