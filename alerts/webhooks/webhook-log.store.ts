// Reads of the outbox for the admin API: an endpoint's attempt log and the organization's events
// with their delivery state per endpoint.
import type { Queryable } from '../../core/control/db.js';

export interface WebhookAttempt {
  id: string;
  eventId: string;
  attemptedAt: Date;
  outcome: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

export interface WebhookEventRecord {
  id: string;
  type: string;
  createdAt: Date;
  data: unknown;
  deliveries: Array<{ endpoint_id: string; status: string; attempts: number; next_attempt_at: string | null; delivered_at: string | null }>;
}

interface Page {
  limit: number;
  offset: number;
}

export async function listAttempts(
  db: Queryable,
  organizationId: string,
  endpointId: string,
  page: Page,
): Promise<{ attempts: WebhookAttempt[]; total: number }> {
  const rows = await db.query<{
    id: string;
    event_id: string;
    attempted_at: Date;
    outcome: string;
    status_code: number | null;
    latency_ms: number;
    error: string | null;
    response_excerpt: string | null;
    total: string;
  }>(
    `SELECT id, event_id, attempted_at, outcome, status_code, latency_ms, error, response_excerpt, count(*) OVER () AS total
       FROM webhook_attempts WHERE organization_id = $1 AND endpoint_id = $2
      ORDER BY id DESC LIMIT $3 OFFSET $4`,
    [organizationId, endpointId, page.limit, page.offset],
  );
  const total = rows[0]
    ? Number(rows[0].total)
    : await countOf(db, 'SELECT count(*) AS n FROM webhook_attempts WHERE organization_id = $1 AND endpoint_id = $2', [
        organizationId,
        endpointId,
      ]);
  return {
    total,
    attempts: rows.map((r) => ({
      id: String(r.id),
      eventId: r.event_id,
      attemptedAt: r.attempted_at,
      outcome: r.outcome,
      statusCode: r.status_code,
      latencyMs: r.latency_ms,
      error: r.error,
      responseExcerpt: r.response_excerpt,
    })),
  };
}

export async function listEvents(
  db: Queryable,
  organizationId: string,
  type: string | null,
  page: Page,
): Promise<{ events: WebhookEventRecord[]; total: number }> {
  const rows = await db.query<{
    id: string;
    type: string;
    created_at: Date;
    data: unknown;
    deliveries: WebhookEventRecord['deliveries'] | null;
    total: string;
  }>(
    `SELECT e.id, e.type, e.created_at, e.data, count(*) OVER () AS total,
            (SELECT json_agg(json_build_object('endpoint_id', d.endpoint_id, 'status', d.status, 'attempts', d.attempts,
                     'next_attempt_at', CASE WHEN d.status = 'pending' THEN d.next_attempt_at END, 'delivered_at', d.delivered_at) ORDER BY d.endpoint_id)
               FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries
       FROM webhook_events e
      WHERE e.organization_id = $1 AND ($2::text IS NULL OR e.type = $2)
      ORDER BY e.seq DESC LIMIT $3 OFFSET $4`,
    [organizationId, type, page.limit, page.offset],
  );
  const total = rows[0]
    ? Number(rows[0].total)
    : await countOf(db, 'SELECT count(*) AS n FROM webhook_events WHERE organization_id = $1 AND ($2::text IS NULL OR type = $2)', [
        organizationId,
        type,
      ]);
  return {
    total,
    events: rows.map((r) => ({ id: r.id, type: r.type, createdAt: r.created_at, data: r.data, deliveries: r.deliveries ?? [] })),
  };
}

async function countOf(db: Queryable, sql: string, params: unknown[]): Promise<number> {
  const [row] = await db.query<{ n: string }>(sql, params);
  return Number(row?.n ?? 0);
}
