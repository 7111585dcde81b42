// The durable outbox: an event row plus one delivery row per enabled endpoint of the organization
// that subscribes to its type, inserted by ONE statement, so a caller that runs it inside its own
// transaction (or as part of its own single statement) records the event exactly when its state
// change commits. The delivery worker (delivery-worker.ts) sends what is pending.
import crypto from 'node:crypto';
import type { Queryable } from '../../core/control/db.js';
import type { WebhookEventType } from './event-types.js';

/** 'evt_' + 24 random hex characters: the id receivers de-duplicate by. */
export function newEventId(): string {
  return `evt_${crypto.randomBytes(12).toString('hex')}`;
}

/**
 * SQL of the CTEs that insert the event (columns id, organization_id, type, data given by the
 * preceding CTE named `source`, which may hold zero rows) and its deliveries. Embedded by the
 * statements below, which decide in SQL whether the event happens.
 */
const OUTBOX_CTES = `
  ev AS (
    INSERT INTO webhook_events (id, organization_id, type, data)
    SELECT id, organization_id, type, data FROM source
    RETURNING id, organization_id, type
  ),
  fanout AS (
    INSERT INTO webhook_deliveries (endpoint_id, event_id, organization_id)
    SELECT w.id, ev.id, ev.organization_id
      FROM ev JOIN webhook_endpoints w
        ON w.organization_id = ev.organization_id AND w.deleted_at IS NULL AND w.enabled
       AND (ev.type = ANY (w.enabled_events) OR '*' = ANY (w.enabled_events))
    RETURNING event_id
  )`;

/**
 * Records the event only if `alertKey` has not fired for the organization yet (the "once" of an
 * alert: a threshold per period, a model per day, a credit level until the next grant), in one
 * statement. Returns the event id when it fired now, null when it had fired before.
 */
export async function fireOnce(
  q: Queryable,
  organizationId: string,
  alertKey: string,
  type: WebhookEventType,
  data: object,
): Promise<string | null> {
  const id = newEventId();
  const [row] = await q.query<{ fired: string }>(
    `WITH fired AS (
       INSERT INTO alert_firings (organization_id, alert_key, event_id) VALUES ($2, $5, $1)
       ON CONFLICT (organization_id, alert_key) DO NOTHING RETURNING event_id
     ),
     source AS (SELECT $1::text AS id, $2::uuid AS organization_id, $3::text AS type, $4::jsonb AS data FROM fired), ${OUTBOX_CTES}
     SELECT (SELECT count(*) FROM fired) AS fired`,
    [id, organizationId, type, JSON.stringify(data), alertKey],
  );
  return Number(row?.fired ?? 0) > 0 ? id : null;
}

/** Re-arms an alert (e.g. credits.low after a grant) so it may fire again. */
export async function rearm(q: Queryable, organizationId: string, alertKeys: string[]): Promise<void> {
  await q.query('DELETE FROM alert_firings WHERE organization_id = $1 AND alert_key = ANY ($2)', [organizationId, alertKeys]);
}

/**
 * The other side of fireOnce: when `downKey` has fired (the alert's condition held), forget it and
 * record a recovery event (e.g. end_user.profitable after end_user.unprofitable), in one
 * statement. Returns the event id, or null when the condition had not fired.
 */
export async function fireRecovery(
  q: Queryable,
  organizationId: string,
  downKey: string,
  type: WebhookEventType,
  data: object,
): Promise<string | null> {
  const id = newEventId();
  const [row] = await q.query<{ fired: string }>(
    `WITH gone AS (DELETE FROM alert_firings WHERE organization_id = $2 AND alert_key = $5 RETURNING alert_key),
     source AS (SELECT $1::text AS id, $2::uuid AS organization_id, $3::text AS type, $4::jsonb AS data FROM gone), ${OUTBOX_CTES}
     SELECT (SELECT count(*) FROM gone) AS fired`,
    [id, organizationId, type, JSON.stringify(data), downKey],
  );
  return Number(row?.fired ?? 0) > 0 ? id : null;
}
