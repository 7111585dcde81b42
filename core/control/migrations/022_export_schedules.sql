-- Scheduled exports (issue 26): an organization's daily or monthly export of its FOCUS cost, raw
-- events or daily cost rollups to its S3 bucket (the secret key sealed under the master key, as
-- Stripe keys are) or to a folder under DATA_DIR. One run per (schedule, period): the object key
-- is a function of organization, kind and period, so a re-run replaces the same object. Runs are
-- claimed with a lease; a run whose process died is taken again once its lease has passed.

CREATE TABLE export_schedules (
  id                uuid PRIMARY KEY,
  organization_id   uuid NOT NULL REFERENCES organizations (id),
  kind              text NOT NULL CHECK (kind IN ('focus', 'events', 'rollups')),
  frequency         text NOT NULL CHECK (frequency IN ('daily', 'monthly')),
  -- {type: 's3', bucket, prefix, region, endpoint, use_ssl, url_style, access_key_id} or {type: 'folder', path}
  destination       jsonb NOT NULL,
  secret_key_sealed text,
  created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX export_schedules_organization ON export_schedules (organization_id);

CREATE TABLE export_runs (
  id              uuid PRIMARY KEY,
  schedule_id     uuid NOT NULL REFERENCES export_schedules (id) ON DELETE CASCADE,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  period_start    date NOT NULL,
  period_end      date NOT NULL CHECK (period_end > period_start),
  object_key      text NOT NULL,
  status          text NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  lease_until     timestamptz,
  row_count       bigint,
  byte_count      bigint,
  last_error      text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  finished_at     timestamptz,
  UNIQUE (schedule_id, period_start)
);
CREATE INDEX export_runs_due ON export_runs (status, next_attempt_at);
CREATE INDEX export_runs_organization ON export_runs (organization_id, period_start DESC);
