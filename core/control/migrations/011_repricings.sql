-- Re-pricing history (issue 15): an admin asks to re-price an organization's events over a range
-- with the cards in effect now; each processor re-prices the listed partitions it owns and
-- records each one here when its lake rewrite has committed. A partition re-priced twice (a
-- processor killed after the rewrite, before this record) gives the same costs again: pricing
-- is a pure function of the event and the cards, and a rewrite replaces costs, never adds.
CREATE TABLE repricings (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id),
  start_at        timestamptz NOT NULL,
  end_at          timestamptz NOT NULL CHECK (end_at > start_at),
  -- The organization's rates_version when asked: a processor re-prices only with rates at least this new.
  rates_version   bigint NOT NULL,
  -- Lake partitions holding the organization's events in the range when asked (JSON array of integers).
  partitions      jsonb NOT NULL,
  events_total    bigint NOT NULL,
  -- Events examined so far by partitions still running: {"<partition>": n}, for progress.
  in_flight       jsonb NOT NULL DEFAULT '{}'::jsonb,
  status          text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed')),
  created_at      timestamptz NOT NULL DEFAULT now(),
  completed_at    timestamptz
);
CREATE INDEX repricings_open ON repricings (status) WHERE status = 'running';
CREATE INDEX repricings_by_org ON repricings (organization_id, created_at);

CREATE TABLE repricing_partitions (
  repricing_id  uuid NOT NULL REFERENCES repricings (id),
  kafka_partition integer NOT NULL,
  rows_examined bigint NOT NULL,
  rows_changed  bigint NOT NULL,
  cost_before   numeric NOT NULL,
  cost_after    numeric NOT NULL,
  finished_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (repricing_id, kafka_partition)
);
