// End users: the organization's own customers, created on the first event that names them.
// id = endUserIdFor(organization, external id), so every process computes the same id without
// asking the database; the insert is idempotent.
import { endUserIdFor, isUuid } from '../ids.js';
import type { Queryable } from './db.js';

export interface EndUser {
  /** Internal UUID (UUIDv5 of organization + external id). */
  id: string;
  organizationId: string;
  /** The `user_id` sent on events. */
  externalId: string;
  /** The revenue source's customer name when known; display falls back to externalId. */
  name: string | null;
  createdAt: Date;
}

interface EndUserRow {
  id: string;
  organization_id: string;
  external_id: string;
  name: string | null;
  created_at: Date;
}

/**
 * docs/design.md "End-user name", the one display rule: the revenue source's customer name when known,
 * else the external id (the `user_id` events carry), else the internal id for an end user known by
 * neither. Where the name comes from is the caller's: the end_users row (kept from the latest
 * named revenue record, see revenue/customer-names.ts) or the revenue records at hand.
 */
export function endUserName(user: { name?: string | null; externalId?: string | null } | undefined, id: string): string {
  return user?.name ?? user?.externalId ?? id;
}

const COLUMNS = 'id, organization_id, external_id, name, created_at';

function toEndUser(r: EndUserRow): EndUser {
  return { id: r.id, organizationId: r.organization_id, externalId: r.external_id, name: r.name, createdAt: r.created_at };
}

/**
 * Creates the end users not yet known (one statement for the whole batch; duplicates and known
 * ids are skipped). A new user takes its name from already-imported revenue records. Returns how
 * many were created.
 */
export async function upsertEndUsers(db: Queryable, organizationId: string, externalIds: string[]): Promise<number> {
  return (await createEndUsers(db, organizationId, externalIds)).length;
}

/** As upsertEndUsers, returning the external ids this call created. */
export async function createEndUsers(db: Queryable, organizationId: string, externalIds: string[]): Promise<string[]> {
  // Sorted, so concurrent batches insert in one order and cannot deadlock on each other's rows.
  const unique = [...new Set(externalIds)].sort();
  if (unique.length === 0) return [];
  const rows = await db.query<{ external_id: string }>(
    `INSERT INTO end_users (organization_id, id, external_id, name)
     SELECT $1, u.id, u.external_id,
            (SELECT r.customer_name FROM revenue_records r
              WHERE r.organization_id = $1 AND r.user_id = u.external_id AND r.customer_name IS NOT NULL
              ORDER BY r.period_end DESC LIMIT 1)
       FROM unnest($2::uuid[], $3::text[]) AS u(id, external_id)
     ON CONFLICT DO NOTHING
     RETURNING external_id`,
    [organizationId, unique.map((ext) => endUserIdFor(organizationId, ext)), unique],
  );
  return rows.map((r) => r.external_id);
}

/** Deletes end users (by external id) that no accepted event named after all (ingest's 503 path). */
export async function deleteEndUsers(db: Queryable, organizationId: string, externalIds: string[]): Promise<void> {
  if (externalIds.length === 0) return;
  await db.query(`DELETE FROM end_users WHERE organization_id = $1 AND external_id = ANY($2::text[])`, [
    organizationId,
    [...externalIds].sort(),
  ]);
}

export async function getEndUserByExternalId(db: Queryable, organizationId: string, externalId: string): Promise<EndUser | null> {
  if (!isUuid(organizationId)) return null;
  const [row] = await db.query<EndUserRow>(`SELECT ${COLUMNS} FROM end_users WHERE organization_id = $1 AND external_id = $2`, [
    organizationId,
    externalId,
  ]);
  return row ? toEndUser(row) : null;
}

export async function getEndUser(db: Queryable, organizationId: string, endUserId: string): Promise<EndUser | null> {
  if (!isUuid(organizationId) || !isUuid(endUserId)) return null;
  const [row] = await db.query<EndUserRow>(`SELECT ${COLUMNS} FROM end_users WHERE organization_id = $1 AND id = $2`, [
    organizationId,
    endUserId,
  ]);
  return row ? toEndUser(row) : null;
}

/** All end users of an organization (for joining names in analytics), ordered by external id. */
export async function listEndUsers(db: Queryable, organizationId: string): Promise<EndUser[]> {
  if (!isUuid(organizationId)) return [];
  const rows = await db.query<EndUserRow>(`SELECT ${COLUMNS} FROM end_users WHERE organization_id = $1 ORDER BY external_id`, [
    organizationId,
  ]);
  return rows.map(toEndUser);
}
