// /attribution-data: cost by agent or by any dimension (optionally filtered by another), and the
// distinct agents, workflows and dimension values of a range. Completed events count toward cost
// (as on every cost endpoint); distinct values list every event's.
import { ValidationError } from '../../core/errors.js';
import { parseDateRange } from '../../core/time.js';
import { columnKey, queryCostGroups, type CostFilter, type CostGroupKey } from '../costs/costs.queries.js';
import { isTypedAttributionKey, metadataCostsDerivation } from '../costs/dimension-derivations.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { capDistinctValues, cappedBreakdown, DISTINCT_VALUES_CAP } from './attribution.js';
import { queryDistinctValues } from './attribution.queries.js';
import type { AttributionBreakdown, AttributionDimensionBreakdown, DimensionValues, DistinctValues } from './attribution.types.js';

function attributionKey(key: string): CostGroupKey {
  return isTypedAttributionKey(key) ? columnKey(key) : { expr: 'c.dim_value', derived: metadataCostsDerivation(key, { endUser: false }) };
}

/**
 * The grouping key and filter of a by-dimension query: rollup columns when both keys are typed
 * (agent_id, workflow_id and feature are event columns, filled by ingest from the top-level field
 * or metadata), else one derivation holding both values, without end users so the rows stay few.
 */
function groupAndFilter(dimension: string, filter: { key: string; value: string } | null): { group: CostGroupKey; filter: CostFilter } {
  if (filter === null) return { group: attributionKey(dimension), filter: {} };
  if (isTypedAttributionKey(dimension) && isTypedAttributionKey(filter.key)) {
    return { group: columnKey(dimension), filter: { dimension: { key: columnKey(filter.key), value: filter.value } } };
  }
  const derived = metadataCostsDerivation(dimension, { endUser: false, filterKey: filter.key });
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

export const distinctAgents = (rc: ReadContext, startDate: string, endDate: string) =>
  distinct(rc, columnKey('agent_id'), startDate, endDate);
export const distinctWorkflows = (rc: ReadContext, startDate: string, endDate: string) =>
  distinct(rc, columnKey('workflow_id'), startDate, endDate);

export async function dimensionValues(
  rc: ReadContext,
  q: { dimension?: string; start_date: string; end_date: string },
): Promise<DimensionValues> {
  const dimension = requireKey('dimension', q.dimension);
  return { dimension, ...(await distinct(rc, attributionKey(dimension), q.start_date, q.end_date)) };
}
