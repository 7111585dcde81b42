// The SQL of structural spans (migration 013): spans without model usage, kept in the control
// plane beside the ledger so the session tree can show them (timing, zero own cost) without
// touching the usage-event schema, the processor or the lake. Insert is idempotent per
// (organization, trace, span); reads are by organization first, then session.
import type { Queryable } from '../core/control/db.js';
import type { StructuralSpan } from './span-mapping.js';

/** Stores the spans (one statement); a span already stored is left as it is. */
export async function storeStructuralSpans(db: Queryable, organizationId: string, spans: readonly StructuralSpan[]): Promise<void> {
  if (spans.length === 0) return;
  await db.query(
    `INSERT INTO otlp_structural_spans
       (organization_id, trace_id, span_id, session_id, parent_span_id, span_name, span_kind, agent_id, started_at, ended_at)
     SELECT $1::uuid, t.trace_id, t.span_id, t.session_id, t.parent_span_id, t.span_name, t.span_kind, t.agent_id, t.started_at, t.ended_at
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::timestamptz[])
            AS t (trace_id, span_id, session_id, parent_span_id, span_name, span_kind, agent_id, started_at, ended_at)
     ON CONFLICT (organization_id, trace_id, span_id) DO NOTHING`,
    [
      organizationId,
      spans.map((s) => s.traceId),
      spans.map((s) => s.spanId),
      spans.map((s) => s.sessionId),
      spans.map((s) => s.parentSpanId),
      spans.map((s) => s.name || null),
      spans.map((s) => s.kind),
      spans.map((s) => s.agentId),
      spans.map((s) => s.startedAt.toISOString()),
      spans.map((s) => s.endedAt.toISOString()),
    ],
  );
}

export interface StoredStructuralSpan {
  span_id: string;
  parent_span_id: string | null;
  span_name: string | null;
  span_kind: string | null;
  agent_id: string | null;
  started_at: Date;
  ended_at: Date;
}

/** The session's structural spans, earliest first (one row per span id: the earliest wins). */
export async function structuralSpansOfSession(db: Queryable, organizationId: string, sessionId: string): Promise<StoredStructuralSpan[]> {
  return db.query<StoredStructuralSpan>(
    `SELECT DISTINCT ON (span_id) span_id, parent_span_id, span_name, span_kind, agent_id, started_at, ended_at
       FROM otlp_structural_spans
      WHERE organization_id = $1 AND session_id = $2
      ORDER BY span_id, started_at, trace_id`,
    [organizationId, sessionId],
  );
}
