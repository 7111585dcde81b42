// What every lake write adds for defined dimensions (core/lake/dimension-rollups.ts): the
// organizations' dimension sets, asked of the writer's DimensionSource once per write, and the
// SELECTs of the dimension rollup tables over an events relation, written beside daily_costs.
import {
  DIMENSION_COSTS,
  DIMENSION_NUMBERS,
  dimensionSetOf,
  eventsByDimensionSql,
  type DimensionSet,
} from '../../core/lake/dimension-rollups.js';
import type { LakeTable } from '../../core/lake/layout.js';
import { rollupFromEventsSql } from '../../core/lake/rollups.js';
import type { LakeContext } from './partition-state.js';

/** Each organization's dimension set now (empty sets left out). */
export async function dimensionSetsOf(
  ctx: Pick<LakeContext, 'dimensions'>,
  organizationIds: Iterable<string>,
): Promise<Map<string, DimensionSet>> {
  const out = new Map<string, DimensionSet>();
  if (!ctx.dimensions) return out;
  const ids = [...new Set(organizationIds)].sort();
  if (ids.length === 0) return out;
  for (const [org, dims] of await ctx.dimensions.dimensionsOf(ids)) {
    const set = dimensionSetOf(dims);
    if (Object.keys(set).length > 0) out.set(org, set);
  }
  return out;
}

/** (table, SELECT) of the dimension rollups of `events` (a table name or parenthesized query). */
export function dimensionRollupSources(events: string, sets: ReadonlyMap<string, DimensionSet>): [LakeTable, string][] {
  const out: [LakeTable, string][] = [];
  const strings = eventsByDimensionSql(events, sets, 'string');
  if (strings) out.push(['dimension_costs', rollupFromEventsSql(DIMENSION_COSTS, strings)]);
  const numbers = eventsByDimensionSql(events, sets, 'number');
  if (numbers) out.push(['dimension_numbers', rollupFromEventsSql(DIMENSION_NUMBERS, numbers)]);
  return out;
}
