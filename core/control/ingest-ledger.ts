// The idempotency ledger, one row per (organization, idempotency_key): ingest reserves rows (with
// the encoded Avro record) and spends credits in one transaction, publishes, then marks the rows
// published. A row left `reserved` still holds its payload, so the sweeper re-publishes it and a
// 202 is never lost. Writes take rows in key order, so concurrent batches cannot deadlock.
import type { Queryable } from './db.js';
import { refundCredits } from './credits.js';

export type LedgerState = 'reserved' | 'published';

export interface ReservationInput {
  idempotencyKey: string;
  /** eventIdFor(organization, idempotencyKey). */
  eventId: string;
  /** The encoded Avro record (Confluent framing), as it will be published. */
  payload: Uint8Array;
  flagReason: string | null;
}

/** One per input row, in input order. */
export interface Reservation {
  idempotencyKey: string;
  /** The ledger's event id: the existing row's when the key was already there. */
  eventId: string;
  /** True when this call inserted the row (it needs a credit and a publish). */
  isNew: boolean;
  state: LedgerState;
}

export interface LedgerKey {
  organizationId: string;
  idempotencyKey: string;
}

export interface StrandedReservation {
  organizationId: string;
  idempotencyKey: string;
  eventId: string;
  payload: Buffer;
  flagReason: string | null;
  createdAt: Date;
}

function toBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

function byKey(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Inserts ledger rows for keys not yet present (ON CONFLICT DO NOTHING) and reports, per input
 * row, whether it is new or which event id and state the existing row has. A key repeated within
 * `rows` is new once, then existing. A concurrent transaction inserting the same key makes this
 * one wait for it to finish, so exactly one of them sees the key as new.
 */
export async function reserveEvents(
  tx: Queryable,
  organizationId: string,
  rows: ReservationInput[],
): Promise<Reservation[]> {
  if (rows.length === 0) return [];
  const first = new Map<string, ReservationInput>();
  for (const r of rows) if (!first.has(r.idempotencyKey)) first.set(r.idempotencyKey, r);
  const unique = [...first.values()].sort((a, b) => byKey(a.idempotencyKey, b.idempotencyKey));

  // One jsonb parameter instead of parallel arrays: measured on PGlite, array serialization of
  // bytea costs more than the insert itself, while JSON + base64 decode in SQL is cheap.
  const inserted = await tx.query<{ idempotency_key: string }>(
    `INSERT INTO ingest_ledger (organization_id, idempotency_key, event_id, payload, flag_reason)
     SELECT $1, r.k, r.e, decode(r.p, 'base64'), r.f
       FROM jsonb_to_recordset($2::jsonb) AS r(k text, e uuid, p text, f text)
     ON CONFLICT (organization_id, idempotency_key) DO NOTHING
     RETURNING idempotency_key`,
    [
      organizationId,
      JSON.stringify(
        unique.map((r) => ({ k: r.idempotencyKey, e: r.eventId, p: toBuffer(r.payload).toString('base64'), f: r.flagReason })),
      ),
    ],
  );
  const isNew = new Set(inserted.map((r) => r.idempotency_key));

  const existing = new Map<string, { eventId: string; state: LedgerState }>();
  const others = unique.filter((r) => !isNew.has(r.idempotencyKey)).map((r) => r.idempotencyKey);
  if (others.length > 0) {
    // A separate statement: its snapshot includes rows committed while the INSERT waited.
    const found = await tx.query<{ idempotency_key: string; event_id: string; state: LedgerState }>(
      `SELECT idempotency_key, event_id, state FROM ingest_ledger
        WHERE organization_id = $1 AND idempotency_key = ANY($2::text[])`,
      [organizationId, others],
    );
    for (const f of found) existing.set(f.idempotency_key, { eventId: f.event_id, state: f.state });
  }

  const claimed = new Set<string>();
  return rows.map((r) => {
    const key = r.idempotencyKey;
    if (isNew.has(key)) {
      const firstTime = !claimed.has(key);
      claimed.add(key);
      return { idempotencyKey: key, eventId: first.get(key)!.eventId, isNew: firstTime, state: 'reserved' };
    }
    const e = existing.get(key);
    // Not inserted yet not found: the conflicting row was released between our two statements.
    // Vanishingly rare; throwing rolls the caller's transaction back and it can answer 503.
    if (!e) throw new Error('ledger row for an idempotency key vanished during reservation; retry');
    return { idempotencyKey: key, eventId: e.eventId, isNew: false, state: e.state };
  });
}

/** Current ledger state of some keys of one organization (absent keys are missing from the map). */
export async function getLedgerEntries(
  db: Queryable,
  organizationId: string,
  idempotencyKeys: string[],
): Promise<Map<string, { eventId: string; state: LedgerState }>> {
  if (idempotencyKeys.length === 0) return new Map();
  const rows = await db.query<{ idempotency_key: string; event_id: string; state: LedgerState }>(
    `SELECT idempotency_key, event_id, state FROM ingest_ledger
      WHERE organization_id = $1 AND idempotency_key = ANY($2::text[])`,
    [organizationId, idempotencyKeys],
  );
  return new Map(rows.map((r) => [r.idempotency_key, { eventId: r.event_id, state: r.state }]));
}

/** What an existing ledger row says, for answering a retry: its flag and, while `reserved`, its payload. */
export interface LedgerDetail {
  eventId: string;
  state: LedgerState;
  flagReason: string | null;
  /** The stored record while the row is `reserved` (so a retry can publish it); null once published. */
  payload: Buffer | null;
}

/** Details of some keys of one organization (absent keys are missing from the map). */
export async function getLedgerDetails(
  db: Queryable,
  organizationId: string,
  idempotencyKeys: string[],
): Promise<Map<string, LedgerDetail>> {
  if (idempotencyKeys.length === 0) return new Map();
  const rows = await db.query<{
    idempotency_key: string;
    event_id: string;
    state: LedgerState;
    flag_reason: string | null;
    payload: Uint8Array | null;
  }>(
    `SELECT idempotency_key, event_id, state, flag_reason, CASE WHEN state = 'reserved' THEN payload END AS payload
       FROM ingest_ledger
      WHERE organization_id = $1 AND idempotency_key = ANY($2::text[])`,
    [organizationId, idempotencyKeys],
  );
  return new Map(
    rows.map((r) => [
      r.idempotency_key,
      { eventId: r.event_id, state: r.state, flagReason: r.flag_reason, payload: r.payload ? toBuffer(r.payload) : null },
    ]),
  );
}

/**
 * Deletes rows this transaction reserved but could not pay for (the organization ran out of
 * credits part-way through a group): no credit was spent on them, so none is refunded.
 */
export async function discardReservations(tx: Queryable, organizationId: string, idempotencyKeys: string[]): Promise<number> {
  if (idempotencyKeys.length === 0) return 0;
  const deleted = await tx.query<{ idempotency_key: string }>(
    `DELETE FROM ingest_ledger
      WHERE organization_id = $1 AND idempotency_key = ANY($2::text[]) AND published_at IS NULL
      RETURNING idempotency_key`,
    [organizationId, [...new Set(idempotencyKeys)].sort(byKey)],
  );
  return deleted.length;
}

/** Marks rows published (any mix of organizations); returns how many changed state. */
export async function markPublished(db: Queryable, keys: LedgerKey[]): Promise<number> {
  // One statement per organization: "organization_id = $1 AND key = ANY($2)" uses the primary
  // key directly, where a join against unnest()ed pairs was measured several times slower.
  const byOrg = new Map<string, string[]>();
  for (const k of keys) {
    const list = byOrg.get(k.organizationId) ?? [];
    list.push(k.idempotencyKey);
    byOrg.set(k.organizationId, list);
  }
  let changed = 0;
  for (const organizationId of [...byOrg.keys()].sort(byKey)) {
    // `published_at IS NULL` is `state = 'reserved'` (the table's CHECK) but keeps the planner on
    // the primary key: PGlite has no autovacuum, so the sweep index fills with dead 'reserved'
    // entries that a bitmap scan on state would walk on every call. The payload is only needed
    // while reserved (the sweeper's copy); dropping it keeps the row and its rewrite small.
    const rows = await db.query<{ idempotency_key: string }>(
      `UPDATE ingest_ledger SET state = 'published', published_at = now(), payload = ''::bytea
        WHERE organization_id = $1 AND idempotency_key = ANY($2::text[]) AND published_at IS NULL
        RETURNING idempotency_key`,
      [organizationId, [...new Set(byOrg.get(organizationId))].sort(byKey)],
    );
    changed += rows.length;
  }
  return changed;
}

/**
 * Reserved rows created before `olderThan` (their publish failed or their process died), oldest
 * first, across all organizations: the sweeper's work list.
 */
export async function listStrandedReservations(
  db: Queryable,
  olderThan: Date,
  limit: number,
): Promise<StrandedReservation[]> {
  const rows = await db.query<{
    organization_id: string;
    idempotency_key: string;
    event_id: string;
    payload: Uint8Array;
    flag_reason: string | null;
    created_at: Date;
  }>(
    `SELECT organization_id, idempotency_key, event_id, payload, flag_reason, created_at
       FROM ingest_ledger
      WHERE state = 'reserved' AND created_at < $1
      ORDER BY created_at
      LIMIT $2`,
    [olderThan, limit],
  );
  return rows.map((r) => ({
    organizationId: r.organization_id,
    idempotencyKey: r.idempotency_key,
    eventId: r.event_id,
    payload: toBuffer(r.payload),
    flagReason: r.flag_reason,
    createdAt: r.created_at,
  }));
}

/**
 * Undoes reservations whose events were not queued (Kafka unavailable → 503): deletes the rows
 * still `reserved` and refunds one credit for each. Returns how many were released.
 */
export async function releaseReservations(tx: Queryable, organizationId: string, idempotencyKeys: string[]): Promise<number> {
  if (idempotencyKeys.length === 0) return 0;
  const deleted = await tx.query<{ idempotency_key: string }>(
    `DELETE FROM ingest_ledger
      WHERE organization_id = $1 AND idempotency_key = ANY($2::text[]) AND state = 'reserved'
      RETURNING idempotency_key`,
    [organizationId, [...new Set(idempotencyKeys)].sort(byKey)],
  );
  if (deleted.length > 0) await refundCredits(tx, organizationId, deleted.length);
  return deleted.length;
}
