// The SQL of cost groupings, shared by every cost endpoint: totals, groups by one key, and time
// buckets, over completed events only (the spec's status_counts.completed "counts toward
// totals"). Grouping keys are chosen from the fixed list below, never from request text; a
// metadata key travels as a bound JSON-pointer parameter. Organization is always the first filter.
import type { LakeParam, LakeQuery, LakeScope } from '../lake/lake-query.js';
import type { Granularity } from '../../core/time.js';
import { truncUnit } from '../../core/time.js';

/**
 * Where a cost query reads: `costs` = the daily_costs-shaped relation (rollups for whole days,
 * events for partial days); `events` = raw events, needed when grouping by a metadata key.
 */
export type CostSource = 'costs' | 'events';

const SOURCES: Record<CostSource, { from: string; where: string; count: string }> = {
  costs: {
    from: '{{costs}} c',
    where: `c.organization_id = $org AND c.status = 'completed'`,
    count: 'sum(c.event_count)',
  },
  events: {
    from: '{{events}} c',
    where: `c.organization_id = $org AND c.event_timestamp >= $start AND c.event_timestamp < $end AND c.status = 'completed'`,
    count: 'count(*)',
  },
};

/** A grouping key: a SQL expression over the source's row `c`, with the parameters it uses. */
export interface CostGroupKey {
  expr: string;
  source: CostSource;
  params: Record<string, LakeParam>;
}

/** Typed columns the daily_costs rollup keeps (so these groupings are answered from rollups). */
export const ROLLUP_KEYS = ['end_user_id', 'model', 'provider', 'agent_id', 'workflow_id', 'feature'] as const;
export type RollupKey = (typeof ROLLUP_KEYS)[number];

export function columnKey(column: RollupKey): CostGroupKey {
  return { expr: `c.${column}`, source: 'costs', params: {} };
}

/** RFC 6901 JSON pointer of a top-level key ("a/b" → "/a~1b"), as DuckDB's JSON functions take it. */
export function jsonPointer(key: string): string {
  return `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/**
 * A metadata key as a grouping value: `feature` reads the typed event field (which ingest fills
 * from the top-level field or metadata.feature), every other key reads metadata. Non-string
 * JSON values group by their JSON text; a missing key or JSON null is NULL (→ Unassigned).
 */
export function dimensionKey(key: string): CostGroupKey {
  if (key === 'feature') return columnKey('feature');
  return { expr: 'json_extract_string(c.metadata, $dim_path)', source: 'events', params: { dim_path: jsonPointer(key) } };
}

/** Extra conditions on the cost population. */
export interface CostFilter {
  /** Internal end-user id. */
  endUserId?: string;
  /** Only events whose value of `key` (NULL as 'Unassigned') equals `value`. */
  dimension?: { key: CostGroupKey; value: string };
}

function filterSql(filter: CostFilter): { sql: string; params: Record<string, LakeParam> } {
  let sql = '';
  let params: Record<string, LakeParam> = {};
  if (filter.endUserId !== undefined) {
    sql += ' AND c.end_user_id = $end_user_id';
    params.end_user_id = filter.endUserId;
  }
  if (filter.dimension) {
    sql += ` AND coalesce(${filter.dimension.key.expr}, 'Unassigned') = $dim_value`;
    params = { ...params, ...filter.dimension.key.params, dim_value: filter.dimension.value };
  }
  return { sql, params };
}

function sourceOf(group: CostGroupKey | null, filter: CostFilter): CostSource {
  return group?.source === 'events' || filter.dimension?.key.source === 'events' ? 'events' : 'costs';
}

function measuresSql(count: string): string {
  return `CAST(${count} AS BIGINT) AS event_count,
    CAST(sum(c.input_tokens) AS BIGINT) AS input_tokens,
    CAST(sum(c.output_tokens) AS BIGINT) AS output_tokens,
    CAST(sum(c.cache_creation_input_tokens) AS BIGINT) AS cache_creation_input_tokens,
    CAST(sum(c.cache_read_input_tokens) AS BIGINT) AS cache_read_input_tokens,
    CAST(sum(c.reasoning_tokens) AS BIGINT) AS reasoning_tokens,
    CAST(sum(c.input_cost) AS DECIMAL(38,12)) AS input_cost,
    CAST(sum(c.output_cost) AS DECIMAL(38,12)) AS output_cost,
    CAST(sum(c.cache_creation_cost) AS DECIMAL(38,12)) AS cache_creation_cost,
    CAST(sum(c.cache_read_cost) AS DECIMAL(38,12)) AS cache_read_cost,
    CAST(sum(c.reasoning_cost) AS DECIMAL(38,12)) AS reasoning_cost,
    CAST(sum(c.total_cost) AS DECIMAL(38,12)) AS total_cost`;
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
  const source = SOURCES[sourceOf(null, filter)];
  const f = filterSql(filter);
  const row = await lake.row<CostGroupRow>(scope, `SELECT ${measuresSql(source.count)} FROM ${source.from} WHERE ${source.where}${f.sql}`, f.params);
  return row!;
}

/** One row per value of `group` (NULL for events without it). */
export async function queryCostGroups(
  lake: LakeQuery,
  scope: LakeScope,
  group: CostGroupKey,
  filter: CostFilter = {},
): Promise<KeyedCostGroupRow[]> {
  const source = SOURCES[sourceOf(group, filter)];
  const f = filterSql(filter);
  // The rollup keeps user_id beside end_user_id (one per end user), so names need no join.
  const externalId = group.expr === 'c.end_user_id' ? ', max(c.user_id) AS external_id' : '';
  return lake.rows<KeyedCostGroupRow>(
    scope,
    `SELECT ${group.expr} AS group_value${externalId}, ${measuresSql(source.count)}
       FROM ${source.from} WHERE ${source.where}${f.sql}
      GROUP BY 1`,
    { ...group.params, ...f.params },
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
  const source = SOURCES[sourceOf(group, filter)];
  const f = filterSql(filter);
  // event_date is the UTC date of the event, so day/ISO-week/month buckets of it are exact.
  const groupSelect = group ? `, coalesce(${group.expr}, 'Unassigned') AS group_value` : '';
  return lake.rows<CostBucketRow>(
    scope,
    `SELECT CAST(date_trunc($unit, c.event_date) AS DATE) AS bucket${groupSelect},
            CAST(${source.count} AS BIGINT) AS event_count,
            CAST(sum(c.total_cost) AS DECIMAL(38,12)) AS total_cost
       FROM ${source.from} WHERE ${source.where}${f.sql}
      GROUP BY ALL
      ORDER BY 1`,
    { unit: truncUnit(granularity), ...(group?.params ?? {}), ...f.params },
  );
}
