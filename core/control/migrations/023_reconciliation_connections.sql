-- Reconciliation connections (issue 26): an organization's admin key for OpenAI's or Anthropic's
-- cost API, sealed under the master key as Stripe keys are, so the api polls the provider's daily
-- costs itself instead of waiting for an upload. One connection per organization and provider;
-- api_url is the provider's API origin (its public one unless set, e.g. to a proxy).

CREATE TABLE reconciliation_connections (
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  provider         text NOT NULL CHECK (provider IN ('openai', 'anthropic')),
  admin_key_sealed text NOT NULL,
  key_hint         text NOT NULL,
  api_url          text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  last_polled_at   timestamptz,
  last_error       text,
  PRIMARY KEY (organization_id, provider)
);
