// /attribution-data/sessions: the sessions list and one session's call tree (404 when the
// organization has no event with that session id).
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { formatMoney } from '../../core/money.js';
import { parseDateRange } from '../../core/time.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { pageParams } from '../../core/http/paging.js';
import { buildSessionTree, type SpanInput } from './session-tree.js';
import { lakeSpansAmong, querySessions, querySessionSpans, type SessionRow } from './sessions.queries.js';
import { structuralSessionSummaries, structuralSpanIdsOfSessions, structuralSpansOfSession } from '../../otlp/structural-spans.store.js';
import type { SessionList, SessionSummary, SessionTree } from './sessions.types.js';

export async function sessionTree(rc: ReadContext, sessionId: string): Promise<SessionTree> {
  if (sessionId === '' || sessionId.length > 255) throw new ValidationError('sessionId', 'must be 1 to 255 characters');
  const [rows, structural] = await Promise.all([
    querySessionSpans(rc.lake, rc.organizationId, sessionId),
    // Spans received over OTLP without model usage (otlp/): timing and zero own cost.
    structuralSpansOfSession(rc.db, rc.organizationId, sessionId),
  ]);
  if (rows.length === 0 && structural.length === 0) throw new NotFoundError('session', sessionId);
  const untraced = rows.find((r) => r.span_id === null);
  const spans: SpanInput[] = rows
    .filter((r) => r.span_id !== null)
    .map((r) => ({
      spanId: r.span_id!,
      parentSpanId: r.parent_span_id,
      name: r.span_name,
      kind: r.span_kind,
      agentId: r.agent_id,
      ownCost: r.own_cost,
      eventCount: r.event_count,
      startedAt: r.started_at,
      endedAt: r.started_at === null ? null : r.ended_at,
      firstEventAt: r.first_event_at,
    }));
  const priced = new Set(spans.map((s) => s.spanId));
  for (const s of structural) {
    if (priced.has(s.span_id)) continue;
    spans.push({
      spanId: s.span_id,
      parentSpanId: s.parent_span_id,
      name: s.span_name,
      kind: s.span_kind,
      agentId: s.agent_id,
      ownCost: '0',
      eventCount: 0,
      startedAt: s.started_at,
      endedAt: s.ended_at,
      firstEventAt: s.ended_at,
    });
  }
  return buildSessionTree({
    sessionId,
    spans,
    untraced: { totalCost: untraced?.own_cost ?? '0', eventCount: untraced?.event_count ?? 0 },
  });
}

export async function sessionList(
  rc: ReadContext,
  q: { start_date: string; end_date: string; limit?: number; offset?: number },
): Promise<SessionList> {
  const range = parseDateRange(q.start_date, q.end_date);
  const page = pageParams(q.limit, q.offset);
  return listSessions(rc, { from: range.start, to: range.end }, page);
}

/**
 * One page of the sessions active in the window, events (lake) and structural spans (control
 * plane) merged; `sessionIds` narrows to those sessions (an end user's).
 */
export async function listSessions(
  rc: ReadContext,
  window: { from: Date; to: Date },
  page: { limit: number; offset: number },
  sessionIds?: readonly string[],
): Promise<SessionList> {
  const structural = await structuralSessionSummaries(rc.db, rc.organizationId, sessionIds);
  const query = (p: { limit: number; offset: number }) => querySessions(rc.lake, rc.organizationId, window, p, structural, sessionIds);
  const rows = await query(page);
  // A span id both structural and priced is one span of the tree: count it once on this page.
  const mixed = new Set(structural.map((s) => s.session_id));
  const both = rows.filter((r) => r.event_count > 0 && mixed.has(r.session_id)).map((r) => r.session_id);
  if (both.length > 0) {
    const overlap = await lakeSpansAmong(rc.lake, rc.organizationId, await structuralSpanIdsOfSessions(rc.db, rc.organizationId, both));
    for (const r of rows) r.span_count -= overlap.get(r.session_id) ?? 0;
  }
  return {
    sessions: rows.map(sessionSummary),
    // An offset past the end returns no row to carry the count; count again only then.
    total: rows[0]?.total ?? (page.offset > 0 ? ((await query({ limit: 1, offset: 0 }))[0]?.total ?? 0) : 0),
    limit: page.limit,
    offset: page.offset,
  };
}

function sessionSummary(r: SessionRow): SessionSummary {
  return {
    session_id: r.session_id,
    total_cost: formatMoney(r.total_cost),
    event_count: r.event_count,
    span_count: r.span_count,
    untraced_event_count: r.untraced_event_count,
    first_event_at: r.first_event_at.toISOString(),
    last_event_at: r.last_event_at.toISOString(),
  };
}
