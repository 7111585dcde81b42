// Dimension backfill on the open lake (the manifest lake's is dimension-backfill.ts): the
// (organization, day) groups of one partition whose coverage rows (core/lake/dimension-coverage.ts)
// do not all list every dimension the organization defines now — days written before the
// dimension was defined, or before coverage was recorded — get their dimension rollup rows and
// coverage recomputed from their events, one organization's days per commit, fenced on the
// partition's offset like a re-pricing; readers see the old rows of a day or the new ones.
// Events are not touched. A call does at most `maxGroups` days; the caller repeats.
import type { DuckDBConnection } from '@duckdb/node-api';
import { coversDimension, type DimensionSet } from '../../core/lake/dimension-rollups.js';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import { compareCodePoints } from '../../core/compare.js';
import type { DimensionBackfillResult } from './dimension-backfill.js';
import { dimensionSetsOf } from './dimension-files.js';
import { dimensionDaysStatements } from './ducklake-rewrite.js';
import type { LakeContext } from './partition-state.js';

/** A (partition, organization, day) as its coverage stands: the sets of its coverage rows, null for a day with none. */
interface CoverageDay {
  organizationId: string;
  date: string;
  sets: ReadonlyArray<DimensionSet | null>;
}

/** One commit's work: an organization's days and the set they are rolled up for. */
interface DuckLakeBackfillBatch {
  organizationId: string;
  dates: string[];
  set: DimensionSet;
}

/** Days not rolled up for every dimension of their organization's set, as batches of at most `maxGroups` days in all. Pure. */
export function planDuckLakeBackfill(
  days: readonly CoverageDay[],
  sets: ReadonlyMap<string, DimensionSet>,
  maxGroups: number,
): { batches: DuckLakeBackfillBatch[]; remaining: number } {
  const todo = days
    .filter((d) => {
      const set = sets.get(d.organizationId);
      const rows = d.sets.map((s) => s ?? undefined);
      return set !== undefined && Object.entries(set).some(([key, type]) => !coversDimension(rows, key, type));
    })
    .sort((a, b) => compareCodePoints(a.organizationId, b.organizationId) || compareCodePoints(a.date, b.date));
  const batches = new Map<string, DuckLakeBackfillBatch>();
  for (const d of todo.slice(0, maxGroups)) {
    const batch = batches.get(d.organizationId);
    if (batch) batch.dates.push(d.date);
    else batches.set(d.organizationId, { organizationId: d.organizationId, dates: [d.date], set: sets.get(d.organizationId)! });
  }
  return { batches: [...batches.values()], remaining: todo.length - Math.min(todo.length, maxGroups) };
}

/** The partition's days (from daily_costs: every event has a row there) of the organizations with a set, with their coverage. */
async function coverageDays(conn: DuckDBConnection, partition: number, organizations: readonly string[]): Promise<CoverageDay[]> {
  const orgs = organizations.map(sqlStringLiteral).join(', ');
  const reader = await conn.runAndReadAll(
    `SELECT d.organization_id, CAST(d.event_date AS VARCHAR) AS date, list(coalesce(c.dimensions, 'null')) AS sets
       FROM (SELECT DISTINCT organization_id, event_date FROM lake.daily_costs
              WHERE kafka_partition = ${partition} AND organization_id IN (${orgs})) d
       LEFT JOIN (SELECT organization_id, event_date, dimensions FROM lake.dimension_coverage
                   WHERE kafka_partition = ${partition} AND organization_id IN (${orgs})) c
         USING (organization_id, event_date)
      GROUP BY ALL`,
  );
  return reader.getRowObjectsJson().map((r) => ({
    organizationId: String(r.organization_id),
    date: String(r.date),
    // A day without coverage rows lists one 'null'.
    sets: (r.sets as string[]).map((s) => JSON.parse(s) as DimensionSet | null),
  }));
}

/**
 * One call of the partition's backfill; `commit` runs the statements as one transaction fenced on
 * the partition's offset (the writer's commitFenced, with its conflict retry).
 */
export async function backfillDuckLakeDimensions(
  conn: DuckDBConnection,
  ctx: Pick<LakeContext, 'dimensions'>,
  partition: number,
  commit: (statements: string[]) => Promise<void>,
  maxGroups = 30,
): Promise<DimensionBackfillResult> {
  const orgs = (
    await conn.runAndReadAll(`SELECT DISTINCT organization_id FROM lake.daily_costs WHERE kafka_partition = ${partition}`)
  ).getColumns()[0];
  const sets = await dimensionSetsOf(ctx, (orgs ?? []).map(String));
  if (sets.size === 0) return { groups: 0, remaining: 0 };
  const { batches, remaining } = planDuckLakeBackfill(await coverageDays(conn, partition, [...sets.keys()]), sets, maxGroups);
  let groups = 0;
  for (const b of batches) {
    await commit(dimensionDaysStatements(partition, b.organizationId, b.dates, b.set));
    groups += b.dates.length;
  }
  return { groups, remaining };
}
