// Re-pricing in the open lake (docs/decisions/0105; step 2 of docs/open-lake-plan.md, not yet
// wired in: rewrite.ts still rewrites manifest files): one organization's replaced events of one
// partition, and that partition's rollup rows of the days they fall on recomputed from the
// events, in ONE DuckLake commit fenced on the partition's offset (a zombie owner commits
// nothing). Invariant kept: for each (partition, organization, day) the rollup rows are exactly
// the rollup of that partition's events (dimension rollups for the organization's dimensions now).
// The replacement rows are staged beforehand in a TEMP table, keyed by event_id.
import type { DuckDBConnection } from '@duckdb/node-api';
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
}

export interface DuckLakeRewritePlan {
  statements: string[];
  /** Touches the offset row without moving it: conflicts with another owner's commit, changes 0 rows if the offset moved. */
  fence: string;
}

const ROLLUP_TABLES = ['daily_costs', 'session_spans', 'dimension_costs', 'dimension_numbers'] as const;

/** The statements of one re-pricing commit (pure). */
export function planDuckLakeRewrite(rewrite: DuckLakeRewrite): DuckLakeRewritePlan {
  const { partition, staged } = rewrite;
  if (!Number.isSafeInteger(rewrite.offset) || rewrite.offset < 0) throw new RangeError(`not an offset: ${rewrite.offset}`);
  if (!/^[a-z_][a-z0-9_]*$/.test(staged)) throw new RangeError(`not a staging table name: ${staged}`);
  if (rewrite.dates.length === 0) throw new RangeError('a rewrite names at least one day');
  for (const d of rewrite.dates) if (!/^\d{4}-\d{2}-\d{2}$/.test(d)) throw new RangeError(`not a date: ${d}`);
  const offsets = `lake.${partitionOffsetsTable(partition).name}`;
  const group = `kafka_partition = ${partition} AND organization_id = ${sqlStringLiteral(rewrite.organizationId)}`;
  const days = `event_date IN (${rewrite.dates.map((d) => `DATE '${d}'`).join(', ')})`;
  // The partition's events of those days as they stand inside the transaction (replacements included).
  const events = `(SELECT * FROM lake.events WHERE ${group} AND ${days})`;
  const statements = [
    // Replacements of another partition or organization would be inserted without their originals deleted.
    `SELECT error('a replacement row is not of partition ${partition} and the organization rewritten') FROM ${staged} WHERE NOT (${group}) LIMIT 1`,
    `DELETE FROM lake.events WHERE ${group} AND event_id IN (SELECT event_id FROM ${staged})`,
    `INSERT INTO lake.events BY NAME SELECT * FROM ${staged}`,
    ...ROLLUP_TABLES.map((t) => `DELETE FROM lake.${t} WHERE ${group} AND ${days}`),
    rollupInsertSql('daily_costs', partition, rollupFromEventsSql(DAILY_COSTS, events)),
    rollupInsertSql('session_spans', partition, rollupFromEventsSql(SESSION_SPANS, events)),
    ...dimensionRollupSources(events, new Map([[rewrite.organizationId, rewrite.dimensions]])).map(([table, select]) =>
      rollupInsertSql(table, partition, select),
    ),
  ];
  return { statements, fence: `UPDATE ${offsets} SET next_offset = ${rewrite.offset} WHERE next_offset = ${rewrite.offset}` };
}

/** Runs the plan as one transaction (OffsetMovedError / DuckLakeConflictError as a flush). */
export async function commitDuckLakeRewrite(conn: DuckDBConnection, rewrite: DuckLakeRewrite): Promise<void> {
  const plan = planDuckLakeRewrite(rewrite);
  await commitFenced(conn, rewrite.partition, rewrite.offset, plan.statements, plan.fence);
}
