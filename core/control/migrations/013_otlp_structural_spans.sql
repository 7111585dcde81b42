-- OTLP structural spans (otlp/structural-spans.store.ts), two changes.
-- 1. A span is one node of its session's tree, named by its span id (the tree never showed two
--    rows of one span id), so the key is organization + session + span: the trace id leaves the
--    index every insert writes. Where two traces of a session stored the same span id, the
--    earliest-starting row stays, as the tree read them.
DELETE FROM otlp_structural_spans s
 USING otlp_structural_spans t
 WHERE s.organization_id = t.organization_id AND s.session_id = t.session_id AND s.span_id = t.span_id
   AND (s.started_at, s.trace_id) > (t.started_at, t.trace_id);
ALTER TABLE otlp_structural_spans DROP CONSTRAINT otlp_structural_spans_pkey;
ALTER TABLE otlp_structural_spans ADD PRIMARY KEY (organization_id, session_id, span_id);

-- 2. Retention (otlp/structural-span-retention.ts): rows received more than
--    OTLP_STRUCTURAL_SPANS_RETENTION_DAYS ago are deleted in small chunks. received_at follows
--    insertion order, so a BRIN index finds the old rows by reading only their block ranges, and
--    costs an insert next to nothing (a B-tree would add a second index write per span).
CREATE INDEX otlp_structural_spans_received_at ON otlp_structural_spans USING brin (received_at);
