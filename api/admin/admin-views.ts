// The admin API's wire shapes (snake_case, timestamps as ISO 8601 UTC, money as decimal strings)
// and the mapping from control-plane records to them (rate cards and unit rates: pricing/rate-card-views.ts). Secrets appear only in
// IssuedApiKeyView, the one response that ever carries them.
import type { Scope } from '../../core/auth/scopes.js';
import type { ApiKeyRecord, IssuedApiKey } from '../../core/control/api-keys.js';
import type { CreditGrant } from '../../core/control/credits.js';
import type { DimensionDefinition } from '../../core/control/dimensions.js';
import type { Organization } from '../../core/control/organizations.js';
import type { Subscription, SubscriptionStatus } from '../../core/control/subscriptions.js';

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
