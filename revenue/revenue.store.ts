// Revenue: connections (one per source kind: a manual import, or a Stripe account) and the
// records they bring, upserted by (source, id). Amounts are exact decimal strings, may be
// negative (refunds). Importing records makes the `import` connection active.
import { NotFoundError } from '../core/errors.js';
import { isUuid } from '../core/ids.js';
import type { ControlDb, Queryable } from '../core/control/db.js';
import { FOREIGN_KEY_VIOLATION, sqlState } from '../core/control/sql-errors.js';
import { compareCodePoints } from '../core/compare.js';
import { latestNamedRecords } from './customer-names.js';

export type RevenueSource = 'import' | 'stripe';
export type RevenueConnectionStatus = 'active' | 'inactive';

export interface RevenueConnection {
  id: string;
  organizationId: string;
  kind: RevenueSource;
  status: RevenueConnectionStatus;
  /** Stripe: account id and the API key sealed with sealSecret; never a secret in clear. */
  config: Record<string, unknown>;
  lastSyncedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface RevenueRecordInput {
  id: string;
  /** The end user's external id; null = unattributed revenue. */
  userId: string | null;
  customerName?: string | null;
  externalCustomerId?: string | null;
  /** USD decimal string. */
  amount: string;
  currency?: string;
  periodStart: Date;
  periodEnd: Date;
}

export interface RevenueRecord {
  organizationId: string;
  source: RevenueSource;
  id: string;
  externalCustomerId: string | null;
  userId: string | null;
  customerName: string | null;
  amount: string;
  currency: string;
  periodStart: Date;
  periodEnd: Date;
  createdAt: Date;
  updatedAt: Date;
}

interface ConnectionRow {
  id: string;
  organization_id: string;
  kind: RevenueSource;
  status: RevenueConnectionStatus;
  config: Record<string, unknown>;
  last_synced_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const CONNECTION_COLUMNS = 'id, organization_id, kind, status, config, last_synced_at, created_at, updated_at';

function toConnection(r: ConnectionRow): RevenueConnection {
  return {
    id: r.id,
    organizationId: r.organization_id,
    kind: r.kind,
    status: r.status,
    config: r.config,
    lastSyncedAt: r.last_synced_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

interface RecordRow {
  organization_id: string;
  source: RevenueSource;
  id: string;
  external_customer_id: string | null;
  user_id: string | null;
  customer_name: string | null;
  amount: string;
  currency: string;
  period_start: Date;
  period_end: Date;
  created_at: Date;
  updated_at: Date;
}

const RECORD_COLUMNS = `organization_id, source, id, external_customer_id, user_id, customer_name, amount, currency,
  period_start, period_end, created_at, updated_at`;

function toRecord(r: RecordRow): RevenueRecord {
  return {
    organizationId: r.organization_id,
    source: r.source,
    id: r.id,
    externalCustomerId: r.external_customer_id,
    userId: r.user_id,
    customerName: r.customer_name,
    amount: r.amount,
    currency: r.currency,
    periodStart: r.period_start,
    periodEnd: r.period_end,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Creates or updates the organization's connection of that kind; `config` replaces the old one when given. */
export async function upsertRevenueConnection(
  db: Queryable,
  organizationId: string,
  kind: RevenueSource,
  input: { status: RevenueConnectionStatus; config?: Record<string, unknown> },
): Promise<RevenueConnection> {
  if (!isUuid(organizationId)) throw new NotFoundError('organization', organizationId);
  try {
    const [row] = await db.query<ConnectionRow>(
      `INSERT INTO revenue_connections (organization_id, kind, status, config)
       VALUES ($1, $2, $3, coalesce($4::jsonb, '{}'::jsonb))
       ON CONFLICT (organization_id, kind) DO UPDATE
         SET status = excluded.status,
             config = coalesce($4::jsonb, revenue_connections.config),
             updated_at = now()
       RETURNING ${CONNECTION_COLUMNS}`,
      [organizationId, kind, input.status, input.config === undefined ? null : JSON.stringify(input.config)],
    );
    return toConnection(row!);
  } catch (err) {
    if (sqlState(err) === FOREIGN_KEY_VIOLATION) throw new NotFoundError('organization', organizationId);
    throw err;
  }
}

export async function getRevenueConnection(db: Queryable, organizationId: string, kind: RevenueSource): Promise<RevenueConnection | null> {
  if (!isUuid(organizationId)) return null;
  const [row] = await db.query<ConnectionRow>(
    `SELECT ${CONNECTION_COLUMNS} FROM revenue_connections WHERE organization_id = $1 AND kind = $2`,
    [organizationId, kind],
  );
  return row ? toConnection(row) : null;
}

export async function listRevenueConnections(db: Queryable, organizationId: string): Promise<RevenueConnection[]> {
  if (!isUuid(organizationId)) return [];
  const rows = await db.query<ConnectionRow>(
    `SELECT ${CONNECTION_COLUMNS} FROM revenue_connections WHERE organization_id = $1 ORDER BY kind`,
    [organizationId],
  );
  return rows.map(toConnection);
}

/** False means margin answers carry the `revenue_not_connected` warning. */
export async function hasActiveRevenueConnection(db: Queryable, organizationId: string): Promise<boolean> {
  if (!isUuid(organizationId)) return false;
  const rows = await db.query(`SELECT 1 FROM revenue_connections WHERE organization_id = $1 AND status = 'active' LIMIT 1`, [
    organizationId,
  ]);
  return rows.length > 0;
}

async function markRevenueSynced(db: Queryable, organizationId: string, kind: RevenueSource, at: Date = new Date()): Promise<void> {
  await db.query(`UPDATE revenue_connections SET last_synced_at = $3, updated_at = now() WHERE organization_id = $1 AND kind = $2`, [
    organizationId,
    kind,
    at,
  ]);
}

/**
 * Inserts or replaces records by (source, id) in one statement; within one call the last record
 * with an id wins. Known end users named by a record take its customer name. Returns the count
 * of distinct records written.
 */
export async function upsertRevenueRecords(
  db: Queryable,
  organizationId: string,
  source: RevenueSource,
  records: RevenueRecordInput[],
): Promise<number> {
  const byId = new Map(records.map((r) => [r.id, r]));
  // Sorted, so concurrent writers lock rows in one order.
  const list = [...byId.values()].sort((a, b) => compareCodePoints(a.id, b.id));
  if (list.length === 0) return 0;
  if (!isUuid(organizationId)) throw new NotFoundError('organization', organizationId);
  const names = latestNamedRecords(list, (r) => r.userId);
  try {
    await db.query(
      `INSERT INTO revenue_records (organization_id, source, id, external_customer_id, user_id, customer_name,
                                    amount, currency, period_start, period_end)
       SELECT $1, $2, r.id, r.external_customer_id, r.user_id, r.customer_name, r.amount, r.currency,
              r.period_start, r.period_end
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::numeric[], $8::text[],
                     $9::timestamptz[], $10::timestamptz[])
              AS r(id, external_customer_id, user_id, customer_name, amount, currency, period_start, period_end)
       ON CONFLICT (organization_id, source, id) DO UPDATE
         SET external_customer_id = excluded.external_customer_id,
             user_id = excluded.user_id,
             customer_name = excluded.customer_name,
             amount = excluded.amount,
             currency = excluded.currency,
             period_start = excluded.period_start,
             period_end = excluded.period_end,
             updated_at = now()`,
      [
        organizationId,
        source,
        list.map((r) => r.id),
        list.map((r) => r.externalCustomerId ?? null),
        list.map((r) => r.userId),
        list.map((r) => r.customerName ?? null),
        list.map((r) => r.amount),
        list.map((r) => r.currency ?? 'USD'),
        list.map((r) => r.periodStart.toISOString()),
        list.map((r) => r.periodEnd.toISOString()),
      ],
    );
    if (names.size > 0) {
      await db.query(
        `UPDATE end_users u SET name = n.customer_name
           FROM unnest($2::text[], $3::text[]) AS n(user_id, customer_name)
          WHERE u.organization_id = $1 AND u.external_id = n.user_id AND u.name IS DISTINCT FROM n.customer_name`,
        [organizationId, [...names.keys()], [...names.values()].map((r) => r.customerName)],
      );
    }
  } catch (err) {
    if (sqlState(err) === FOREIGN_KEY_VIOLATION) throw new NotFoundError('organization', organizationId);
    throw err;
  }
  return list.length;
}

/** An import: upserts the records and marks the `import` connection active and synced, atomically. */
export async function importRevenueRecords(
  db: ControlDb,
  organizationId: string,
  records: RevenueRecordInput[],
): Promise<{ upserted: number; connection: RevenueConnection }> {
  return db.transaction(async (tx) => {
    const connection = await upsertRevenueConnection(tx, organizationId, 'import', { status: 'active' });
    const upserted = await upsertRevenueRecords(tx, organizationId, 'import', records);
    await markRevenueSynced(tx, organizationId, 'import');
    return { upserted, connection: (await getRevenueConnection(tx, organizationId, 'import')) ?? connection };
  });
}

/**
 * Records of all sources; with `overlapping`, only those whose billing period overlaps the
 * half-open window [start, end) (what accrual recognition needs). Ordered by period, then id.
 */
export async function listRevenueRecords(
  db: Queryable,
  organizationId: string,
  opts: { overlapping?: { start: Date; end: Date } } = {},
): Promise<RevenueRecord[]> {
  if (!isUuid(organizationId)) return [];
  const w = opts.overlapping;
  const rows = await db.query<RecordRow>(
    `SELECT ${RECORD_COLUMNS} FROM revenue_records
      WHERE organization_id = $1
        AND ($2::timestamptz IS NULL OR period_end > $2::timestamptz)
        AND ($3::timestamptz IS NULL OR period_start < $3::timestamptz)
      ORDER BY period_start, source, id`,
    [organizationId, w ? w.start : null, w ? w.end : null],
  );
  return rows.map(toRecord);
}

/**
 * A full sync from a source: its records become exactly `records` (the source's others, e.g. lines
 * of invoices voided since, are deleted) and the connection is marked synced, in one transaction.
 */
export async function replaceRevenueRecords(
  db: ControlDb,
  organizationId: string,
  source: RevenueSource,
  records: RevenueRecordInput[],
  at: Date = new Date(),
): Promise<{ upserted: number; deleted: number }> {
  if (!isUuid(organizationId)) throw new NotFoundError('organization', organizationId);
  return db.transaction(async (tx) => {
    const deleted = await tx.query<{ id: string }>(
      `DELETE FROM revenue_records WHERE organization_id = $1 AND source = $2 AND NOT (id = ANY($3::text[])) RETURNING id`,
      [organizationId, source, [...new Set(records.map((r) => r.id))]],
    );
    const upserted = await upsertRevenueRecords(tx, organizationId, source, records);
    await markRevenueSynced(tx, organizationId, source, at);
    return { upserted, deleted: deleted.length };
  });
}

/** Connections of one kind across organizations (the periodic sync's work list), oldest sync first. */
export async function listRevenueConnectionsOfKind(
  db: Queryable,
  kind: RevenueSource,
  status: RevenueConnectionStatus = 'active',
): Promise<RevenueConnection[]> {
  const rows = await db.query<ConnectionRow>(
    `SELECT ${CONNECTION_COLUMNS} FROM revenue_connections WHERE kind = $1 AND status = $2
      ORDER BY last_synced_at NULLS FIRST, organization_id`,
    [kind, status],
  );
  return rows.map(toConnection);
}

/** What margin reads of a revenue record (revenue/revenue-cache.ts); the amount as an exact decimal string. */
export interface RevenueRecordForMargin {
  source: RevenueSource;
  userId: string | null;
  customerName: string | null;
  amount: string;
  periodStart: Date;
  periodEnd: Date;
}

/**
 * The organization's records as margin reads them, in listRevenueRecords' order, and their
 * revenueRecordsVersion read in the same statement. One JSON document instead of a row each:
 * PGlite decodes rows field by field in JavaScript, 13,663 rows took 370–500 ms that way and
 * 30–45 ms as one json_agg (bench/results/api-cold.md). The amount travels as JSON text (exact),
 * the period bounds as epoch milliseconds (floored, as a Date would hold them).
 */
export async function listRevenueRecordsForMargin(
  db: Queryable,
  organizationId: string,
): Promise<{ version: string; records: RevenueRecordForMargin[] }> {
  if (!isUuid(organizationId)) return { version: 'none', records: [] };
  const [row] = await db.query<{ n: string; latest: string | null; records: string | null }>(
    `SELECT count(*)::text AS n, max(updated_at)::text AS latest,
            json_agg(json_build_array(source, user_id, customer_name, amount::text,
              floor(extract(epoch FROM period_start) * 1000)::int8, floor(extract(epoch FROM period_end) * 1000)::int8)
            ORDER BY period_start, source, id)::text AS records
       FROM revenue_records WHERE organization_id = $1`,
    [organizationId],
  );
  const tuples = JSON.parse(row?.records ?? '[]') as Array<[RevenueSource, string | null, string | null, string, number, number]>;
  return {
    version: versionToken(row),
    records: tuples.map(([source, userId, customerName, amount, start, end]) => ({
      source,
      userId,
      customerName,
      amount,
      periodStart: new Date(start),
      periodEnd: new Date(end),
    })),
  };
}

/** The version token of a count and latest update (revenueRecordsVersion). */
function versionToken(row: { n: string; latest: string | null } | undefined): string {
  return `${row?.n ?? '0'}@${row?.latest ?? ''}`;
}

/**
 * A token that changes whenever the organization's records change (inserts and deletes move the
 * count, every upsert moves the latest updated_at), so readers can cache the records.
 */
export async function revenueRecordsVersion(db: Queryable, organizationId: string): Promise<string> {
  if (!isUuid(organizationId)) return 'none';
  const [row] = await db.query<{ n: string; latest: string | null }>(
    `SELECT count(*)::text AS n, max(updated_at)::text AS latest FROM revenue_records WHERE organization_id = $1`,
    [organizationId],
  );
  return versionToken(row);
}
