// Re-pricing in the open lake (docs/decisions/0105; ducklake-writer.ts runs it): one organization's replaced events of one
// partition, and that partition's rollup rows of the days they fall on recomputed from the
// events, in ONE DuckLake commit fenced on the partition's offset (a zombie owner commits
// nothing). Invariant kept: for each (partition, organization, day) the rollup rows are exactly
// the rollup of that partition's events (dimension rollups for the organization's dimensions now).
// The replacement rows are staged beforehand in a TEMP table, keyed by event_id. The commit also
// records the id of the budget spend revision written for it (spend_revisions), so that the
// revision is applied exactly when the rewrite landed, whatever dies in between (0157).
import type { DuckDBConnection } from '@duckdb/node-api';
import { coverageInsertSql } from '../../core/lake/dimension-coverage.js';
import type { DimensionSet } from '../../core/lake/dimension-rollups.js';
import { partitionOffsetsTable } from '../../core/lake/lake-tables.js';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import { DAILY_COSTS, rollupFromEventsSql, SESSION_SPANS } from '../../core/lake/rollups.js';
import { dimensionRollupSources } from './dimension-files.js';
import { commitFenced, rollupInsertSql } from './ducklake-commit.js';

export interface DuckLakeRewrite {
  partition: number;
  /** The partition's next offset as this owner knows it; the commit is fenced on it. */
  offset: number;
  organizationId: string;
  /** TEMP table of replacement rows (events schema), each replacing the lake row with its event_id. */
  staged: string;
  /** UTC days (YYYY-MM-DD) of the replaced events: their rollup rows are recomputed. */
  dates: readonly string[];
  /** The organization's dimensions now. */
  dimensions: DimensionSet;
  /** The budget spend revision written for this rewrite (alerts/evaluation/spend-revisions.ts), recorded by the commit; none when no counted spend changes. */
  revisionId?: string | null;
}

/**
 * A partition's revision ids are kept this long in the lake: the control plane prunes revisions
 * after 7 days, so an older id can answer nothing (twice that, for clocks that disagree).
 */
const SPEND_REVISIONS_KEPT_DAYS = 14;

export interface DuckLakeRewritePlan {
  statements: string[];
  /** Touches the offset row without moving it: conflicts with another owner's commit, changes 0 rows if the offset moved. */
  fence: string;
}

/** One organization's days of one partition: the filter, and its events as they stand inside the transaction. */
function partitionDaysSql(partition: number, organizationId: string, dates: readonly string[]): { where: string; events: string } {
  if (dates.length === 0) throw new RangeError('a rewrite names at least one day');
  for (const d of dates) if (!/^\d{4}-\d{2}-\d{2}$/.test(d)) throw new RangeError(`not a date: ${d}`);
  const where = `kafka_partition = ${partition} AND organization_id = ${sqlStringLiteral(organizationId)} AND event_date IN (${dates.map((d) => `DATE '${d}'`).join(', ')})`;
  return { where, events: `(SELECT * FROM lake.events WHERE ${where})` };
}

/**
 * The dimension rollup rows and coverage of those days replaced by the rollup of their events for
 * `dimensions` (the organization's set now): the tail of a re-pricing, the whole of a backfill.
 */
export function dimensionDaysStatements(
  partition: number,
  organizationId: string,
  dates: readonly string[],
  dimensions: DimensionSet,
): string[] {
  const { where, events } = partitionDaysSql(partition, organizationId, dates);
  const sets = new Map([[organizationId, dimensions]]);
  return [
    ...(['dimension_costs', 'dimension_numbers', 'dimension_coverage'] as const).map((t) => `DELETE FROM lake.${t} WHERE ${where}`),
    ...dimensionRollupSources(events, sets).map(([table, select]) => rollupInsertSql(table, partition, select)),
    coverageInsertSql(partition, events, sets),
  ];
}

/** The statements of one re-pricing commit (pure). */
export function planDuckLakeRewrite(rewrite: DuckLakeRewrite): DuckLakeRewritePlan {
  const { partition, staged, organizationId, dates } = rewrite;
  if (!Number.isSafeInteger(rewrite.offset) || rewrite.offset < 0) throw new RangeError(`not an offset: ${rewrite.offset}`);
  if (!/^[a-z_][a-z0-9_]*$/.test(staged)) throw new RangeError(`not a staging table name: ${staged}`);
  const { where, events } = partitionDaysSql(partition, organizationId, dates);
  const group = `kafka_partition = ${partition} AND organization_id = ${sqlStringLiteral(organizationId)}`;
  const statements = [
    // Replacements of another partition or organization would be inserted without their originals deleted.
    `SELECT error('a replacement row is not of partition ${partition} and the organization rewritten') FROM ${staged} WHERE NOT (${group}) LIMIT 1`,
    `DELETE FROM lake.events WHERE ${group} AND event_id IN (SELECT event_id FROM ${staged})`,
    `INSERT INTO lake.events BY NAME SELECT * FROM ${staged}`,
    ...(['daily_costs', 'session_spans'] as const).map((t) => `DELETE FROM lake.${t} WHERE ${where}`),
    rollupInsertSql('daily_costs', partition, rollupFromEventsSql(DAILY_COSTS, events)),
    rollupInsertSql('session_spans', partition, rollupFromEventsSql(SESSION_SPANS, events)),
    ...dimensionDaysStatements(partition, organizationId, dates, rewrite.dimensions),
    ...(rewrite.revisionId ? spendRevisionStatements(partition, rewrite.revisionId) : []),
  ];
  return { statements, fence: fenceSql(partition, rewrite.offset) };
}

/** The revision's id recorded with the partition, and the partition's ids too old to matter dropped. */
function spendRevisionStatements(partition: number, revisionId: string): string[] {
  return [
    `DELETE FROM lake.spend_revisions WHERE kafka_partition = ${partition} AND committed_at < now()::TIMESTAMP - INTERVAL ${SPEND_REVISIONS_KEPT_DAYS} DAY`,
    `INSERT INTO lake.spend_revisions VALUES (${partition}, ${sqlStringLiteral(revisionId)}, now()::TIMESTAMP)`,
  ];
}

/** The spend revision ids the partition's re-pricing commits recorded (what its load checks unapplied revisions against). */
export async function lakeSpendRevisionIds(conn: DuckDBConnection, partition: number): Promise<string[]> {
  if (!Number.isSafeInteger(partition) || partition < 0) throw new RangeError(`not a Kafka partition: ${partition}`);
  const reader = await conn.runAndReadAll(`SELECT revision_id FROM lake.spend_revisions WHERE kafka_partition = ${partition}`);
  return reader.getRows().map((r) => r[0] as string);
}

/** Touches the partition's offset row without moving it (see DuckLakeRewritePlan.fence). */
export function fenceSql(partition: number, offset: number): string {
  return `UPDATE lake.${partitionOffsetsTable(partition).name} SET next_offset = ${offset} WHERE next_offset = ${offset}`;
}

/** Runs the plan as one transaction (OffsetMovedError / DuckLakeConflictError as a flush). */
export async function commitDuckLakeRewrite(conn: DuckDBConnection, rewrite: DuckLakeRewrite): Promise<void> {
  const plan = planDuckLakeRewrite(rewrite);
  await commitFenced(conn, rewrite.partition, rewrite.offset, plan.statements, plan.fence);
}
