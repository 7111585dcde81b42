-- Revenue: one connection per source kind (an import, or a Stripe account) and the records it
-- brought. Amounts are exact USD decimals and may be negative (refunds).

CREATE TABLE revenue_connections (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id),
  kind            text NOT NULL CHECK (kind IN ('import', 'stripe')),
  status          text NOT NULL CHECK (status IN ('active', 'inactive')),
  -- Stripe: account id and the API key sealed under the master key, never in clear.
  config          jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(config) = 'object'),
  last_synced_at  timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, kind)
);

CREATE TABLE revenue_records (
  organization_id      uuid NOT NULL REFERENCES organizations (id),
  source               text NOT NULL CHECK (source IN ('import', 'stripe')),
  id                   text NOT NULL CHECK (length(id) BETWEEN 1 AND 255),
  external_customer_id text,
  -- The end user's external id (the `user_id` sent on events); null = unattributed revenue.
  user_id              text,
  customer_name        text,
  amount               numeric NOT NULL CHECK (amount > -1e18 AND amount < 1e18),
  currency             text NOT NULL DEFAULT 'USD' CHECK (currency ~ '^[A-Z]{3}$'),
  period_start         timestamptz NOT NULL,
  -- Recognition divides by the period's length, so it is never empty.
  period_end           timestamptz NOT NULL CHECK (period_end > period_start),
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, source, id)
);
CREATE INDEX revenue_records_by_period ON revenue_records (organization_id, period_start);
CREATE INDEX revenue_records_by_user ON revenue_records (organization_id, user_id);
