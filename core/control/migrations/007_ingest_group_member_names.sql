-- ingest_groups.members names its fields: [{"organization_id": …, "idempotency_keys": [key, …]}, …]
-- instead of 006's one-letter {"o": …, "k": […]}. Groups still unpublished (the only ones whose
-- members are kept, and read by the sweeper) are rewritten in place.
UPDATE ingest_groups
   SET members = (SELECT json_agg(json_build_object('organization_id', m -> 'o', 'idempotency_keys', m -> 'k'))
                    FROM json_array_elements(members::json) AS m)::text
 WHERE members IS NOT NULL AND members LIKE '%"o"%';
