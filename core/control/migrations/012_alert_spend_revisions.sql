-- Changes to counted budget spend after the count (alerts/evaluation/spend-revisions.ts): a lake
-- rewrite that re-prices events (pending → priced, or history re-priced) and a counted record the
-- lake refused and replaced by a stand-in. Each holds its per-(day, key) differences and is added
-- to alert_daily_spend exactly once: applied_at is set by the same statement that adds them.
-- A re-pricing's revision is written before its manifest swap and applied after it; lake_files
-- names the files that swap brings in, so after a crash in between the next owner of the
-- partition applies it exactly when its manifest lists one of them.
CREATE TABLE alert_spend_revisions (
  id              uuid PRIMARY KEY,
  partition_id    integer NOT NULL,
  organization_id uuid NOT NULL,
  -- Lake files of the rewrite (empty for a refused record's correction, applied as it is written).
  lake_files      text[] NOT NULL DEFAULT '{}',
  -- [{"day": "YYYY-MM-DD", "kind": key_kind, "value": key_value, "cost": "decimal, may be negative"}]
  deltas          jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  applied_at      timestamptz
);
CREATE INDEX alert_spend_revisions_unapplied ON alert_spend_revisions (partition_id) WHERE applied_at IS NULL;
