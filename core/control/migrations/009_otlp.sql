-- Spans received over OTLP that report no model usage (agents, tools, retrieval, chains): the
-- session call tree shows them with their timing and zero own cost. They are not usage events
-- (no credit, no ledger row, not in the lake). One row per (organization, trace, span): a
-- re-sent export changes nothing. Owned by otlp/structural-spans.store.ts.
CREATE TABLE otlp_structural_spans (
  organization_id uuid NOT NULL,
  session_id      text NOT NULL,
  trace_id        text NOT NULL,
  span_id         text NOT NULL,
  parent_span_id  text,
  span_name       text,
  span_kind       text,
  agent_id        text,
  started_at      timestamptz NOT NULL,
  ended_at        timestamptz NOT NULL,
  received_at     timestamptz NOT NULL DEFAULT now(),
  -- A span's session follows from its own attributes and trace id, so (trace, span) identifies it
  -- within its session; one index serves both the idempotent insert and the tree's lookup. No
  -- foreign key (as the ingest ledger): each one is a check per inserted row on the hot path.
  PRIMARY KEY (organization_id, session_id, trace_id, span_id)
);

-- Per organization: which resource or span attribute of an OTLP span goes to which usage-event
-- metadata key (e.g. deployment.environment → env). Owned by otlp/attribute-mappings.store.ts.
CREATE TABLE otlp_attribute_mappings (
  organization_id uuid NOT NULL REFERENCES organizations (id),
  attribute       text NOT NULL,
  metadata_key    text NOT NULL,
  PRIMARY KEY (organization_id, attribute)
);
