// The SQL of the session endpoints, over the session_spans rollup (one row per organization ×
// day × session × span; span_id NULL holds untraced events). A session spans all time: the tree
// reads the organization's session_spans filtered by the session, the list every date; both merge
// a span's rows across days.
import type { LakeQuery } from '../lake/lake-query.js';

export interface SpanRow {
  /** NULL: the session's untraced events. */
  span_id: string | null;
  parent_span_id: string | null;
  span_name: string | null;
  span_kind: string | null;
  agent_id: string | null;
  own_cost: string;
  event_count: number;
  started_at: Date | null;
  ended_at: Date | null;
  first_event_at: Date;
}

/** One merged row per span of the session (plus the untraced row); empty for an unknown session. */
export function querySessionSpans(lake: LakeQuery, organizationId: string, sessionId: string): Promise<SpanRow[]> {
  return lake.rows<SpanRow>(
    { organizationId },
    `SELECT s.span_id,
            min(s.parent_span_id) AS parent_span_id, min(s.span_name) AS span_name, min(s.span_kind) AS span_kind,
            min(s.agent_id) AS agent_id,
            CAST(sum(s.own_cost) AS DECIMAL(38,12)) AS own_cost, CAST(sum(s.event_count) AS BIGINT) AS event_count,
            min(s.started_at) AS started_at, max(s.ended_at) AS ended_at, min(s.first_event_at) AS first_event_at
       FROM {{session_spans}} s
      WHERE s.organization_id = $org AND s.session_id = $session_id
      GROUP BY s.span_id`,
    { session_id: sessionId },
  );
}

export interface SessionRow {
  session_id: string;
  total_cost: string;
  event_count: number;
  span_count: number;
  untraced_event_count: number;
  first_event_at: Date;
  last_event_at: Date;
  /** Sessions matching, the same on every row. */
  total: number;
}

/**
 * Per session, how many of these (session, span id) pairs the lake also holds: spans both
 * structural and priced, which the tree counts once (sessions.service.ts).
 */
export async function lakeSpansAmong(
  lake: LakeQuery,
  organizationId: string,
  pairs: ReadonlyArray<{ session_id: string; span_id: string }>,
): Promise<Map<string, number>> {
  if (pairs.length === 0) return new Map();
  const rows = await lake.rows<{ session_id: string; n: number }>(
    { organizationId },
    `WITH pairs AS (SELECT unnest(from_json($pairs, '[{"session_id":"VARCHAR","span_id":"VARCHAR"}]'), recursive := true))
     SELECT s.session_id, CAST(count(DISTINCT s.span_id) AS BIGINT) AS n
       FROM {{session_spans}} s
       JOIN pairs p ON p.session_id = s.session_id AND p.span_id = s.span_id
      WHERE s.organization_id = $org
      GROUP BY s.session_id`,
    { pairs: JSON.stringify(pairs) },
  );
  return new Map(rows.map((r) => [r.session_id, r.n]));
}

/** A session's structural spans (otlp/structural-spans.store.ts), merged into its list row. */
export interface StructuralSessionPart {
  session_id: string;
  span_count: number;
  first_ms: number;
  last_ms: number;
}

/**
 * Sessions whose activity (first to last event) overlaps [from, to), most recent activity first
 * (then session id), with their whole-session totals; one page. `structural` adds the sessions'
 * OTLP spans without usage: their span count and their interval (start to end), zero cost and
 * events, so a session made only of them is listed too.
 */
export function querySessions(
  lake: LakeQuery,
  organizationId: string,
  window: { from: Date; to: Date },
  page: { limit: number; offset: number },
  structural: readonly StructuralSessionPart[],
  /** Only these sessions (an end user's; the rollup has no end-user column). */
  sessionIds?: readonly string[],
): Promise<SessionRow[]> {
  // Bound as one JSON text (the lake binds no list parameters).
  const only = sessionIds ? ` AND s.session_id IN (SELECT unnest(from_json($session_ids, '["VARCHAR"]')))` : '';
  return lake.rows<SessionRow>(
    { organizationId },
    `WITH lake AS (
       SELECT s.session_id,
              CAST(sum(s.own_cost) AS DECIMAL(38,12)) AS total_cost,
              CAST(sum(s.event_count) AS BIGINT) AS event_count,
              CAST(count(DISTINCT s.span_id) AS BIGINT) AS span_count,
              CAST(coalesce(sum(s.event_count) FILTER (WHERE s.span_id IS NULL), 0) AS BIGINT) AS untraced_event_count,
              min(s.first_event_at) AS first_event_at,
              max(s.last_event_at) AS last_event_at
         FROM {{session_spans}} s
        WHERE s.organization_id = $org${only}
        GROUP BY s.session_id),
     structural AS (
       SELECT t.session_id, t.span_count, epoch_ms(t.first_ms) AS first_at, epoch_ms(t.last_ms) AS last_at
         FROM (SELECT unnest(from_json($structural, '[{"session_id":"VARCHAR","span_count":"BIGINT","first_ms":"BIGINT","last_ms":"BIGINT"}]'), recursive := true)) t),
     sessions AS (
       SELECT coalesce(l.session_id, st.session_id) AS session_id,
              coalesce(l.total_cost, CAST(0 AS DECIMAL(38,12))) AS total_cost,
              coalesce(l.event_count, 0) AS event_count,
              CAST(coalesce(l.span_count, 0) + coalesce(st.span_count, 0) AS BIGINT) AS span_count,
              coalesce(l.untraced_event_count, 0) AS untraced_event_count,
              least(coalesce(l.first_event_at, st.first_at), coalesce(st.first_at, l.first_event_at)) AS first_event_at,
              greatest(coalesce(l.last_event_at, st.last_at), coalesce(st.last_at, l.last_event_at)) AS last_event_at
         FROM lake l FULL OUTER JOIN structural st ON st.session_id = l.session_id),
     listed AS (SELECT * FROM sessions WHERE last_event_at >= $from AND first_event_at < $to)
     -- The total by a join, not count(*) OVER (): DuckDB 1.5.5's parallel window finalizer fails
     -- now and then on it ("INTERNAL Error: Attempted to access index 0 within vector of size 0").
     SELECT l.*, t.total
       FROM listed l CROSS JOIN (SELECT CAST(count(*) AS BIGINT) AS total FROM listed) t
      ORDER BY l.last_event_at DESC, l.session_id
      LIMIT $limit OFFSET $offset`,
    {
      from: window.from,
      to: window.to,
      limit: page.limit,
      offset: page.offset,
      structural: JSON.stringify(structural),
      ...(sessionIds ? { session_ids: JSON.stringify(sessionIds) } : {}),
    },
  );
}
