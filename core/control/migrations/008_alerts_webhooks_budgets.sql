-- Issue 14: webhook endpoints, the durable event outbox with one delivery row per (endpoint,
-- event), the attempt log, budgets and the alert state that makes each alert fire once.
-- The outbox is written in the same statement or transaction as the state change that causes it.

CREATE TABLE webhook_endpoints (
  id                          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id             uuid NOT NULL REFERENCES organizations (id),
  url                         text NOT NULL,
  description                 text,
  -- Event types, or '*' for every type.
  enabled_events              text[] NOT NULL,
  enabled                     boolean NOT NULL DEFAULT true,
  disabled_reason             text,
  -- whsec_… sealed under the master key (core/auth/secrets.ts), bound to the endpoint id.
  secret_sealed               text NOT NULL,
  -- The secret before the last rotation, still signed with until previous_secret_expires_at.
  previous_secret_sealed      text,
  previous_secret_expires_at  timestamptz,
  -- Start of the current run of failed attempts; null once an attempt succeeds.
  failing_since               timestamptz,
  deleted_at                  timestamptz,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_org ON webhook_endpoints (organization_id) WHERE deleted_at IS NULL;

CREATE TABLE webhook_events (
  id              text PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  type            text NOT NULL,
  data            jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- Creation order (per organization, ties broken by id).
  seq             bigserial NOT NULL
);
CREATE INDEX webhook_events_org ON webhook_events (organization_id, seq);

CREATE TABLE webhook_deliveries (
  endpoint_id       uuid NOT NULL REFERENCES webhook_endpoints (id),
  event_id          text NOT NULL REFERENCES webhook_events (id),
  organization_id   uuid NOT NULL,
  status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts          integer NOT NULL DEFAULT 0,
  -- Due time while pending.
  next_attempt_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- Set while a worker sends it (its lease); a worker that died leaves it to expire.
  claimed_until     timestamptz,
  first_failed_at   timestamptz,
  delivered_at      timestamptz,
  created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';

CREATE TABLE webhook_attempts (
  id                bigserial PRIMARY KEY,
  endpoint_id       uuid NOT NULL REFERENCES webhook_endpoints (id),
  event_id          text NOT NULL,
  organization_id   uuid NOT NULL,
  attempted_at      timestamptz NOT NULL,
  -- delivered | http_error | timeout | network_error | refused
  outcome           text NOT NULL,
  status_code       integer,
  latency_ms        integer NOT NULL,
  error             text,
  response_excerpt  text
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, id DESC);

CREATE TABLE budgets (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  name             text,
  scope            text NOT NULL CHECK (scope IN ('organization', 'end_user', 'each_end_user', 'agent', 'workflow', 'dimension')),
  user_id          text,
  agent_id         text,
  workflow_id      text,
  dimension_key    text,
  dimension_value  text,
  period           text NOT NULL CHECK (period IN ('daily', 'weekly', 'monthly')),
  amount           numeric(38, 12) NOT NULL CHECK (amount > 0),
  thresholds       integer[] NOT NULL,
  deleted_at       timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX budgets_org ON budgets (organization_id) WHERE deleted_at IS NULL;

-- Cost per organization × UTC day × key, kept by the processor from its own flushes, for the
-- organizations that have budgets. key_kind: organization (key_value ''), end_user (external id),
-- agent, workflow, dimension (key + U+001F + value).
CREATE TABLE alert_daily_spend (
  organization_id uuid NOT NULL,
  day             date NOT NULL,
  key_kind        text NOT NULL,
  key_value       text NOT NULL,
  cost            numeric(38, 12) NOT NULL,
  PRIMARY KEY (organization_id, key_kind, key_value, day)
);

-- Per Kafka partition: the offset below which every record has been counted in alert_daily_spend
-- (rows below it are skipped, so a re-consumed record is never counted twice).
CREATE TABLE alert_partition_marks (
  partition_id integer PRIMARY KEY,
  next_offset  bigint NOT NULL,
  -- next_offset before the last statement that moved it (that statement counts rows from here).
  prev_offset  bigint NOT NULL DEFAULT 0
);

-- Alerts that fire once: a budget threshold per period and subject, a missing rate card per model
-- per day, a credit level until credits are granted again. The unique key is the "once".
CREATE TABLE alert_firings (
  organization_id uuid NOT NULL,
  alert_key       text NOT NULL,
  event_id        text NOT NULL,
  fired_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, alert_key)
);

-- Per-organization alert settings (credits and margin); absent = defaults (credits.exhausted only).
CREATE TABLE alert_settings (
  organization_id        uuid PRIMARY KEY REFERENCES organizations (id),
  credits_low_balance    bigint CHECK (credits_low_balance > 0),
  margin_below_percent   numeric(7, 2),
  updated_at             timestamptz NOT NULL DEFAULT now()
);
