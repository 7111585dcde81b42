// The SQL of the attribution endpoints that the shared cost groupings (api/costs/costs.queries.ts)
// do not cover: distinct values of a key in a range. Keys come from the fixed expressions of
// CostGroupKey (never request text); organization is the first filter.
import type { LakeQuery, LakeScope } from '../lake/lake-query.js';
import type { CostGroupKey } from '../costs/costs.queries.js';

/**
 * Distinct non-null values of `key` among the range's events (any status: an agent whose events
 * await a rate card still exists), in code-point order, at most `limit`.
 */
export async function queryDistinctValues(lake: LakeQuery, scope: LakeScope, key: CostGroupKey, limit: number): Promise<string[]> {
  const from =
    key.source === 'costs'
      ? '{{costs}} c WHERE c.organization_id = $org'
      : '{{events}} c WHERE c.organization_id = $org AND c.event_timestamp >= $start AND c.event_timestamp < $end';
  const rows = await lake.rows<{ value: string }>(
    scope,
    `SELECT value FROM (SELECT DISTINCT ${key.expr} AS value FROM ${from}) WHERE value IS NOT NULL ORDER BY value LIMIT $limit`,
    { ...key.params, limit },
  );
  return rows.map((r) => r.value);
}
