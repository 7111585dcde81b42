-- Retention of OTLP structural spans (otlp/structural-span-retention.ts): rows received more
-- than OTLP_STRUCTURAL_SPANS_RETENTION_DAYS ago are deleted in small chunks. received_at follows
-- insertion order, so a BRIN index finds the old rows by reading only their block ranges, and
-- costs an insert next to nothing (a B-tree would add a second index write per span).
CREATE INDEX otlp_structural_spans_received_at ON otlp_structural_spans USING brin (received_at);
