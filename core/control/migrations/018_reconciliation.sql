-- Reconciliation (issue 26): the providers' own cost figures, one row per organization, provider,
-- UTC day, model and project (empty text when the report has none). A report replaces every row of
-- each (provider, day) it covers, so importing the same report twice counts it once. Amounts are
-- exact USD decimals. The tolerance a day may drift before it is flagged is a per-organization
-- setting (percent of the provider's cost).

CREATE TABLE reconciliation_provider_costs (
  organization_id uuid NOT NULL REFERENCES organizations (id),
  provider        text NOT NULL CHECK (length(provider) BETWEEN 1 AND 100),
  cost_date       date NOT NULL,
  model           text NOT NULL CHECK (length(model) BETWEEN 1 AND 255),
  project         text NOT NULL DEFAULT '' CHECK (length(project) <= 255),
  amount          numeric NOT NULL CHECK (amount > -1e18 AND amount < 1e18),
  source          text NOT NULL CHECK (source IN ('openai_costs', 'anthropic_cost_report', 'csv')),
  imported_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, provider, cost_date, model, project)
);

CREATE TABLE reconciliation_settings (
  organization_id   uuid PRIMARY KEY REFERENCES organizations (id),
  tolerance_percent numeric NOT NULL CHECK (tolerance_percent >= 0 AND tolerance_percent <= 1000),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
