// The SQL of cost groupings, shared by every cost endpoint: totals, groups by one key, and time
// buckets, over completed events only (the spec's status_counts.completed "counts toward
// totals"). Grouping keys are chosen from the fixed list below, never from request text; a
// metadata key travels as a bound JSON-pointer parameter. Organization is always the first filter.
// Typed keys read {{costs}} (the daily_costs rollup for whole days); a metadata key reads
// {{derived}}: the same measures per (day, [end user,] status, value), from the dimension rollup
// where it covers a day, else derived once per lake day from events (dimension-derivations.ts).
import type { DimensionDerivation, LakeQuery, LakeScope } from '../lake/lake-query.js';
import type { RowSelection } from '../lake/row-projection.js';
import { isTypedAttributionKey, metadataCostsDerivation, type MetadataCostsShape } from './dimension-derivations.js';
import type { Granularity } from '../../core/time.js';
import { truncUnit } from '../../core/time.js';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import { sqlTypeOf } from '../../core/lake/events-schema.js';
import { DAILY_COSTS } from '../../core/lake/rollups.js';
import { UNASSIGNED } from './cost-breakdown.js';

const UNASSIGNED_SQL = sqlStringLiteral(UNASSIGNED);

/** A grouping key: a SQL expression over the row `c` of {{costs}}, or of `derived` when given. */
export interface CostGroupKey {
  expr: string;
  derived?: DimensionDerivation;
}

/** Typed columns the daily_costs rollup keeps (so these groupings are answered from rollups). */
const ROLLUP_KEYS = ['end_user_id', 'model', 'provider', 'agent_id', 'workflow_id', 'feature'] as const;
export type RollupKey = (typeof ROLLUP_KEYS)[number];

export function columnKey(column: RollupKey): CostGroupKey {
  return { expr: `c.${column}` };
}

/**
 * A metadata key as a grouping value: the typed attribution keys read their event column, every
 * other key reads metadata. Non-string JSON values group by their JSON text; a missing key or
 * JSON null is NULL (→ Unassigned).
 */
export function dimensionKey(key: string, shape: MetadataCostsShape = { endUser: true }): CostGroupKey {
  if (isTypedAttributionKey(key)) return columnKey(key);
  return { expr: 'c.dim_value', derived: metadataCostsDerivation(key, shape) };
}

/** Extra conditions on the cost population. */
export interface CostFilter {
  /** Internal end-user id. */
  endUserId?: string;
  /** Only events whose value of `key` (NULL as 'Unassigned') equals `value`. */
  dimension?: { key: CostGroupKey; value: string };
}

function filterSql(filter: CostFilter): { sql: string; params: Record<string, string> } {
  let sql = '';
  const params: Record<string, string> = {};
  if (filter.endUserId !== undefined) {
    sql += ' AND c.end_user_id = $end_user_id';
    params.end_user_id = filter.endUserId;
  }
  if (filter.dimension) {
    sql += ` AND coalesce(${filter.dimension.key.expr}, ${UNASSIGNED_SQL}) = $dim_value`;
    params.dim_value = filter.dimension.value;
  }
  return { sql, params };
}

/** Where the query reads: {{derived}} when a metadata key is involved, else {{costs}}. */
function sourceOf(scope: LakeScope, group: CostGroupKey | null, filter: CostFilter): { scope: LakeScope; from: string } {
  const derived = group?.derived ?? filter.dimension?.key.derived;
  if (group?.derived && filter.dimension?.key.derived && group.derived.id !== filter.dimension.key.derived.id) {
    throw new Error('one metadata key per cost query');
  }
  // One end user's rows, or one value of the derivation's filter column: the read path may
  // answer from that selection's projection (api/lake/row-projection.ts).
  const only: RowSelection | undefined =
    filter.endUserId !== undefined
      ? { column: 'end_user_id', value: filter.endUserId }
      : filter.dimension?.key.expr === 'c.filter_value'
        ? { column: 'filter_value', value: filter.dimension.value, nullAs: UNASSIGNED }
        : undefined;
  const scoped = only === undefined ? scope : { ...scope, only };
  return derived ? { scope: { ...scoped, derived }, from: '{{derived}} c' } : { scope: scoped, from: '{{costs}} c' };
}

const WHERE = `c.organization_id = $org AND c.status = 'completed'`;

/**
 * `all`: every measure of the cost breakdown item; `tokens`: event_count, input and output tokens
 * and total_cost (the dimension breakdown's fields); `totals`: event_count and total_cost only,
 * for callers that need no token classes (margin). The other columns are NULL; fewer DECIMAL sums
 * are measurably cheaper on a warm query.
 */
export type CostMeasureSet = 'all' | 'tokens' | 'totals';

/** The sets each measure is in (any other daily_costs measure: `all` only). */
const MEASURE_SETS: Readonly<Record<string, readonly CostMeasureSet[]>> = {
  event_count: ['all', 'tokens', 'totals'],
  input_tokens: ['all', 'tokens'],
  output_tokens: ['all', 'tokens'],
  total_cost: ['all', 'tokens', 'totals'],
};

/** daily_costs measures no cost item reports. */
const NOT_REPORTED = new Set(['unit_cost']);

const MEASURES = DAILY_COSTS.measures
  .map((m) => m.column)
  .filter((c) => !NOT_REPORTED.has(c.name))
  .map((c) => ({ name: c.name, kind: c.kind, sets: MEASURE_SETS[c.name] ?? ['all'] }));

function measuresSql(set: CostMeasureSet = 'all'): string {
  return MEASURES.map(({ name, kind, sets }) =>
    // A money sum left out is a NULL string, as the rows carry money (LakeQuery's DECIMAL → string).
    sets.includes(set)
      ? `CAST(sum(c.${name}) AS ${sqlTypeOf(kind)}) AS ${name}`
      : `CAST(NULL AS ${kind === 'bigint' ? 'BIGINT' : 'VARCHAR'}) AS ${name}`,
  ).join(',\n    ');
}

/** Sums as DuckDB returns them: NULL when no row had a value (or no row at all). */
export interface CostGroupRow {
  event_count: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
  reasoning_tokens: number | null;
  input_cost: string | null;
  output_cost: string | null;
  cache_creation_cost: string | null;
  cache_read_cost: string | null;
  reasoning_cost: string | null;
  total_cost: string | null;
}

export interface KeyedCostGroupRow extends CostGroupRow {
  /** NULL for events without the key. */
  group_value: string | null;
  /** With the end_user_id grouping: the external id (user_id) of the group. */
  external_id?: string | null;
}

/** Cost totals of the scope's completed events. */
export async function queryCostTotals(lake: LakeQuery, scope: LakeScope, filter: CostFilter = {}): Promise<CostGroupRow> {
  const source = sourceOf(scope, null, filter);
  const f = filterSql(filter);
  const row = await lake.row<CostGroupRow>(source.scope, `SELECT ${measuresSql()} FROM ${source.from} WHERE ${WHERE}${f.sql}`, f.params);
  return row!;
}

/** One row per value of `group` (NULL for events without it). */
export async function queryCostGroups(
  lake: LakeQuery,
  scope: LakeScope,
  group: CostGroupKey,
  filter: CostFilter = {},
  measures: CostMeasureSet = 'all',
): Promise<KeyedCostGroupRow[]> {
  const source = sourceOf(scope, group, filter);
  const f = filterSql(filter);
  // The rollup keeps user_id beside end_user_id (one per end user), so names need no join.
  const externalId = group.expr === 'c.end_user_id' ? ', max(c.user_id) AS external_id' : '';
  return lake.rows<KeyedCostGroupRow>(
    source.scope,
    `SELECT ${group.expr} AS group_value${externalId}, ${measuresSql(measures)}
       FROM ${source.from} WHERE ${WHERE}${f.sql}
      GROUP BY 1`,
    f.params,
  );
}

export interface CostBucketRow {
  /** 'YYYY-MM-DD' of the bucket start (UTC). */
  bucket: string;
  group_value?: string | null;
  event_count: number;
  total_cost: string;
}

/** Cost and completed events per time bucket (and per value of `group` when given). */
export async function queryCostBuckets(
  lake: LakeQuery,
  scope: LakeScope,
  granularity: Granularity,
  group: CostGroupKey | null,
  filter: CostFilter = {},
): Promise<CostBucketRow[]> {
  const source = sourceOf(scope, group, filter);
  const f = filterSql(filter);
  // event_date is the UTC date of the event, so day/ISO-week/month buckets of it are exact.
  const groupSelect = group ? `, coalesce(${group.expr}, ${UNASSIGNED_SQL}) AS group_value` : '';
  return lake.rows<CostBucketRow>(
    source.scope,
    `SELECT CAST(date_trunc($unit, c.event_date) AS DATE) AS bucket${groupSelect},
            CAST(sum(c.event_count) AS BIGINT) AS event_count,
            CAST(sum(c.total_cost) AS DECIMAL(38,12)) AS total_cost
       FROM ${source.from} WHERE ${WHERE}${f.sql}
      GROUP BY ALL
      ORDER BY 1`,
    { unit: truncUnit(granularity), ...f.params },
  );
}
