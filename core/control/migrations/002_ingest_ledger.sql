-- The idempotency ledger: one row per (organization, idempotency key), holding the encoded Avro
-- record until Kafka has it. A `reserved` row whose publish never completed is re-sent by the sweeper.

-- No foreign key to organizations: rows are written only for the organization of an authenticated
-- API key (which has one), and the per-row key check was a quarter of the hot path's insert cost.
CREATE TABLE ingest_ledger (
  organization_id uuid NOT NULL,
  idempotency_key text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 255),
  event_id        uuid NOT NULL,
  state           text NOT NULL DEFAULT 'reserved' CHECK (state IN ('reserved', 'published')),
  payload         bytea NOT NULL,
  flag_reason     text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  published_at    timestamptz,
  PRIMARY KEY (organization_id, idempotency_key),
  CHECK ((state = 'published') = (published_at IS NOT NULL))
);
-- The sweeper's scan: oldest reserved rows first.
CREATE INDEX ingest_ledger_sweep ON ingest_ledger (state, created_at);
