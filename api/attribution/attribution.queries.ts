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
  // A metadata key reads its per-file derivation ({{derived}}), a typed key the rollup.
  const from = key.derived ? '{{derived}} c WHERE c.organization_id = $org' : '{{costs}} c WHERE c.organization_id = $org';
  const rows = await lake.rows<{ value: string }>(
    key.derived ? { ...scope, derived: key.derived } : scope,
    `SELECT value FROM (SELECT DISTINCT ${key.expr} AS value FROM ${from}) WHERE value IS NOT NULL ORDER BY value LIMIT $limit`,
    { limit },
  );
  return rows.map((r) => r.value);
}
