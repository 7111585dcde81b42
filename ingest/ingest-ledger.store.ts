// The idempotency ledger, one row per (organization, idempotency_key), and its ingest groups: each
// reservation transaction writes one group row holding every record it reserved back to back (one
// blob), and one ledger row per key naming the group and where its record sits in the blob. A row's
// state is its group's: `reserved` until the group is marked published (one update per group),
// so a group left unpublished still holds its records and the sweeper re-publishes them: a 202 is
// never lost. Rows published before groups existed have no group. Writes take ledger rows in key
// order, organizations in order, so concurrent batches cannot deadlock.
import type { Queryable } from '../core/control/db.js';
import { refundCredits, spendAllOrNothing } from '../core/control/credits.js';
import { compareCodePoints } from '../core/compare.js';

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
  /** The stored row's flag (the input's when new). */
  flagReason: string | null;
  /**
   * While `reserved`: the record to publish (the input's when new; the stored one for a row found
   * reserved in another group, which this call moved into ours). Null once published.
   */
  payload: Buffer | null;
}

export interface LedgerKey {
  organizationId: string;
  idempotencyKey: string;
}

/**
 * The group a reservation transaction is writing: ledger rows reference its id as they are
 * inserted; writeIngestGroup stores the group row itself (blob and members) before commit.
 */
export interface IngestGroup {
  readonly id: string;
  /** The blob's records so far, in order; a row's payload_offset counts from the first byte. */
  readonly parts: Buffer[];
  /** Bytes in `parts`: where the next record goes. */
  size: number;
  /** Keys whose rows reference the group, per organization: the sweeper's way to them. */
  readonly members: Map<string, Set<string>>;
}

export interface StrandedGroup {
  id: string;
  createdAt: Date;
}

export interface StrandedReservation {
  groupId: string;
  organizationId: string;
  idempotencyKey: string;
  eventId: string;
  payload: Buffer;
  flagReason: string | null;
  /** When the group was reserved. */
  createdAt: Date;
}

function toBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

function addMembers(group: IngestGroup, organizationId: string, keys: Iterable<string>): void {
  let set = group.members.get(organizationId);
  if (!set) group.members.set(organizationId, (set = new Set()));
  for (const k of keys) set.add(k);
}

/** Appends a record to the group's blob; returns where it sits. */
function place(group: IngestGroup, payload: Buffer): { payload_offset: number; payload_length: number } {
  const at = { payload_offset: group.size, payload_length: payload.length };
  group.parts.push(payload);
  group.size += payload.length;
  return at;
}

/**
 * Group ids, taken from the sequence a block at a time: one statement per `blockSize` groups
 * instead of one per reservation transaction (a statement costs about 60 µs on PGlite whatever it
 * does, bench/ingest/ledger-statements.ts). Ids stay unique across processes (each block comes
 * from the one sequence); an unused rest of a block is a gap, as a rolled-back nextval already was.
 */
export class IngestGroupIds {
  private readonly free: string[] = [];
  constructor(private readonly blockSize = 64) {}

  async next(q: Queryable): Promise<string> {
    if (this.free.length === 0) {
      // One caller at a time (the group committer's reserve stage); the order ids go out in does
      // not matter (the sweeper goes by created_at).
      const rows = await q.query<{ id: string }>(
        `SELECT nextval('ingest_groups_id_seq')::text AS id FROM generate_series(1, $1::integer)`,
        [this.blockSize],
      );
      this.free.push(...rows.map((r) => r.id));
    }
    return this.free.shift()!;
  }
}

/**
 * Starts a group in a reservation transaction (takes its id, from `ids` when given, else one
 * nextval; the row is written by writeIngestGroup).
 */
export async function beginIngestGroup(tx: Queryable, ids?: IngestGroupIds): Promise<IngestGroup> {
  if (ids) return { id: await ids.next(tx), parts: [], size: 0, members: new Map() };
  const [row] = await tx.query<{ id: string }>(`SELECT nextval('ingest_groups_id_seq')::text AS id`);
  return { id: row!.id, parts: [], size: 0, members: new Map() };
}

/** What marking a group published sets: its blob and members are needed only while a sweep may re-send. */
const MARK_PUBLISHED = `SET published_at = now(), payloads = NULL, members = NULL`;

/**
 * Stores the group row: the blob as ONE base64 text parameter decoded in SQL (a bytea parameter
 * was measured much slower on PGlite) and its members. Written only when some row references it;
 * returns whether it was. `markPublished`: earlier groups (already acknowledged by Kafka) marked
 * published by the same statement, or by a statement of their own when this group is not
 * written, so a busy ingest pays no transaction of its own for the mark stage.
 */
export async function writeIngestGroup(tx: Queryable, group: IngestGroup, markPublished: string[] = []): Promise<boolean> {
  const members = [...group.members].filter(([, keys]) => keys.size > 0);
  const marks = [...new Set(markPublished)];
  if (members.length === 0) {
    if (marks.length > 0) await markGroupsPublished(tx, marks);
    return false;
  }
  const blob = Buffer.concat(group.parts, group.size).toString('base64');
  const json = JSON.stringify(members.map(([organizationId, keys]) => ({ organization_id: organizationId, idempotency_keys: [...keys] })));
  if (marks.length === 0) {
    await tx.query(`INSERT INTO ingest_groups (id, payloads, members) VALUES ($1::bigint, decode($2, 'base64'), $3)`, [
      group.id,
      blob,
      json,
    ]);
  } else {
    // A data-modifying WITH runs to completion whether or not the main statement reads it.
    await tx.query(
      `WITH marked AS (UPDATE ingest_groups ${MARK_PUBLISHED} WHERE id = ANY($4::bigint[]) AND published_at IS NULL)
       INSERT INTO ingest_groups (id, payloads, members) VALUES ($1::bigint, decode($2, 'base64'), $3)`,
      [group.id, blob, json, marks],
    );
  }
  return true;
}

/** A ledger row as the state view shows it (payload cut from its group's blob while reserved). */
const LEDGER_ROW = `idempotency_key, event_id, flag_reason, group_id::text AS group_id, payload_offset, payload_length, state, payload`;

interface ExistingRow {
  idempotency_key: string;
  event_id: string;
  flag_reason: string | null;
  group_id: string | null;
  payload_offset: number | null;
  payload_length: number | null;
  state: LedgerState;
  payload: Uint8Array | null;
}

/**
 * Inserts ledger rows for keys not yet present (ON CONFLICT DO NOTHING), their records placed in
 * the group's blob, and reports, per input row, whether it is new or which event id and state the
 * existing row has. A key found reserved in another group (another process's, or a dead one's) is
 * moved into this group with its record, so this group's publish and mark cover it and the other
 * group's sweep does not send it again. A key repeated within `rows` is new once, then existing.
 * A concurrent transaction inserting the same key makes this one wait for it to finish, so
 * exactly one of them sees the key as new.
 */
export async function reserveEvents(
  tx: Queryable,
  group: IngestGroup,
  organizationId: string,
  rows: ReservationInput[],
): Promise<Reservation[]> {
  return (await reserveAndSpend(tx, group, organizationId, rows, false)).reservations;
}

/**
 * What a reservation spent in its insert statement: null when it did not try (some key existed);
 * not ok when the balance did not cover every key (nothing spent; balance then 0, not read).
 */
export type InsertSpend = { ok: boolean; balance: number } | null;

/**
 * reserveEvents, and when `spend` and every distinct key is new (the common case), one credit per
 * key spent all or nothing (spendAllOrNothing) by the same statement: one statement fewer per
 * reservation. When some key existed nothing is spent here (`spend` null): the caller spends after
 * the existing rows were handled, so locks keep their order (ledger rows, then the balance).
 */
export async function reserveAndSpend(
  tx: Queryable,
  group: IngestGroup,
  organizationId: string,
  rows: ReservationInput[],
  spend: boolean,
): Promise<{ reservations: Reservation[]; spend: InsertSpend }> {
  if (rows.length === 0) return { reservations: [], spend: null };
  const first = new Map<string, ReservationInput>();
  for (const r of rows) if (!first.has(r.idempotencyKey)) first.set(r.idempotencyKey, r);
  const unique = [...first.values()].sort((a, b) => compareCodePoints(a.idempotencyKey, b.idempotencyKey));

  // Every record goes into the blob before the insert knows which keys are new; a key that turns
  // out to exist leaves its bytes unreferenced. json (not jsonb), no bytea in the rows and a count
  // instead of RETURNING the keys: measured on PGlite, that is what keeps the per-row insert cheap.
  const base = group.size;
  const insert = `inserted AS (
       INSERT INTO ingest_ledger (organization_id, idempotency_key, event_id, flag_reason, group_id, payload_offset, payload_length)
       SELECT $1, r.idempotency_key, r.event_id, r.flag_reason, $2::bigint, r.payload_offset, r.payload_length
         FROM json_to_recordset($3::json)
              AS r(idempotency_key text, event_id uuid, flag_reason text, payload_offset integer, payload_length integer)
       ON CONFLICT (organization_id, idempotency_key) DO NOTHING
       RETURNING 1
     ), counted AS (SELECT count(*)::integer AS n FROM inserted)`;
  const [inserted] = await tx.query<{ n: number; spent: boolean; balance: string | null }>(
    spend
      ? // Spends only when all $4 keys went in; a data-modifying WITH runs whether or not it is read.
        `WITH ${insert}, spent AS (${spendAllOrNothing('$1', 'counted.n', { from: 'counted', when: 'counted.n = $4::integer' })})
         SELECT counted.n, counted.n = $4::integer AS spent, (SELECT balance FROM spent) AS balance FROM counted`
      : `WITH ${insert} SELECT n, false AS spent, NULL AS balance FROM counted`,
    [
      organizationId,
      group.id,
      JSON.stringify(
        unique.map((r) => ({
          idempotency_key: r.idempotencyKey,
          event_id: r.eventId,
          flag_reason: r.flagReason,
          ...place(group, toBuffer(r.payload)),
        })),
      ),
      ...(spend ? [unique.length] : []),
    ],
  );
  let existing = new Map<string, Omit<Reservation, 'idempotencyKey' | 'isNew'>>();
  if (inserted!.n < unique.length) {
    // The keys this statement did not insert: rows of another group (or none), or of ours placed
    // before this call. A separate statement: its snapshot includes rows committed while the
    // INSERT waited.
    const found = await tx.query<ExistingRow>(
      `SELECT ${LEDGER_ROW}
         FROM ingest_ledger_states
        WHERE organization_id = $1 AND idempotency_key = ANY($2::text[])
          AND (group_id IS DISTINCT FROM $3::bigint OR payload_offset < $4)`,
      [organizationId, unique.map((r) => r.idempotencyKey), group.id, base],
    );
    // Not inserted yet not found: the conflicting row was released between our statements.
    // Vanishingly rare; throwing rolls the caller's transaction back and it can answer 503.
    if (inserted!.n + found.length < unique.length) {
      throw new Error('ledger row for an idempotency key vanished during reservation; retry');
    }
    existing = await adoptExisting(tx, group, organizationId, found);
  }
  const isNew = new Set(unique.map((r) => r.idempotencyKey).filter((k) => !existing.has(k)));
  addMembers(group, organizationId, isNew);

  const claimed = new Set<string>();
  const reservations = rows.map((r): Reservation => {
    const key = r.idempotencyKey;
    if (isNew.has(key)) {
      const firstTime = !claimed.has(key);
      claimed.add(key);
      const f = first.get(key)!;
      return {
        idempotencyKey: key,
        eventId: f.eventId,
        isNew: firstTime,
        state: 'reserved',
        flagReason: f.flagReason,
        payload: toBuffer(f.payload),
      };
    }
    const e = existing.get(key)!;
    return { idempotencyKey: key, isNew: false, ...e };
  });
  const spent: InsertSpend = inserted!.spent ? { ok: inserted!.balance !== null, balance: Number(inserted!.balance ?? 0) } : null;
  return { reservations, spend: spent };
}

/**
 * Existing rows: published ones as they are, reserved ones of another group moved into ours
 * (locked in key order first, then read again: the lock waits out a concurrent move or release,
 * and the fresh read sees its outcome).
 */
async function adoptExisting(
  tx: Queryable,
  group: IngestGroup,
  organizationId: string,
  rows: ExistingRow[],
): Promise<Map<string, Omit<Reservation, 'idempotencyKey' | 'isNew'>>> {
  const found = new Map(rows.map((f) => [f.idempotency_key, f]));
  const elsewhere = rows.filter((f) => f.state === 'reserved' && f.group_id !== group.id).map((f) => f.idempotency_key);
  if (elsewhere.length > 0) {
    const locked = await tx.query<{ idempotency_key: string }>(
      `SELECT idempotency_key FROM ingest_ledger
        WHERE organization_id = $1 AND idempotency_key = ANY($2::text[])
        ORDER BY idempotency_key FOR UPDATE`,
      [organizationId, elsewhere.sort(compareCodePoints)],
    );
    // Released meanwhile (deleted, credit refunded): see the vanished case in reserveEvents.
    if (locked.length < elsewhere.length) throw new Error('ledger row for an idempotency key vanished during reservation; retry');
    const again = await tx.query<ExistingRow>(
      `SELECT ${LEDGER_ROW}
         FROM ingest_ledger_states
        WHERE organization_id = $1 AND idempotency_key = ANY($2::text[])`,
      [organizationId, elsewhere],
    );
    for (const f of again) found.set(f.idempotency_key, f);
  }

  const out = new Map<string, Omit<Reservation, 'idempotencyKey' | 'isNew'>>();
  const moves: Array<{ idempotency_key: string; payload_offset: number; payload_length: number }> = [];
  let blob: Buffer | null = null; // this group's, while still being written
  for (const f of found.values()) {
    let payload: Buffer | null = null;
    if (f.state === 'reserved') {
      if (f.group_id === group.id) {
        blob ??= Buffer.concat(group.parts, group.size);
        payload = blob.subarray(f.payload_offset!, f.payload_offset! + f.payload_length!);
      } else {
        if (!f.payload) throw new Error(`ledger row ${f.idempotency_key} references ingest group ${f.group_id}, which is missing`);
        payload = toBuffer(f.payload);
        moves.push({ idempotency_key: f.idempotency_key, ...place(group, payload) });
      }
    }
    out.set(f.idempotency_key, { eventId: f.event_id, state: f.state, flagReason: f.flag_reason, payload });
  }
  if (moves.length > 0) {
    await tx.query(
      `UPDATE ingest_ledger l SET group_id = $2::bigint, payload_offset = m.payload_offset, payload_length = m.payload_length
         FROM json_to_recordset($3::json) AS m(idempotency_key text, payload_offset integer, payload_length integer)
        WHERE l.organization_id = $1 AND l.idempotency_key = m.idempotency_key`,
      [organizationId, group.id, JSON.stringify(moves)],
    );
    addMembers(
      group,
      organizationId,
      moves.map((m) => m.idempotency_key),
    );
  }
  return out;
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
    `SELECT idempotency_key, event_id, state, flag_reason, payload FROM ingest_ledger_states
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
 * credits part-way through a group): no credit was spent on them, so none is refunded. Their
 * bytes stay in the blob, unreferenced.
 */
export async function discardReservations(
  tx: Queryable,
  group: IngestGroup,
  organizationId: string,
  idempotencyKeys: string[],
): Promise<number> {
  if (idempotencyKeys.length === 0) return 0;
  const deleted = await tx.query<{ idempotency_key: string }>(
    `DELETE FROM ingest_ledger
      WHERE organization_id = $1 AND idempotency_key = ANY($2::text[]) AND group_id = $3::bigint
      RETURNING idempotency_key`,
    [organizationId, [...new Set(idempotencyKeys)].sort(compareCodePoints), group.id],
  );
  const members = group.members.get(organizationId);
  for (const d of deleted) members?.delete(d.idempotency_key);
  return deleted.length;
}

/**
 * Marks groups published, and with them every row they hold; drops their blobs and members
 * (needed only while a sweep may have to re-send). Returns how many groups changed state.
 */
export async function markGroupsPublished(db: Queryable, groupIds: string[]): Promise<number> {
  if (groupIds.length === 0) return 0;
  const rows = await db.query<{ id: string }>(
    `UPDATE ingest_groups ${MARK_PUBLISHED} WHERE id = ANY($1::bigint[]) AND published_at IS NULL RETURNING id`,
    [[...new Set(groupIds)]],
  );
  return rows.length;
}

/**
 * Unpublished groups created before `olderThan` (their publish failed or their process died),
 * oldest first, leaving out `skip` (groups this process still has in flight): the sweeper's work list.
 */
export async function listStrandedGroups(
  db: Queryable,
  olderThan: Date,
  limit: number,
  skip: Iterable<string> = [],
): Promise<StrandedGroup[]> {
  const rows = await db.query<{ id: string; created_at: Date }>(
    `SELECT id::text AS id, created_at FROM ingest_groups
      WHERE published_at IS NULL AND created_at < $1 AND id <> ALL($3::bigint[])
      ORDER BY created_at, id
      LIMIT $2`,
    [olderThan, limit, [...skip]],
  );
  return rows.map((r) => ({ id: r.id, createdAt: r.created_at }));
}

/**
 * The rows still referencing some unpublished groups, each with its record cut out of the blob
 * in SQL; in group order, then blob order. Rows moved to another group, released or discarded
 * are not listed.
 */
export async function listGroupRecords(db: Queryable, groupIds: string[]): Promise<StrandedReservation[]> {
  if (groupIds.length === 0) return [];
  const rows = await db.query<{
    group_id: string;
    created_at: Date;
    organization_id: string;
    idempotency_key: string;
    event_id: string;
    flag_reason: string | null;
    payload: Uint8Array;
  }>(
    `SELECT g.id::text AS group_id, g.created_at, l.organization_id, l.idempotency_key, l.event_id, l.flag_reason,
            substring(g.payloads FROM l.payload_offset + 1 FOR l.payload_length) AS payload
       FROM ingest_groups g
      CROSS JOIN LATERAL json_to_recordset(g.members::json) AS m(organization_id uuid, idempotency_keys json)
      CROSS JOIN LATERAL json_array_elements_text(m.idempotency_keys) AS mk(key)
       JOIN ingest_ledger l ON l.organization_id = m.organization_id AND l.idempotency_key = mk.key AND l.group_id = g.id
      WHERE g.id = ANY($1::bigint[]) AND g.published_at IS NULL
      ORDER BY g.created_at, g.id, l.payload_offset`,
    [groupIds],
  );
  return rows.map((r) => ({
    groupId: r.group_id,
    organizationId: r.organization_id,
    idempotencyKey: r.idempotency_key,
    eventId: r.event_id,
    payload: toBuffer(r.payload),
    flagReason: r.flag_reason,
    createdAt: r.created_at,
  }));
}

/**
 * Undoes a group's reservations whose events were not queued (Kafka unavailable → 503): deletes
 * the group's rows of these keys and refunds one credit for each, then the group row unless
 * `keepGroup` (rows moved in from another group stay reserved in it for the sweeper). Nothing is
 * released when the group was published meanwhile (a sweeper sent it). Lock order: the group row,
 * then per organization its rows in key order, then its balance, the order reservations take.
 */
export async function releaseReservations(
  tx: Queryable,
  groupId: string,
  keys: LedgerKey[],
  opts: { keepGroup?: boolean } = {},
): Promise<number> {
  const held = opts.keepGroup
    ? await tx.query(`SELECT id FROM ingest_groups WHERE id = $1::bigint AND published_at IS NULL FOR UPDATE`, [groupId])
    : await tx.query(`DELETE FROM ingest_groups WHERE id = $1::bigint AND published_at IS NULL RETURNING id`, [groupId]);
  if (held.length === 0) return 0;
  const byOrg = new Map<string, Set<string>>();
  for (const k of keys) {
    const set = byOrg.get(k.organizationId) ?? new Set<string>();
    set.add(k.idempotencyKey);
    byOrg.set(k.organizationId, set);
  }
  let released = 0;
  for (const organizationId of [...byOrg.keys()].sort(compareCodePoints)) {
    const deleted = await tx.query<{ idempotency_key: string }>(
      `WITH locked AS (
         SELECT idempotency_key FROM ingest_ledger
          WHERE organization_id = $1 AND idempotency_key = ANY($2::text[]) AND group_id = $3::bigint
          ORDER BY idempotency_key FOR UPDATE
       )
       DELETE FROM ingest_ledger l USING locked
        WHERE l.organization_id = $1 AND l.idempotency_key = locked.idempotency_key
        RETURNING l.idempotency_key`,
      [organizationId, [...byOrg.get(organizationId)!].sort(compareCodePoints), groupId],
    );
    if (deleted.length > 0) await refundCredits(tx, organizationId, deleted.length);
    released += deleted.length;
  }
  return released;
}
