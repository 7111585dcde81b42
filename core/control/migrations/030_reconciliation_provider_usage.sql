-- Reconciliation usage (issue 26): the providers' own token counts (OpenAI's completions usage,
-- Anthropic's messages usage report), one row per organization, provider, UTC day, model and project,
-- workspace or key (empty text when the report has none). Classes are disjoint: input_tokens is the
-- input not read from cache (cache writes included), cached_input_tokens the cache reads. A report
-- replaces every row of each (provider, day) it covers, so importing it twice counts it once.

CREATE TABLE reconciliation_provider_usage (
  organization_id     uuid NOT NULL REFERENCES organizations (id),
  provider            text NOT NULL CHECK (length(provider) BETWEEN 1 AND 100),
  usage_date          date NOT NULL,
  model               text NOT NULL CHECK (length(model) BETWEEN 1 AND 255),
  project             text NOT NULL DEFAULT '' CHECK (length(project) <= 255),
  input_tokens        bigint NOT NULL CHECK (input_tokens >= 0),
  cached_input_tokens bigint NOT NULL CHECK (cached_input_tokens >= 0),
  output_tokens       bigint NOT NULL CHECK (output_tokens >= 0),
  source              text NOT NULL CHECK (source IN ('openai_usage_completions', 'anthropic_usage_report')),
  imported_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, provider, usage_date, model, project)
);
