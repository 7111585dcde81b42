// One flush as ONE DuckLake commit (docs/decisions/0105; step 2 of docs/open-lake-plan.md, not yet
// wired in: flush.ts still writes the manifest lake): the staged batch's events, every rollup
// computed from them, and the partition's next offset moved by compare-and-set, in one
// transaction of the `lake` catalog (core/lake/lake-catalog.ts). Invariant: either all of it is
// visible or none; the offset moves only from the value this owner read, so a zombie owner (or a
// second flush of the same rows) commits nothing and learns it from OffsetMovedError or a
// DuckLake conflict. The batch is staged beforehand in a TEMP table (a DuckDB transaction writes
// one database), as flush.ts stages it (event-staging.ts, skipped rows deleted).
import type { DuckDBConnection } from '@duckdb/node-api';
import { coverageInsertSql } from '../../core/lake/dimension-coverage.js';
import type { DimensionSet } from '../../core/lake/dimension-rollups.js';
import { partitionOffsetsTable } from '../../core/lake/lake-tables.js';
import { DAILY_COSTS, rollupFromEventsSql, SESSION_SPANS } from '../../core/lake/rollups.js';
import { dimensionRollupSources } from './dimension-files.js';

export interface DuckLakeFlush {
  partition: number;
  /** The partition's next offset as this owner read it from the lake (the compare of the compare-and-set). */
  fromOffset: number;
  nextOffset: number;
  /** The TEMP table holding the rows to write, in the events schema; null when only the offset moves (all rows were duplicates). */
  staged: string | null;
  /** Whether any staged row has a session_id (an empty session_spans insert still costs a statement). */
  hasSessions: boolean;
  /** Per organization of the batch, the metadata dimensions rolled up (dimension-files.ts). */
  dimensions: ReadonlyMap<string, DimensionSet>;
}

export interface DuckLakeFlushPlan {
  /** INSERTs, in order: events, each rollup computed from the staged rows, the dimension coverage of those rollups. */
  inserts: string[];
  /** The compare-and-set; it must change exactly one row. */
  moveOffset: string;
}

/** The statements of one flush's commit (pure). */
export function planDuckLakeFlush(flush: DuckLakeFlush): DuckLakeFlushPlan {
  for (const [name, offset] of [
    ['fromOffset', flush.fromOffset],
    ['nextOffset', flush.nextOffset],
  ] as const) {
    if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`${name} is not an offset: ${offset}`);
  }
  if (flush.nextOffset < flush.fromOffset) throw new RangeError(`next offset ${flush.nextOffset} is behind ${flush.fromOffset}`);
  const inserts: string[] = [];
  const staged = flush.staged;
  if (staged !== null) {
    if (!/^[a-z_][a-z0-9_]*$/.test(staged)) throw new RangeError(`not a staging table name: ${staged}`);
    const sources: [string, string][] = [
      ['daily_costs', rollupFromEventsSql(DAILY_COSTS, staged)],
      ...(flush.hasSessions ? [['session_spans', rollupFromEventsSql(SESSION_SPANS, staged)] as [string, string]] : []),
      ...dimensionRollupSources(staged, flush.dimensions),
    ];
    inserts.push(`INSERT INTO lake.events BY NAME SELECT * FROM ${staged}`);
    for (const [table, select] of sources) inserts.push(rollupInsertSql(table, flush.partition, select));
    inserts.push(coverageInsertSql(flush.partition, staged, flush.dimensions));
  }
  const offsets = `lake.${partitionOffsetsTable(flush.partition).name}`;
  return {
    inserts,
    moveOffset: `UPDATE ${offsets} SET next_offset = ${flush.nextOffset} WHERE next_offset = ${flush.fromOffset}`,
  };
}

/** Rollup rows computed by `select` from one partition's events, stamped with that partition (lake-tables.ts). */
export function rollupInsertSql(table: string, partition: number, select: string): string {
  return `INSERT INTO lake.${table} BY NAME SELECT ${partition} AS kafka_partition, rollup.* FROM (${select}) rollup`;
}

/** The partition's offset was not where this owner read it: another owner flushed it. Stop owning the partition. */
export class OffsetMovedError extends Error {
  constructor(partition: number, fromOffset: number) {
    super(`partition ${partition}: the lake's next offset is no longer ${fromOffset} (another owner flushed it)`);
    this.name = 'OffsetMovedError';
  }
}

/**
 * DuckLake refused the commit because a concurrent transaction changed a table it writes (e.g. a
 * re-pricing deleted from events, or another owner moved the offset). Nothing was written; read
 * the offset again and retry, or stop owning the partition if it moved.
 */
export class DuckLakeConflictError extends Error {
  constructor(partition: number, cause: string) {
    super(`partition ${partition}: the flush's commit conflicted with a concurrent one: ${cause}`);
    this.name = 'DuckLakeConflictError';
  }
}

/** Runs the plan as one transaction; rolls back and rethrows on any failure. */
export async function commitDuckLakeFlush(conn: DuckDBConnection, flush: DuckLakeFlush): Promise<void> {
  const plan = planDuckLakeFlush(flush);
  await commitFenced(conn, flush.partition, flush.fromOffset, plan.inserts, plan.moveOffset);
}

/**
 * One transaction: `statements`, then `fence` (an UPDATE of the partition's offset from
 * `fromOffset`) which must change exactly one row, then COMMIT. Shared by the flush and re-pricing
 * (ducklake-rewrite.ts), so both are fenced the same way against another owner.
 */
export async function commitFenced(
  conn: DuckDBConnection,
  partition: number,
  fromOffset: number,
  statements: readonly string[],
  fence: string,
): Promise<void> {
  await conn.run('BEGIN TRANSACTION');
  try {
    for (const statement of statements) await conn.run(statement);
    const moved = await conn.run(fence);
    if (moved.rowsChanged !== 1) throw new OffsetMovedError(partition, fromOffset);
    await conn.run('COMMIT');
  } catch (e) {
    await conn.run('ROLLBACK').catch(() => undefined);
    if (e instanceof OffsetMovedError) throw e;
    const message = e instanceof Error ? e.message : String(e);
    if (/conflict/i.test(message)) throw new DuckLakeConflictError(partition, message.split('\n')[0]!);
    throw e;
  }
}

/** The partition's next offset in the lake (its table made by ensureLakeTables). */
export async function lakeNextOffset(conn: DuckDBConnection, partition: number): Promise<number> {
  const rows = (await conn.runAndReadAll(`SELECT next_offset FROM lake.${partitionOffsetsTable(partition).name}`)).getRowObjectsJson();
  if (rows.length !== 1) throw new Error(`partition ${partition} has ${rows.length} offset rows in the lake, not 1`);
  return Number(rows[0]!.next_offset);
}
