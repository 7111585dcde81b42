// Which dimension rollup rows of the open lake (LAKE_FORMAT=ducklake) are complete: the table
// `dimension_coverage` holds, per write of a (partition, organization, day) — a flush, a
// re-pricing, a backfill — the dimension set (key → type, as JSON) its rollup rows were computed
// for, written in the same commit as those rows (the manifest lake's per-file `dimensions`).
// Invariant: (partition, organization, day) is rolled up for a key when it has coverage rows and
// every one lists the key with its type; a day is, when that holds in every partition with events
// of it (daily_costs names them: every event has a daily_costs row). Every write of an
// organization's day writes its coverage rows, so the api versions its cached days by them
// (api/lake/ducklake-days.ts): nothing may delete coverage rows of a day without inserting some.
import type { DuckDBConnection } from '@duckdb/node-api';
import { compareCodePoints } from '../compare.js';
import { jsonPointer, type DimensionSet, type DimensionType } from './dimension-rollups.js';
import { sqlStringLiteral } from './parquet-sql.js';

/** The set as stored: keys sorted, so equal sets are equal text. */
function coverageSetJson(set: DimensionSet): string {
  return JSON.stringify(Object.fromEntries(Object.entries(set).sort(([a], [b]) => compareCodePoints(a, b))));
}

/**
 * The coverage rows of a write: one per (organization, day) of `events` (a table name or
 * parenthesized query of one partition's rows), with the organization's set ({} without one).
 */
export function coverageInsertSql(partition: number, events: string, sets: ReadonlyMap<string, DimensionSet>): string {
  const rows = [...sets].map(([org, set]) => `(${sqlStringLiteral(org)}, ${sqlStringLiteral(coverageSetJson(set))})`);
  const set = rows.length > 0 ? `coalesce(s.dimensions, '{}')` : `'{}'`;
  const join = rows.length > 0 ? ` LEFT JOIN (VALUES ${rows.join(', ')}) AS s(organization_id, dimensions) USING (organization_id)` : '';
  return `INSERT INTO lake.dimension_coverage BY NAME
    SELECT ${partition} AS kafka_partition, g.organization_id, g.event_date, ${set} AS dimensions
      FROM (SELECT DISTINCT organization_id, event_date FROM ${events}) g${join}`;
}

/** Whether a coverage row's set (NULL: the partition's day has none) lists the key with its type. */
function listsSql(dimensions: string, key: string, type: DimensionType): string {
  return `coalesce(json_extract_string(${dimensions}, ${sqlStringLiteral(jsonPointer(key))}) = ${sqlStringLiteral(type)}, false)`;
}

/**
 * (event_date, covered) for every day with events of the organization ($org), covered when every
 * partition's day is rolled up for the dimension (the header's invariant). Days outside
 * [`from`, `to`) (DATE literals) are left out when given; read at DuckLake snapshot `snapshot` when given.
 */
export function coveredDaysSql(key: string, type: DimensionType, days?: { from: string; to: string }, snapshot?: number): string {
  const within = days ? ` AND event_date >= ${days.from} AND event_date < ${days.to}` : '';
  const at = snapshot === undefined ? '' : ` AT (VERSION => ${snapshot})`;
  return `SELECT event_date, bool_and(${listsSql('c.dimensions', key, type)}) AS covered
    FROM (SELECT DISTINCT kafka_partition, event_date FROM lake.daily_costs${at} WHERE organization_id = $org${within}) d
    LEFT JOIN (SELECT kafka_partition, event_date, dimensions FROM lake.dimension_coverage${at} WHERE organization_id = $org${within}) c
      USING (kafka_partition, event_date)
    GROUP BY event_date`;
}

/** The TEMP tables a coverage collapse stages (before its commit: a DuckDB transaction writes one database). */
const COLLAPSED_ROWS = 'coverage_collapsed_rowids';
const COLLAPSED_SETS = 'coverage_collapsed_sets';

/**
 * Folds, for each (partition, organization, day) before `before` (YYYY-MM-DD) with more than one
 * coverage row, those rows into one whose set is their intersection (each key with the type every
 * row gives it): the header's invariant reads every row's set ANDed, so it answers the same. Only
 * the rows staged are deleted (by rowid), so a row a flush adds meanwhile stays beside the folded
 * one; a re-pricing that deleted them meanwhile conflicts (nothing written) or leaves the folded
 * row beside its own, which can only say less is covered, never more. Returns the rows folded.
 */
export async function collapseCoverage(conn: DuckDBConnection, before: string): Promise<number> {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(before)) throw new RangeError(`not a date: ${before}`);
  const group = 'kafka_partition, organization_id, event_date';
  try {
    await conn.run(`CREATE OR REPLACE TEMP TABLE ${COLLAPSED_ROWS} AS
      SELECT rowid AS row_id, ${group}, dimensions, count(*) OVER (PARTITION BY ${group}) AS n
        FROM lake.dimension_coverage WHERE event_date < DATE '${before}'
      QUALIFY n > 1`);
    const rows = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${COLLAPSED_ROWS}`)).getRows()[0]![0] as bigint);
    if (rows === 0) return 0;
    await conn.run(`CREATE OR REPLACE TEMP TABLE ${COLLAPSED_SETS} AS
      WITH pairs AS (SELECT ${group}, n, e.key, e.value ->> '$' AS type FROM ${COLLAPSED_ROWS} r, json_each(r.dimensions) e),
           kept AS (SELECT ${group}, key, type FROM pairs GROUP BY ${group}, key, type, n HAVING count(*) = n)
      SELECT ${group}, '{' || coalesce(string_agg(CAST(to_json(key) AS VARCHAR) || ':' || CAST(to_json(type) AS VARCHAR), ',' ORDER BY key), '') || '}' AS dimensions
        FROM (SELECT DISTINCT ${group} FROM ${COLLAPSED_ROWS}) g LEFT JOIN kept USING (${group})
       GROUP BY ALL`);
    await conn.run('BEGIN TRANSACTION');
    try {
      await conn.run(`DELETE FROM lake.dimension_coverage WHERE rowid IN (SELECT row_id FROM ${COLLAPSED_ROWS})`);
      await conn.run(`INSERT INTO lake.dimension_coverage BY NAME SELECT * FROM ${COLLAPSED_SETS}`);
      await conn.run('COMMIT');
    } catch (e) {
      await conn.run('ROLLBACK').catch(() => undefined);
      throw e;
    }
    return rows;
  } finally {
    await conn.run(`DROP TABLE IF EXISTS ${COLLAPSED_ROWS}`).catch(() => undefined);
    await conn.run(`DROP TABLE IF EXISTS ${COLLAPSED_SETS}`).catch(() => undefined);
  }
}
