// The lake reads of exports, organization first in every filter. FOCUS groups come from {{costs}}
// (the cost endpoints' own relation, so an export sums to what they say) or, when dimensions are
// chosen, from raw {{events}} with each dimension's value read by the lake's one metadata rule
// (dimensionValueSql; keys travel as bound JSON pointers). The scheduled events and rollups
// exports are DuckDB COPYs of the same relations into a local Parquet file.
import { dimensionValueSql, jsonPointer } from '../../core/lake/dimension-rollups.js';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import type { DateRange } from '../../core/time.js';
import type { LakeQuery } from '../lake/lake-query.js';
import type { FocusCostGroup } from './focus.js';

const KEYS = ['event_date', 'provider', 'model', 'end_user_id', 'agent_id', 'workflow_id', 'feature'];
const TOKENS = ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'reasoning_tokens'];
const COSTS = ['input_cost', 'output_cost', 'cache_creation_cost', 'cache_read_cost', 'reasoning_cost', 'total_cost'];

const MEASURES = [
  'CAST(sum(c.event_count) AS BIGINT) AS event_count',
  ...TOKENS.map((t) => `CAST(sum(c.${t}) AS BIGINT) AS ${t}`),
  ...COSTS.map((m) => `CAST(sum(c.${m}) AS DECIMAL(38,12)) AS ${m}`),
].join(', ');

type GroupRow = Omit<FocusCostGroup, 'dimensions'> & Record<string, unknown>;

/** Completed cost per day × provider × model × end user × agent × workflow × feature (× dimensions) over whole days. */
export async function focusCostGroups(
  lake: LakeQuery,
  scope: { organizationId: string; range: DateRange },
  dimensionKeys: readonly string[],
): Promise<FocusCostGroup[]> {
  const dims = dimensionKeys.map((_, i) => `dim_${i}`);
  const params = Object.fromEntries(dimensionKeys.map((k, i) => [`dim_path_${i}`, jsonPointer(k)]));
  // Raw events carry one count each; the rollup its event_count.
  const from =
    dims.length === 0
      ? '{{costs}} c'
      : `(SELECT *, CAST(1 AS BIGINT) AS event_count, ${dims.map((d, i) => `${dimensionValueSql('e.metadata', `$dim_path_${i}`)} AS ${d}`).join(', ')}
            FROM {{events}} e
           WHERE e.organization_id = $org AND e.event_timestamp >= $start AND e.event_timestamp < $end) c`;
  const groupBy = [...KEYS, ...dims].map((k) => `c.${k}`).join(', ');
  const rows = await lake.rows<GroupRow>(
    scope,
    `SELECT ${groupBy}, max(c.user_id) AS user_id, ${MEASURES}
       FROM ${from}
      WHERE c.organization_id = $org AND c.status = 'completed'
      GROUP BY ${groupBy}
      ORDER BY ${groupBy}`,
    params,
  );
  return rows.map((r) => ({ ...r, dimensions: dims.map((d) => (r[d] as string | null) ?? null) }) as FocusCostGroup);
}

/** What a scheduled export of raw data copies: the events, or the daily cost rollup, of [start, end). */
export type LakeCopyKind = 'events' | 'rollups';

/** Copies the range's rows of `kind` into a local Parquet file; returns the rows written. */
export async function copyLakeRows(
  lake: LakeQuery,
  scope: { organizationId: string; range: DateRange },
  kind: LakeCopyKind,
  file: string,
): Promise<number> {
  const select =
    kind === 'events'
      ? `SELECT * FROM {{events}} e WHERE e.organization_id = $org AND e.event_timestamp >= $start AND e.event_timestamp < $end ORDER BY e.event_timestamp, e.event_id`
      : `SELECT * FROM {{costs}} c WHERE c.organization_id = $org ORDER BY ALL`;
  const [row] = await lake.rows<{ Count: number }>(scope, `COPY (${select}) TO ${sqlStringLiteral(file)} (FORMAT parquet)`);
  return Number(row?.Count ?? 0);
}
