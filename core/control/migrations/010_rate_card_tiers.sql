-- Rate cards priced as providers bill (issue 15): a service tier (standard, batch, flex,
-- priority…) that is part of a card's identity, a one-hour cache-write rate, and long-context
-- tiers by prompt size ([{above_prompt_tokens, <rate fields>}], rates as decimal strings).
ALTER TABLE rate_cards
  ADD COLUMN service_tier text NOT NULL DEFAULT 'standard'
    CHECK (service_tier = lower(service_tier) AND length(service_tier) BETWEEN 1 AND 64),
  ADD COLUMN cache_creation_1h_cost_per_million numeric
    CHECK (cache_creation_1h_cost_per_million >= 0 AND cache_creation_1h_cost_per_million < 1e15),
  ADD COLUMN tiers jsonb NOT NULL DEFAULT '[]'::jsonb;

ALTER TABLE rate_cards DROP CONSTRAINT rate_cards_organization_id_model_slug_effective_from_key;
ALTER TABLE rate_cards ADD CONSTRAINT rate_cards_identity UNIQUE (organization_id, model_slug, service_tier, effective_from);
