// The wire shapes of POST /v1/what-if: a scenario (range, optional end user, model substitutions)
// and its answer. Money is an exact decimal string; null margins mean "no revenue known".

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

export interface WhatIfRequest {
  /** ISO 8601 date or datetime, inclusive. Must be before end_date. */
  start_date: string;
  /** ISO 8601 date or datetime, exclusive; at most 12 months after start_date. */
  end_date: string;
  /** The internal end-user UUID (as /margin-data and /end-user-costs name it): only this end user's events. */
  end_user_id?: string;
  /** At least one, at most 20, each from_model at most once. */
  substitutions: WhatIfSubstitution[];
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
  /** The same events with the substitutions priced in. */
  simulated_cost: string;
  /** simulated_cost − actual_cost (negative: the scenario is cheaper). */
  difference: string;
  /** End users with completed events in the range (ordered by end_user_id); events without an end user count in the totals only. */
  end_users: WhatIfEndUser[];
}
