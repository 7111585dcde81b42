-- Ingest groups: one row per reservation transaction holding every payload it reserved, one blob
-- (the records back to back), and its published state. A ledger row names its group and where its
-- record sits in the blob; its state is its group's. So the hot path writes one ledger row per
-- event and marks a whole group with one update (measured on PGlite: ~16 µs/event instead of ~37).

CREATE TABLE ingest_groups (
  id           bigserial PRIMARY KEY,
  created_at   timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz,
  -- The records of the group's rows back to back (bytes of rows discarded or moved may remain,
  -- unreferenced). Cleared once published.
  payloads     bytea,
  -- The group's rows as JSON [{"o": organization_id, "k": [idempotency_key, …]}, …]: the
  -- sweeper's way to them through the ledger's primary key, so the ledger needs no per-row index
  -- on its group. Text, not json: nothing reads it on the hot path. Cleared once published.
  members      text,
  CHECK (published_at IS NOT NULL OR (payloads IS NOT NULL AND members IS NOT NULL))
);
-- Avro does not compress; skip pglz's CPU and let substring() fetch only the chunks it needs.
ALTER TABLE ingest_groups ALTER COLUMN payloads SET STORAGE EXTERNAL;
ALTER TABLE ingest_groups ALTER COLUMN members SET STORAGE EXTERNAL;
-- The sweeper's scan: oldest unpublished groups first.
CREATE INDEX ingest_groups_unpublished ON ingest_groups (created_at) WHERE published_at IS NULL;

-- group_id NULL: a row published before this migration (no group, no payload kept).
ALTER TABLE ingest_ledger
  ADD COLUMN group_id       bigint,
  ADD COLUMN payload_offset integer,
  ADD COLUMN payload_length integer;

-- Rows still reserved keep being swept: each becomes the only member of a group of its own,
-- created when the row was, holding its payload.
UPDATE ingest_ledger
   SET group_id = nextval(pg_get_serial_sequence('ingest_groups', 'id')),
       payload_offset = 0,
       payload_length = length(payload)
 WHERE state = 'reserved';
INSERT INTO ingest_groups (id, created_at, payloads, members)
SELECT group_id, created_at, payload,
       json_build_array(json_build_object('o', organization_id, 'k', json_build_array(idempotency_key)))::text
  FROM ingest_ledger
 WHERE state = 'reserved';

-- State now lives in the group; the payload in its blob. Dropping `state` drops its CHECK.
DROP INDEX ingest_ledger_sweep;
ALTER TABLE ingest_ledger
  DROP COLUMN state,
  DROP COLUMN published_at,
  DROP COLUMN payload,
  ADD CONSTRAINT ingest_ledger_payload_place
    CHECK ((group_id IS NULL) = (payload_offset IS NULL) AND (group_id IS NULL) = (payload_length IS NULL)),
  ADD CONSTRAINT ingest_ledger_payload_range CHECK (payload_offset >= 0 AND payload_length >= 0);

-- A row's state, derived from its group (the one place that rule is written), and its record while
-- reserved (null once published, and while its group's row is not written yet).
CREATE VIEW ingest_ledger_states AS
SELECT l.organization_id, l.idempotency_key, l.event_id, l.flag_reason, l.created_at,
       l.group_id, l.payload_offset, l.payload_length,
       CASE WHEN l.group_id IS NOT NULL AND g.published_at IS NULL THEN 'reserved' ELSE 'published' END AS state,
       CASE WHEN g.published_at IS NULL THEN substring(g.payloads FROM l.payload_offset + 1 FOR l.payload_length) END AS payload
  FROM ingest_ledger l
  LEFT JOIN ingest_groups g ON g.id = l.group_id;
