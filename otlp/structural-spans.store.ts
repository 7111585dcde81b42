// The SQL of structural spans (migrations 009, 013): spans without model usage, kept in the control
// plane beside the ledger so the session tree can show them (timing, zero own cost) without
// touching the usage-event schema, the processor or the lake. Insert is idempotent per
// (organization, session, span id): one node of the session's tree; reads are by organization,
// then session.
import type { Queryable } from '../core/control/db.js';
import type { StructuralSpan } from './span-mapping.js';

/** Stores the spans (one statement); a span id already stored in its session is left as it is. */
export async function storeStructuralSpans(db: Queryable, organizationId: string, spans: readonly StructuralSpan[]): Promise<void> {
  if (spans.length === 0) return;
  // One JSON parameter read by json_to_recordset (parsed once per row), times as Unix
  // milliseconds (no ISO text built here and parsed by the control plane). Measured in PGlite,
  // 256 rows: 5.0 ms with ISO times and the trace id in the key, 4.2 ms like this; positional
  // arrays read with ->> (each one re-reading the row's JSON) were slower, 5.4 ms.
  const rows = spans.map((s) => ({
    session_id: s.sessionId,
    trace_id: s.traceId,
    span_id: s.spanId,
    parent_span_id: s.parentSpanId,
    span_name: s.name || null,
    span_kind: s.kind,
    agent_id: s.agentId,
    started_ms: s.startedAt.getTime(),
    ended_ms: s.endedAt.getTime(),
  }));
  await db.query(
    `INSERT INTO otlp_structural_spans
       (organization_id, session_id, trace_id, span_id, parent_span_id, span_name, span_kind, agent_id, started_at, ended_at)
     SELECT $1::uuid, r.session_id, r.trace_id, r.span_id, r.parent_span_id, r.span_name, r.span_kind, r.agent_id,
            to_timestamp(r.started_ms / 1000.0::float8), to_timestamp(r.ended_ms / 1000.0::float8)
       FROM json_to_recordset($2::json) AS r (session_id text, trace_id text, span_id text, parent_span_id text, span_name text,
                                              span_kind text, agent_id text, started_ms bigint, ended_ms bigint)
     ON CONFLICT (organization_id, session_id, span_id) DO NOTHING`,
    [organizationId, JSON.stringify(rows)],
  );
}

/**
 * Deletes at most `limit` spans received before `cutoff` (retention); returns how many. Bounded,
 * so one call holds the control plane briefly: the caller loops, other statements run between.
 */
export async function deleteStructuralSpansReceivedBefore(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const [row] = await db.query<{ deleted: number }>(
    `WITH gone AS (
       DELETE FROM otlp_structural_spans
        WHERE ctid = ANY (ARRAY(SELECT ctid FROM otlp_structural_spans WHERE received_at < $1 LIMIT $2))
          AND received_at < $1
       RETURNING 1)
     SELECT count(*)::int AS deleted FROM gone`,
    [cutoff, limit],
  );
  return row?.deleted ?? 0;
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

/** The session's structural spans (one row per span id), earliest first. */
export async function structuralSpansOfSession(db: Queryable, organizationId: string, sessionId: string): Promise<StoredStructuralSpan[]> {
  return db.query<StoredStructuralSpan>(
    `SELECT span_id, parent_span_id, span_name, span_kind, agent_id, started_at, ended_at
       FROM otlp_structural_spans
      WHERE organization_id = $1 AND session_id = $2
      ORDER BY started_at, span_id`,
    [organizationId, sessionId],
  );
}

/** The span ids of these sessions' structural spans (a sessions list page's, to count each span once). */
export async function structuralSpanIdsOfSessions(
  db: Queryable,
  organizationId: string,
  sessionIds: readonly string[],
): Promise<Array<{ session_id: string; span_id: string }>> {
  if (sessionIds.length === 0) return [];
  return db.query<{ session_id: string; span_id: string }>(
    `SELECT session_id, span_id FROM otlp_structural_spans WHERE organization_id = $1 AND session_id = ANY($2::text[])`,
    [organizationId, sessionIds],
  );
}

/** A session's structural spans in summary, for the sessions lists. */
export interface StructuralSessionSummary {
  session_id: string;
  /** Spans (one per span id, as the tree counts them). */
  span_count: number;
  /** Earliest span start and latest span end, in Unix milliseconds. */
  first_ms: number;
  last_ms: number;
}

/**
 * Per session of the organization (or only of `sessionIds`), its structural spans' count and
 * activity interval. Every session, whatever its dates: a session's interval is the union of its
 * events' and its structural spans', so the window is applied after merging with the lake.
 */
export async function structuralSessionSummaries(
  db: Queryable,
  organizationId: string,
  sessionIds?: readonly string[],
): Promise<StructuralSessionSummary[]> {
  const rows = await db.query<{ session_id: string; span_count: number; first_at: Date; last_at: Date }>(
    `SELECT session_id, count(*)::int AS span_count, min(started_at) AS first_at, max(ended_at) AS last_at
       FROM otlp_structural_spans
      WHERE organization_id = $1${sessionIds ? ' AND session_id = ANY($2::text[])' : ''}
      GROUP BY session_id`,
    sessionIds ? [organizationId, sessionIds] : [organizationId],
  );
  return rows.map((r) => ({
    session_id: r.session_id,
    span_count: r.span_count,
    first_ms: new Date(r.first_at).getTime(),
    last_ms: new Date(r.last_at).getTime(),
  }));
}
