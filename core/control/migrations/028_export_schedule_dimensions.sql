-- Scheduled FOCUS exports split by chosen dimensions (issue 26), as GET /v1/exports/focus?dimensions=
-- does: the metadata keys, in the order given; empty for events and rollups, and for schedules made
-- before.

ALTER TABLE export_schedules ADD COLUMN dimensions jsonb NOT NULL DEFAULT '[]'::jsonb;
