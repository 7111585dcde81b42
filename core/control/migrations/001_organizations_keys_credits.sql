-- Tenants, their billing subscriptions, API keys and event credits.

CREATE TABLE organizations (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name          text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 255),
  -- Bumped by every rate-card or unit-rate write, so the processor notices new prices cheaply.
  rates_version bigint NOT NULL DEFAULT 0 CHECK (rates_version >= 0),
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE subscriptions (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id),
  status          text NOT NULL CHECK (status IN ('active', 'inactive', 'canceled')),
  plan            text NOT NULL CHECK (length(plan) BETWEEN 1 AND 255),
  started_at      timestamptz NOT NULL DEFAULT now(),
  ended_at        timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  CHECK (ended_at IS NULL OR ended_at >= started_at)
);
-- Ingest stamps each event with "the" active subscription, so there is at most one.
CREATE UNIQUE INDEX subscriptions_one_active ON subscriptions (organization_id) WHERE status = 'active';
CREATE INDEX subscriptions_by_org ON subscriptions (organization_id, created_at);

CREATE TABLE api_keys (
  id                        uuid PRIMARY KEY,
  organization_id           uuid NOT NULL REFERENCES organizations (id),
  key_hash                  text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  key_prefix                text NOT NULL,
  scopes                    text[] NOT NULL CHECK (
    cardinality(scopes) > 0
    AND scopes <@ ARRAY['usage:write', 'usage:read', 'costs:read', 'revenue:read', 'dimensions:read']::text[]
  ),
  owner_user_id             uuid NOT NULL,
  signing_secret_ciphertext bytea NOT NULL,
  signing_secret_iv         bytea NOT NULL CHECK (length(signing_secret_iv) = 12),
  signing_secret_tag        bytea NOT NULL CHECK (length(signing_secret_tag) = 16),
  created_at                timestamptz NOT NULL DEFAULT now(),
  revoked_at                timestamptz
);
CREATE INDEX api_keys_by_org ON api_keys (organization_id, created_at);

-- Balances stay below 2^53 so they convert to JS numbers exactly.
CREATE TABLE credit_balances (
  organization_id uuid PRIMARY KEY REFERENCES organizations (id),
  balance         bigint NOT NULL DEFAULT 0 CHECK (balance >= 0 AND balance <= 9007199254740991)
);

-- Every grant is kept, so a balance can be audited against what was bought.
CREATE TABLE credit_grants (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id),
  amount          bigint NOT NULL CHECK (amount > 0),
  balance_after   bigint NOT NULL CHECK (balance_after >= amount),
  note            text,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX credit_grants_by_org ON credit_grants (organization_id, created_at);
