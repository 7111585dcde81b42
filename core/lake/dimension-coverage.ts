// Which dimension rollup rows of the open lake (LAKE_FORMAT=ducklake) are complete: the table
// `dimension_coverage` holds, per write of a (partition, organization, day) — a flush, a
// re-pricing, a backfill — the dimension set (key → type, as JSON) its rollup rows were computed
// for, written in the same commit as those rows (the manifest lake's per-file `dimensions`).
// Invariant: (partition, organization, day) is rolled up for a key when it has coverage rows and
// every one lists the key with its type; a day is, when that holds in every partition with events
// of it (daily_costs names them: every event has a daily_costs row).
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
 * [`from`, `to`) (DATE literals) are left out when given.
 */
export function coveredDaysSql(key: string, type: DimensionType, days?: { from: string; to: string }): string {
  const within = days ? ` AND event_date >= ${days.from} AND event_date < ${days.to}` : '';
  return `SELECT event_date, bool_and(${listsSql('c.dimensions', key, type)}) AS covered
    FROM (SELECT DISTINCT kafka_partition, event_date FROM lake.daily_costs WHERE organization_id = $org${within}) d
    LEFT JOIN (SELECT kafka_partition, event_date, dimensions FROM lake.dimension_coverage WHERE organization_id = $org${within}) c
      USING (kafka_partition, event_date)
    GROUP BY event_date`;
}
