// Wire shapes of an organization's rate cards and unit rates (the admin API's conventions:
// snake_case, timestamps as ISO 8601 UTC, rates as trimmed decimal strings) and the mapping from
// the store's records to them.
import { Big } from '../core/money.js';
import type { ContextTier, TimeWindow } from './pricing.types.js';
import type { RateCard, RateCardActor, UnitRate } from './rate-cards.store.js';

export interface RateCardView {
  rate_card_id: string;
  organization_id: string;
  model_slug: string;
  /** USD per million tokens, decimal string. */
  input_cost_per_million: string;
  output_cost_per_million: string;
  /** Null: cache-creation tokens cannot be priced by this card. */
  cache_creation_cost_per_million: string | null;
  cache_read_cost_per_million: string | null;
  reasoning_cost_per_million: string | null;
  /** Null: one-hour cache writes cannot be priced by this card. */
  cache_creation_1h_cost_per_million: string | null;
  /** `standard` unless the card prices another service tier. */
  service_tier: string;
  /** Long-context tiers by prompt size, ascending; empty when none. */
  tiers: ContextTier[];
  /** Time-of-day windows (UTC) with their own rates, in the card's order; empty when none. */
  time_of_day_windows: TimeWindow[];
  effective_from: string;
  created_at: string;
  /** Who posted the card. */
  created_by: RateCardActorView;
  /** Null while the card prices events; else when a card of the same identity superseded it. */
  superseded_at: string | null;
  /** The card that superseded this one; null while current. */
  superseded_by_rate_card_id: string | null;
  /** Who posted the superseding card; null while current. */
  superseded_by: RateCardActorView | null;
}

/** Who wrote a card: `admin_token` (every write today), or `user` with its user_id. */
interface RateCardActorView {
  kind: 'admin_token' | 'user';
  /** Null for the admin token. */
  user_id: string | null;
}

export interface RateCardList {
  rate_cards: RateCardView[];
  total: number;
}

export interface UnitRateView {
  unit_rate_id: string;
  organization_id: string;
  /** Lowercase; null when the rate is keyed by provider. */
  model: string | null;
  /** Lowercase; null when the rate is keyed by model. */
  provider: string | null;
  /** Lowercase. */
  metric: string;
  /** Exactly as configured; events must send the same unit. */
  unit: string;
  /** USD per unit, decimal string. */
  cost_per_unit: string;
  effective_from: string;
  created_at: string;
}

export interface UnitRateList {
  unit_rates: UnitRateView[];
  total: number;
}

const iso = (d: Date): string => d.toISOString();
/** NUMERIC comes back with the scale it was stored with; show it trimmed ("3", not "3.000"). */
const rate = (v: string): string => new Big(v).toFixed();
const nullableRate = (v: string | null): string | null => (v === null ? null : rate(v));

export function rateCardView(c: RateCard): RateCardView {
  return {
    rate_card_id: c.id,
    organization_id: c.organizationId,
    model_slug: c.modelSlug,
    input_cost_per_million: rate(c.inputCostPerMillion),
    output_cost_per_million: rate(c.outputCostPerMillion),
    cache_creation_cost_per_million: nullableRate(c.cacheCreationCostPerMillion),
    cache_read_cost_per_million: nullableRate(c.cacheReadCostPerMillion),
    reasoning_cost_per_million: nullableRate(c.reasoningCostPerMillion),
    cache_creation_1h_cost_per_million: nullableRate(c.cacheCreation1hCostPerMillion),
    service_tier: c.serviceTier,
    tiers: c.tiers.map((t) => ({
      above_prompt_tokens: t.above_prompt_tokens,
      input_cost_per_million: rate(t.input_cost_per_million),
      output_cost_per_million: rate(t.output_cost_per_million),
      cache_creation_cost_per_million: nullableRate(t.cache_creation_cost_per_million),
      cache_creation_1h_cost_per_million: nullableRate(t.cache_creation_1h_cost_per_million ?? null),
      cache_read_cost_per_million: nullableRate(t.cache_read_cost_per_million),
      reasoning_cost_per_million: nullableRate(t.reasoning_cost_per_million),
    })),
    time_of_day_windows: c.timeWindows.map((w) => ({
      name: w.name,
      ...(w.days ? { days: w.days } : {}),
      start_utc: w.start_utc,
      end_utc: w.end_utc,
      input_cost_per_million: rate(w.input_cost_per_million),
      output_cost_per_million: rate(w.output_cost_per_million),
      cache_creation_cost_per_million: nullableRate(w.cache_creation_cost_per_million),
      cache_creation_1h_cost_per_million: nullableRate(w.cache_creation_1h_cost_per_million ?? null),
      cache_read_cost_per_million: nullableRate(w.cache_read_cost_per_million),
      reasoning_cost_per_million: nullableRate(w.reasoning_cost_per_million),
    })),
    effective_from: iso(c.effectiveFrom),
    created_at: iso(c.createdAt),
    created_by: actorView(c.createdBy),
    superseded_at: c.supersededAt && iso(c.supersededAt),
    superseded_by_rate_card_id: c.supersededBy,
    superseded_by: c.supersededByActor && actorView(c.supersededByActor),
  };
}

function actorView(a: RateCardActor): RateCardActorView {
  return { kind: a.kind, user_id: a.kind === 'user' ? a.userId : null };
}

export function unitRateView(r: UnitRate): UnitRateView {
  return {
    unit_rate_id: r.id,
    organization_id: r.organizationId,
    model: r.model,
    provider: r.provider,
    metric: r.metric,
    unit: r.unit,
    cost_per_unit: rate(r.costPerUnit),
    effective_from: iso(r.effectiveFrom),
    created_at: iso(r.createdAt),
  };
}
