// Reconciliation connections in the control plane: one per organization and provider, the admin
// key sealed (never in clear), and the outcome of the last poll. Organization id is the first filter.
import type { Queryable } from '../core/control/db.js';
import type { PolledProvider } from './provider-cost-apis.js';

export interface ConnectionRecord {
  organization_id: string;
  provider: PolledProvider;
  admin_key_sealed: string;
  key_hint: string;
  api_url: string;
  created_at: Date;
  last_polled_at: Date | null;
  last_error: string | null;
}

const COLUMNS = 'organization_id, provider, admin_key_sealed, key_hint, api_url, created_at, last_polled_at, last_error';

/** Creates or replaces the organization's connection to `provider` (a new key starts unpolled). */
export async function upsertConnection(
  db: Queryable,
  c: { organizationId: string; provider: PolledProvider; sealed: string; keyHint: string; apiUrl: string },
): Promise<ConnectionRecord> {
  const [row] = await db.query<ConnectionRecord>(
    `INSERT INTO reconciliation_connections (organization_id, provider, admin_key_sealed, key_hint, api_url)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (organization_id, provider) DO UPDATE
       SET admin_key_sealed = EXCLUDED.admin_key_sealed, key_hint = EXCLUDED.key_hint, api_url = EXCLUDED.api_url,
           created_at = now(), last_polled_at = NULL, last_error = NULL
     RETURNING ${COLUMNS}`,
    [c.organizationId, c.provider, c.sealed, c.keyHint, c.apiUrl],
  );
  return row!;
}

/** The organization's connections, or every organization's (null). */
export function listConnections(db: Queryable, organizationId: string | null): Promise<ConnectionRecord[]> {
  return db.query<ConnectionRecord>(
    `SELECT ${COLUMNS} FROM reconciliation_connections WHERE ($1::uuid IS NULL OR organization_id = $1) ORDER BY organization_id, provider`,
    [organizationId],
  );
}

export async function deleteConnection(db: Queryable, organizationId: string, provider: PolledProvider): Promise<ConnectionRecord | null> {
  const [row] = await db.query<ConnectionRecord>(
    `DELETE FROM reconciliation_connections WHERE organization_id = $1 AND provider = $2 RETURNING ${COLUMNS}`,
    [organizationId, provider],
  );
  return row ?? null;
}

/** Records a poll's outcome, unless the key was replaced meanwhile. */
export async function recordPoll(db: Queryable, c: ConnectionRecord, at: Date, error: string | null): Promise<void> {
  await db.query(
    `UPDATE reconciliation_connections SET last_polled_at = $4, last_error = $5
      WHERE organization_id = $1 AND provider = $2 AND admin_key_sealed = $3`,
    [c.organization_id, c.provider, c.admin_key_sealed, at, error],
  );
}
