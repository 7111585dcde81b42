// Webhook endpoints in the control plane. The signing secret is sealed under the master key
// (bound to the endpoint id) and returned in plain text only by create and rotate. A rotation keeps
// the previous secret signing alongside the new one until its expiry.
import { ConflictError, NotFoundError } from '../../core/errors.js';
import { isUuid } from '../../core/ids.js';
import type { Queryable } from '../../core/control/db.js';
import { sealSecret, unsealSecret } from '../../core/auth/secrets.js';
import { generateWebhookSecret } from './signature.js';

export interface WebhookEndpoint {
  id: string;
  organizationId: string;
  url: string;
  description: string | null;
  enabledEvents: string[];
  enabled: boolean;
  disabledReason: string | null;
  failingSince: Date | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

interface EndpointRow {
  id: string;
  organization_id: string;
  url: string;
  description: string | null;
  enabled_events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: Date | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'id, organization_id, url, description, enabled_events, enabled, disabled_reason, failing_since, previous_secret_expires_at, created_at, updated_at';

function toEndpoint(r: EndpointRow): WebhookEndpoint {
  return {
    id: r.id,
    organizationId: r.organization_id,
    url: r.url,
    description: r.description,
    enabledEvents: r.enabled_events,
    enabled: r.enabled,
    disabledReason: r.disabled_reason,
    failingSince: r.failing_since,
    previousSecretExpiresAt: r.previous_secret_expires_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

const secretContext = (endpointId: string) => `webhook-endpoint:${endpointId}`;

export async function createEndpoint(
  db: Queryable,
  masterKey: Buffer,
  organizationId: string,
  input: { url: string; enabledEvents: string[]; description: string | null },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const [{ id }] = (await db.query<{ id: string }>('SELECT gen_random_uuid()::text AS id')) as [{ id: string }];
  const secret = generateWebhookSecret();
  const [row] = await db.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (id, organization_id, url, description, enabled_events, secret_sealed)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [id, organizationId, input.url, input.description, input.enabledEvents, sealSecret(masterKey, secret, secretContext(id))],
  );
  return { endpoint: toEndpoint(row!), secret };
}

export async function listEndpoints(db: Queryable, organizationId: string): Promise<WebhookEndpoint[]> {
  const rows = await db.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE organization_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`,
    [organizationId],
  );
  return rows.map(toEndpoint);
}

export async function getEndpoint(db: Queryable, organizationId: string, endpointId: string): Promise<WebhookEndpoint> {
  if (!isUuid(endpointId)) throw new NotFoundError('webhook endpoint', endpointId);
  const [row] = await db.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL`,
    [organizationId, endpointId],
  );
  if (!row) throw new NotFoundError('webhook endpoint', endpointId);
  return toEndpoint(row);
}

export interface EndpointChanges {
  url?: string;
  description?: string | null;
  enabledEvents?: string[];
  /** true re-enables (clearing the reason and the failure run, and making pending deliveries due); false disables. */
  enabled?: boolean;
}

export async function updateEndpoint(
  db: Queryable,
  organizationId: string,
  endpointId: string,
  changes: EndpointChanges,
): Promise<WebhookEndpoint> {
  await getEndpoint(db, organizationId, endpointId);
  const [row] = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints SET
        url = coalesce($3, url),
        description = CASE WHEN $4 THEN $5 ELSE description END,
        enabled_events = coalesce($6, enabled_events),
        enabled = coalesce($7, enabled),
        disabled_reason = CASE WHEN $7 IS NULL THEN disabled_reason WHEN $7 THEN NULL ELSE 'disabled through the admin API' END,
        failing_since = CASE WHEN $7 THEN NULL ELSE failing_since END,
        updated_at = now()
      WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL
      RETURNING ${COLUMNS}`,
    [
      organizationId,
      endpointId,
      changes.url ?? null,
      changes.description !== undefined,
      changes.description ?? null,
      changes.enabledEvents ?? null,
      changes.enabled ?? null,
    ],
  );
  if (changes.enabled === true) {
    // Re-enabled: what waited is due now, and its retry window starts again.
    await db.query(
      `UPDATE webhook_deliveries SET next_attempt_at = clock_timestamp(), first_failed_at = NULL
        WHERE endpoint_id = $1 AND status = 'pending'`,
      [endpointId],
    );
  }
  return toEndpoint(row!);
}

/** New secret; the old one keeps signing (a second v1) for `graceSeconds`. Returns the new secret. */
export async function rotateEndpointSecret(
  db: Queryable,
  masterKey: Buffer,
  organizationId: string,
  endpointId: string,
  graceSeconds: number,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  await getEndpoint(db, organizationId, endpointId);
  const secret = generateWebhookSecret();
  const [row] = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints SET
        previous_secret_sealed = CASE WHEN $4 > 0 THEN secret_sealed END,
        previous_secret_expires_at = CASE WHEN $4 > 0 THEN now() + make_interval(secs => $4) END,
        secret_sealed = $3,
        updated_at = now()
      WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL
      RETURNING ${COLUMNS}`,
    [organizationId, endpointId, sealSecret(masterKey, secret, secretContext(endpointId)), graceSeconds],
  );
  return { endpoint: toEndpoint(row!), secret };
}

/** Deletes the endpoint; its undelivered events are dropped with it. */
export async function deleteEndpoint(db: Queryable, organizationId: string, endpointId: string): Promise<WebhookEndpoint> {
  const endpoint = await getEndpoint(db, organizationId, endpointId);
  await db.query(
    `WITH gone AS (UPDATE webhook_endpoints SET deleted_at = now(), enabled = false, updated_at = now()
                    WHERE organization_id = $1 AND id = $2 RETURNING id)
     UPDATE webhook_deliveries SET status = 'failed' WHERE endpoint_id IN (SELECT id FROM gone) AND status = 'pending'`,
    [organizationId, endpointId],
  );
  return { ...endpoint, enabled: false };
}

/** The secrets to sign with now: the current one first, then the previous one while it lasts. */
export function signingSecrets(
  masterKey: Buffer,
  row: { id: string; secret_sealed: string; previous_secret_sealed: string | null; previous_secret_expires_at: Date | null },
  now: Date,
): string[] {
  const secrets = [unsealSecret(masterKey, row.secret_sealed, secretContext(row.id))];
  if (row.previous_secret_sealed && row.previous_secret_expires_at && row.previous_secret_expires_at > now) {
    secrets.push(unsealSecret(masterKey, row.previous_secret_sealed, secretContext(row.id)));
  }
  return secrets;
}

/** Marks the delivery of `eventId` to the endpoint due now (created if the endpoint never had it). */
export async function resendEvent(db: Queryable, organizationId: string, endpointId: string, eventId: string): Promise<void> {
  const endpoint = await getEndpoint(db, organizationId, endpointId);
  if (!endpoint.enabled) throw new ConflictError('the webhook endpoint is disabled; enable it first');
  const [row] = await db.query<{ event_id: string }>(
    `INSERT INTO webhook_deliveries (endpoint_id, event_id, organization_id)
     SELECT $2, e.id, e.organization_id FROM webhook_events e WHERE e.organization_id = $1 AND e.id = $3
     ON CONFLICT (endpoint_id, event_id) DO UPDATE
       SET status = 'pending', next_attempt_at = clock_timestamp(), first_failed_at = NULL
     RETURNING event_id`,
    [organizationId, endpointId, eventId],
  );
  if (!row) throw new NotFoundError('webhook event', eventId);
}

/** Records a `webhook.test` event for this endpoint alone (one statement); returns its id. */
export async function sendTestEvent(db: Queryable, organizationId: string, endpointId: string, eventId: string): Promise<string> {
  const endpoint = await getEndpoint(db, organizationId, endpointId);
  await db.query(
    `WITH ev AS (
       INSERT INTO webhook_events (id, organization_id, type, data) VALUES ($1, $2, 'webhook.test', $4::jsonb) RETURNING id
     )
     INSERT INTO webhook_deliveries (endpoint_id, event_id, organization_id) SELECT $3, id, $2 FROM ev`,
    [eventId, organizationId, endpointId, JSON.stringify({ endpoint_id: endpoint.id, message: 'A test event sent through the admin API' })],
  );
  return eventId;
}
