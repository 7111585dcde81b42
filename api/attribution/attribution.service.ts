// /attribution-data: cost by agent or by any dimension (optionally filtered by another), and the
// distinct agents, workflows and dimension values of a range. Completed events count toward cost
// (as on every cost endpoint); distinct values list every event's.
import { ValidationError } from '../../core/errors.js';
import { DAILY_COSTS } from '../../core/lake/rollups.js';
import { parseDateRange } from '../../core/time.js';
import {
  columnKey,
  isTypedAttributionKey,
  jsonPointer,
  queryCostGroups,
  type CostFilter,
  type CostGroupKey,
} from '../costs/costs.queries.js';
import type { Derivation } from '../lake/lake-query.js';
import type { ReadContext } from '../lake/read-context.js';
import { capDistinctValues, cappedBreakdown, DISTINCT_VALUES_CAP } from './attribution.js';
import { queryDistinctValues } from './attribution.queries.js';
import type { AttributionBreakdown, AttributionDimensionBreakdown, DimensionValues, DistinctValues } from './attribution.types.js';

/**
 * The attribution fields are typed event columns (ingest fills them from the top-level field or
 * metadata, top-level winning), so they are read from the column (the daily_costs rollup); any
 * other key from metadata.
 */
const isTyped = isTypedAttributionKey;

function attributionKey(key: string): CostGroupKey {
  return isTyped(key) ? columnKey(key) : { expr: 'c.dim_value', derived: attributionDerivation(key, null) };
}

/**
 * Cost measures per (day, status, value of `dimension` [, value of `filterKey`]) from events, for
 * attribution by a metadata key (or by one key filtered by another when either is a metadata
 * key). Derived once per lake day like any metadata key, without end users, so the rows stay few.
 */
function attributionDerivation(dimension: string, filterKey: string | null): Derivation {
  const params: Record<string, string> = {};
  const valueOf = (key: string, param: string): string => {
    if (isTyped(key)) return `"${key}"`;
    params[param] = jsonPointer(key);
    return `json_extract_string(metadata, $${param})`;
  };
  const filterValue = filterKey === null ? '' : `, ${valueOf(filterKey, 'filter_path')} AS filter_value`;
  const measures = DAILY_COSTS.measures.map((m) => `${m.fromEvents} AS "${m.column.name}"`).join(', ');
  return {
    id: `attribution:${dimension}${filterKey === null ? '' : `\u0000${filterKey}`}`,
    source: 'events',
    params,
    perDay: `SELECT filename, organization_id, event_date, status, ${valueOf(dimension, 'dim_path')} AS dim_value${filterValue}, ${measures}
               FROM {{src}} GROUP BY ALL`,
  };
}

/** The grouping key and filter of a by-dimension query (rollup columns when both keys are typed). */
function groupAndFilter(dimension: string, filter: { key: string; value: string } | null): { group: CostGroupKey; filter: CostFilter } {
  if (filter === null) return { group: attributionKey(dimension), filter: {} };
  if (isTyped(dimension) && isTyped(filter.key)) {
    return { group: columnKey(dimension), filter: { dimension: { key: columnKey(filter.key), value: filter.value } } };
  }
  const derived = attributionDerivation(dimension, filter.key);
  return {
    group: { expr: 'c.dim_value', derived },
    filter: { dimension: { key: { expr: 'c.filter_value', derived }, value: filter.value } },
  };
}

function requireKey(field: string, value: string | undefined): string {
  if (value === undefined || value === '') throw new ValidationError(field, 'is required');
  if (value.length > 255) throw new ValidationError(field, 'must be at most 255 characters');
  return value;
}

export async function costByAgent(rc: ReadContext, startDate: string, endDate: string): Promise<AttributionBreakdown> {
  const range = parseDateRange(startDate, endDate);
  const rows = await queryCostGroups(rc.lake, { organizationId: rc.organizationId, range }, columnKey('agent_id'));
  return cappedBreakdown(rows);
}

export async function costByDimension(
  rc: ReadContext,
  q: { dimension?: string; start_date: string; end_date: string; filter_key?: string; filter_value?: string },
): Promise<AttributionDimensionBreakdown> {
  const range = parseDateRange(q.start_date, q.end_date);
  const dimension = requireKey('dimension', q.dimension);
  if ((q.filter_key === undefined) !== (q.filter_value === undefined)) {
    throw new ValidationError(q.filter_key === undefined ? 'filter_key' : 'filter_value', 'filter_key and filter_value go together');
  }
  const pair = q.filter_key === undefined ? null : { key: requireKey('filter_key', q.filter_key), value: q.filter_value! };
  const { group, filter } = groupAndFilter(dimension, pair);
  const rows = await queryCostGroups(rc.lake, { organizationId: rc.organizationId, range }, group, filter);
  return { dimension, ...cappedBreakdown(rows) };
}

async function distinct(rc: ReadContext, key: CostGroupKey, startDate: string, endDate: string): Promise<DistinctValues> {
  const range = parseDateRange(startDate, endDate);
  const values = await queryDistinctValues(rc.lake, { organizationId: rc.organizationId, range }, key, DISTINCT_VALUES_CAP + 1);
  return capDistinctValues(values);
}

export const distinctAgents = (rc: ReadContext, startDate: string, endDate: string) => distinct(rc, columnKey('agent_id'), startDate, endDate);
export const distinctWorkflows = (rc: ReadContext, startDate: string, endDate: string) => distinct(rc, columnKey('workflow_id'), startDate, endDate);

export async function dimensionValues(rc: ReadContext, q: { dimension?: string; start_date: string; end_date: string }): Promise<DimensionValues> {
  const dimension = requireKey('dimension', q.dimension);
  return { dimension, ...(await distinct(rc, attributionKey(dimension), q.start_date, q.end_date)) };
}
