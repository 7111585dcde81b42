// Changes to counted budget spend after the count, each added to alert_daily_spend exactly once
// (migration 012). The processor reaches the control plane without transactions (statements over
// a port in the all-in-one mode), so each step is one statement:
//  - a lake rewrite that re-prices events (pending → priced when a card appears, or a history
//    re-pricing) adds, per changed event, new − old under the event's UTC day and keys. The lake's
//    commit and the control plane cannot share a transaction, so a revision is written unapplied
//    before the commit and applied after it by one statement that also sets applied_at. A
//    processor that dies in between leaves it to the partition's next load, which applies it
//    exactly when the rewrite landed (applyLandedRevisions, the one rule for both lake formats):
//    the files lake's revision names the rewrite's new files and lands when the loaded manifest
//    lists one of them; on DuckLake the rewrite's commit itself records the revision's id (lake
//    table spend_revisions) and it lands when the loaded lake holds that id. A rewrite that never
//    committed leaves a revision no lake names; pruned after a week like every revision.
//  - a record counted before its lake write and then stored differently (the lake refused it and
//    a failed stand-in took its place, or it was priced again differently when consumed again):
//    a correction, the new version's keyed cost minus the counted one's, written and applied by
//    one statement, idempotent by its id.
import type { Queryable } from '../../core/control/db.js';
import { Big } from '../../core/money.js';

/** What a counted event contributes to: its organization, UTC day, cost and the keys budgets watch. */
export interface SpendKeys {
  organizationId: string;
  /** UTC date of the event, YYYY-MM-DD. */
  day: string;
  cost: string;
  endUser: string | null;
  agent: string | null;
  workflow: string | null;
  /** key + U+001F + value of each watched dimension the event carries. */
  dimensions: string[];
}

/** One difference of alert_daily_spend: a day and key of one organization (stored as JSON). */
export interface SpendDelta {
  day: string;
  kind: string;
  value: string;
  cost: string;
}

/** The alert_daily_spend keys an event counts under: the one rule for the tally and the revisions. */
export function spendKeysOf(row: SpendKeys): Array<{ kind: string; value: string }> {
  const keys = [{ kind: 'organization', value: '' }];
  if (row.endUser !== null) keys.push({ kind: 'end_user', value: row.endUser });
  if (row.agent !== null) keys.push({ kind: 'agent', value: row.agent });
  if (row.workflow !== null) keys.push({ kind: 'workflow', value: row.workflow });
  for (const d of row.dimensions) keys.push({ kind: 'dimension', value: d });
  return keys;
}

/** Whether two versions of an event count the same: same cost under the same day and keys. */
export function sameSpend(a: SpendKeys, b: SpendKeys): boolean {
  return (
    a.organizationId === b.organizationId &&
    a.day === b.day &&
    a.endUser === b.endUser &&
    a.agent === b.agent &&
    a.workflow === b.workflow &&
    a.dimensions.join('\n') === b.dimensions.join('\n') &&
    new Big(a.cost).eq(b.cost)
  );
}

/** Sums of differences per organization, day and key; zero sums are left out. */
export class SpendDeltas {
  private readonly sums = new Map<string, { organizationId: string; delta: Omit<SpendDelta, 'cost'>; cost: Big }>();

  /** `keepZero`: keys whose sum is zero stay (counting keeps a row for an event that cost nothing). */
  constructor(private readonly keepZero = false) {}

  /** Adds `amount` (default the row's own cost; negative to take it out) under every key of the row. */
  add(row: SpendKeys, amount: Big = new Big(row.cost)): void {
    if (amount.eq(0) && !this.keepZero) return;
    for (const { kind, value } of spendKeysOf(row)) {
      const id = `${row.organizationId}\n${row.day}\n${kind}\n${value}`;
      const known = this.sums.get(id);
      if (known) known.cost = known.cost.plus(amount);
      else this.sums.set(id, { organizationId: row.organizationId, delta: { day: row.day, kind, value }, cost: amount });
    }
  }

  /** The non-zero differences of each organization. */
  byOrganization(): Map<string, SpendDelta[]> {
    const out = new Map<string, SpendDelta[]>();
    for (const { organizationId, delta, cost } of this.sums.values()) {
      if (cost.eq(0) && !this.keepZero) continue;
      let list = out.get(organizationId);
      if (!list) out.set(organizationId, (list = []));
      list.push({ ...delta, cost: cost.toFixed() });
    }
    return out;
  }
}

/** Adds `select`'s (organization, day, kind, value, cost) rows to alert_daily_spend: the one way spend is added. */
export function addSpendSql(select: string): string {
  return `INSERT INTO alert_daily_spend AS s (organization_id, day, key_kind, key_value, cost)
    ${select}
    ON CONFLICT (organization_id, key_kind, key_value, day) DO UPDATE SET cost = s.cost + EXCLUDED.cost`;
}

/** Adds the revision's differences once; the CTE named `r` yields (organization_id, deltas) only when this statement is the one applying it. */
const ADD_DELTAS = `
  d AS (
    SELECT r.organization_id AS org, x.day, x.kind, x.value, sum(x.cost) AS cost
      FROM r CROSS JOIN LATERAL jsonb_to_recordset(r.deltas) AS x(day date, kind text, value text, cost numeric)
     GROUP BY 1, 2, 3, 4
  ),
  up AS (${addSpendSql('SELECT org, day, kind, value, cost FROM d')})
  SELECT count(*)::int AS applied FROM r`;

export interface SpendRevision {
  id: string;
  partition: number;
  organizationId: string;
  deltas: SpendDelta[];
}

/** Phase one of a rewrite's revision: written before the lake's commit, not applied (`lakeFiles`: the files lake's new files, none on DuckLake). */
export async function prepareRevision(db: Queryable, revision: SpendRevision, lakeFiles: readonly string[]): Promise<void> {
  await db.query(
    `INSERT INTO alert_spend_revisions (id, partition_id, organization_id, lake_files, deltas) VALUES ($1, $2, $3, $4::text[], $5::jsonb)`,
    [revision.id, revision.partition, revision.organizationId, lakeFiles, JSON.stringify(revision.deltas)],
  );
}

/** Phase two: adds a prepared revision's differences unless they were added already; true when this call added them. */
export async function applyRevision(db: Queryable, id: string): Promise<boolean> {
  const [row] = await db.query<{ applied: number }>(
    `WITH r AS (
       UPDATE alert_spend_revisions SET applied_at = now() WHERE id = $1 AND applied_at IS NULL RETURNING organization_id, deltas
     ), ${ADD_DELTAS}`,
    [id],
  );
  return Number(row?.applied ?? 0) > 0;
}

/** A correction, written and applied by one statement; a second call with the same id adds nothing. */
export async function applyCorrection(db: Queryable, revision: SpendRevision): Promise<boolean> {
  const [row] = await db.query<{ applied: number }>(
    `WITH r AS (
       INSERT INTO alert_spend_revisions (id, partition_id, organization_id, deltas, applied_at) VALUES ($1, $2, $3, $4::jsonb, now())
       ON CONFLICT (id) DO NOTHING RETURNING organization_id, deltas
     ), ${ADD_DELTAS}`,
    [revision.id, revision.partition, revision.organizationId, JSON.stringify(revision.deltas)],
  );
  return Number(row?.applied ?? 0) > 0;
}

/** A revision written and not applied: its rewrite landed, or it never will. */
interface UnappliedRevision {
  id: string;
  organizationId: string;
  lakeFiles: string[];
}

/** Revisions of the partition written but not applied, oldest first. */
async function unappliedRevisions(db: Queryable, partition: number): Promise<UnappliedRevision[]> {
  const rows = await db.query<{ id: string; organization_id: string; lake_files: string[] }>(
    `SELECT id, organization_id, lake_files FROM alert_spend_revisions WHERE partition_id = $1 AND applied_at IS NULL ORDER BY created_at`,
    [partition],
  );
  return rows.map((r) => ({ id: r.id, organizationId: r.organization_id, lakeFiles: r.lake_files }));
}

/** Whether a revision's rewrite landed in the lake as a partition's load found it; each lake format answers in its own terms. */
export type RewriteLanded = (revision: UnappliedRevision) => boolean;

/** The files lake: the loaded manifest lists one of the files the rewrite brought in. */
export function landedByFiles(lakeFiles: Iterable<string>): RewriteLanded {
  const listed = new Set(lakeFiles);
  return (revision) => revision.lakeFiles.some((f) => listed.has(f));
}

/** DuckLake: the loaded lake holds the revision's id, recorded by the rewrite's own commit. */
export function landedByRevisionIds(revisionIds: Iterable<string>): RewriteLanded {
  const held = new Set(revisionIds);
  return (revision) => held.has(revision.id);
}

/**
 * What a partition's load does with revisions left between a rewrite's commit and its apply: each
 * unapplied one whose rewrite `landed` is applied (once: applyRevision's applied_at), the others
 * wait (a rewrite still running elsewhere may land later) until pruned with the week-old ones.
 * Returns the organizations whose spend moved.
 */
export async function applyLandedRevisions(db: Queryable, partition: number, landed: RewriteLanded): Promise<Set<string>> {
  const moved = new Set<string>();
  for (const revision of await unappliedRevisions(db, partition)) {
    if (landed(revision) && (await applyRevision(db, revision.id))) moved.add(revision.organizationId);
  }
  await pruneRevisions(db, partition);
  return moved;
}

/** Forgets the partition's revisions older than a week: applied ones are done, unapplied ones never swapped. */
async function pruneRevisions(db: Queryable, partition: number): Promise<void> {
  await db.query(`DELETE FROM alert_spend_revisions WHERE partition_id = $1 AND created_at < now() - interval '7 days'`, [partition]);
}

/** The partition's count mark: every record below it has been counted (0 when none was). */
export async function countedBelow(db: Queryable, partition: number): Promise<number> {
  const [row] = await db.query<{ next_offset: string | number }>(`SELECT next_offset FROM alert_partition_marks WHERE partition_id = $1`, [
    partition,
  ]);
  return row ? Number(row.next_offset) : 0;
}
