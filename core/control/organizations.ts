// Organizations (tenants). Creating one also opens its credit balance at zero and an active
// default subscription, so a new tenant can ingest as soon as it has credits.
import { NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { ControlDb, Queryable } from './db.js';

export interface Organization {
  id: string;
  name: string;
  /** Counts rate-card and unit-rate writes; compare to notice new prices. */
  ratesVersion: number;
  createdAt: Date;
}

export const DEFAULT_PLAN = 'default';

interface OrganizationRow {
  id: string;
  name: string;
  rates_version: string;
  created_at: Date;
}

const COLUMNS = 'id, name, rates_version, created_at';

function toOrganization(r: OrganizationRow): Organization {
  return { id: r.id, name: r.name, ratesVersion: Number(r.rates_version), createdAt: r.created_at };
}

export async function createOrganization(db: ControlDb, input: { name: string; plan?: string }): Promise<Organization> {
  return db.transaction(async (tx) => {
    const [row] = await tx.query<OrganizationRow>(`INSERT INTO organizations (name) VALUES ($1) RETURNING ${COLUMNS}`, [input.name]);
    const org = toOrganization(row!);
    await tx.query('INSERT INTO credit_balances (organization_id, balance) VALUES ($1, 0)', [org.id]);
    await tx.query(`INSERT INTO subscriptions (organization_id, status, plan) VALUES ($1, 'active', $2)`, [
      org.id,
      input.plan ?? DEFAULT_PLAN,
    ]);
    return org;
  });
}

export async function getOrganization(db: Queryable, organizationId: string): Promise<Organization | null> {
  if (!isUuid(organizationId)) return null;
  const [row] = await db.query<OrganizationRow>(`SELECT ${COLUMNS} FROM organizations WHERE id = $1`, [organizationId]);
  return row ? toOrganization(row) : null;
}

/** getOrganization, or NotFoundError('organization', id). */
export async function requireOrganization(db: Queryable, organizationId: string): Promise<Organization> {
  const org = await getOrganization(db, organizationId);
  if (!org) throw new NotFoundError('organization', organizationId);
  return org;
}

export async function listOrganizations(db: Queryable): Promise<Organization[]> {
  const rows = await db.query<OrganizationRow>(`SELECT ${COLUMNS} FROM organizations ORDER BY created_at, id`);
  return rows.map(toOrganization);
}
