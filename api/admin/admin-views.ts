// The admin API's wire shapes (snake_case, timestamps as ISO 8601 UTC, money and rates as decimal
// strings) and the mapping from control-plane records to them. Secrets appear only in
// IssuedApiKeyView, the one response that ever carries them.
import type { Scope } from '../../core/auth/scopes.js';
import type { ApiKeyRecord, IssuedApiKey } from '../../core/control/api-keys.js';
import type { CreditGrant } from '../../core/control/credits.js';
import type { DimensionDefinition } from '../../core/control/dimensions.js';
import type { Organization } from '../../core/control/organizations.js';
import type { RateCard, RateCardActor, UnitRate } from '../../pricing/rate-cards.store.js';
import type { ContextTier } from '../../pricing/pricing.types.js';
import type { Subscription, SubscriptionStatus } from '../../core/control/subscriptions.js';
import { Big } from '../../core/money.js';

export interface OrganizationView {
  organization_id: string;
  name: string;
  /** ISO 8601 UTC. */
  created_at: string;
}

export interface OrganizationList {
  organizations: OrganizationView[];
  total: number;
}

export interface ApiKeyView {
  key_id: string;
  organization_id: string;
  /** The first characters of the key, enough to recognise it ("mk_live_AbCdEf"). */
  key_prefix: string;
  scopes: Scope[];
  /** The account user who owns the key's usage (GET /usage/summary reports it as user_id). */
  owner_user_id: string;
  created_at: string;
  /** Null while the key is active. */
  revoked_at: string | null;
}

export interface ApiKeyList {
  api_keys: ApiKeyView[];
  total: number;
}

/** A new key: `api_key` and `signing_secret` are shown here once and never again. */
export interface IssuedApiKeyView {
  key_id: string;
  organization_id: string;
  /** Send as `Authorization: Bearer <api_key>`. */
  api_key: string;
  /** HMAC-SHA256 key for `X-Signature` on ingestion. */
  signing_secret: string;
  key_prefix: string;
  scopes: Scope[];
  owner_user_id: string;
  created_at: string;
}

export interface CreditGrantResult {
  organization_id: string;
  /** The event-credit balance after the grant. */
  balance: number;
  grant_id: string;
}

export interface CreditGrantView {
  grant_id: string;
  amount: number;
  balance_after: number;
  note: string | null;
  created_at: string;
}

export interface CreditBalanceView {
  organization_id: string;
  balance: number;
  /** Every grant, oldest first. */
  grants: CreditGrantView[];
}

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

/** The spec's dimension definition. */
export interface DimensionDefinitionView {
  id: string;
  organization_id: string;
  name: string;
  key: string;
  description?: string;
  value_type: 'string' | 'number';
  is_required: boolean;
  created_at: string;
}

export interface DimensionDefinitionList {
  dimensions: DimensionDefinitionView[];
  total: number;
}

export interface SubscriptionView {
  subscription_id: string;
  organization_id: string;
  status: SubscriptionStatus;
  plan: string;
  started_at: string;
  /** Set when the subscription was canceled. */
  ended_at: string | null;
  created_at: string;
}

export interface SubscriptionList {
  subscriptions: SubscriptionView[];
  total: number;
}

const iso = (d: Date): string => d.toISOString();
/** NUMERIC comes back with the scale it was stored with; show it trimmed ("3", not "3.000"). */
const rate = (v: string): string => new Big(v).toFixed();
const nullableRate = (v: string | null): string | null => (v === null ? null : rate(v));

export function organizationView(o: Organization): OrganizationView {
  return { organization_id: o.id, name: o.name, created_at: iso(o.createdAt) };
}

export function apiKeyView(k: ApiKeyRecord): ApiKeyView {
  return {
    key_id: k.id,
    organization_id: k.organizationId,
    key_prefix: k.keyPrefix,
    scopes: k.scopes,
    owner_user_id: k.ownerUserId,
    created_at: iso(k.createdAt),
    revoked_at: k.revokedAt ? iso(k.revokedAt) : null,
  };
}

export function issuedApiKeyView(k: IssuedApiKey): IssuedApiKeyView {
  return {
    key_id: k.id,
    organization_id: k.organizationId,
    api_key: k.apiKey,
    signing_secret: k.signingSecret,
    key_prefix: k.keyPrefix,
    scopes: k.scopes,
    owner_user_id: k.ownerUserId,
    created_at: iso(k.createdAt),
  };
}

export function creditGrantView(g: CreditGrant): CreditGrantView {
  return { grant_id: g.id, amount: g.amount, balance_after: g.balanceAfter, note: g.note, created_at: iso(g.createdAt) };
}

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

export function dimensionView(d: DimensionDefinition): DimensionDefinitionView {
  return {
    id: d.id,
    organization_id: d.organizationId,
    name: d.name,
    key: d.key,
    ...(d.description !== null ? { description: d.description } : {}),
    value_type: d.valueType,
    is_required: d.isRequired,
    created_at: iso(d.createdAt),
  };
}

export function subscriptionView(s: Subscription): SubscriptionView {
  return {
    subscription_id: s.id,
    organization_id: s.organizationId,
    status: s.status,
    plan: s.plan,
    started_at: iso(s.startedAt),
    ended_at: s.endedAt ? iso(s.endedAt) : null,
    created_at: iso(s.createdAt),
  };
}
