-- An organization's own prices: token rate cards (USD per million tokens per class) and per-unit
-- rates for metric events. Rates are exact NUMERIC; the upper bound only rules out NaN/Infinity.

CREATE TABLE rate_cards (
  id                              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id                 uuid NOT NULL REFERENCES organizations (id),
  model_slug                      text NOT NULL CHECK (model_slug = lower(model_slug) AND length(model_slug) BETWEEN 1 AND 255),
  input_cost_per_million          numeric NOT NULL CHECK (input_cost_per_million >= 0 AND input_cost_per_million < 1e15),
  output_cost_per_million         numeric NOT NULL CHECK (output_cost_per_million >= 0 AND output_cost_per_million < 1e15),
  -- Null: this token class cannot be priced by this card.
  cache_creation_cost_per_million numeric CHECK (cache_creation_cost_per_million >= 0 AND cache_creation_cost_per_million < 1e15),
  cache_read_cost_per_million     numeric CHECK (cache_read_cost_per_million >= 0 AND cache_read_cost_per_million < 1e15),
  reasoning_cost_per_million      numeric CHECK (reasoning_cost_per_million >= 0 AND reasoning_cost_per_million < 1e15),
  effective_from                  timestamptz NOT NULL,
  created_at                      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, model_slug, effective_from)
);

CREATE TABLE unit_rates (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id),
  model           text CHECK (model = lower(model) AND length(model) BETWEEN 1 AND 255),
  provider        text CHECK (provider = lower(provider) AND length(provider) BETWEEN 1 AND 255),
  metric          text NOT NULL CHECK (metric = lower(metric) AND length(metric) BETWEEN 1 AND 255),
  -- Units are matched exactly as sent, never converted.
  unit            text NOT NULL CHECK (length(unit) BETWEEN 1 AND 255),
  cost_per_unit   numeric NOT NULL CHECK (cost_per_unit >= 0 AND cost_per_unit < 1e15),
  effective_from  timestamptz NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  CHECK ((model IS NULL) <> (provider IS NULL))
);
CREATE UNIQUE INDEX unit_rates_unique
  ON unit_rates (organization_id, coalesce(model, ''), coalesce(provider, ''), metric, unit, effective_from);
