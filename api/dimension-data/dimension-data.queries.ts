// The SQL of numeric dimensions over raw events: values of one metadata key that are JSON
// numbers, aggregated as DECIMAL(38,12) (exact; values beyond its range are skipped), per time
// bucket or over the whole range. Every processed event counts (a value is not a cost), failed
// ones excepted. Organization is always the first filter.
import { truncUnit, type Granularity } from '../../core/time.js';
import { jsonPointer } from '../costs/costs.queries.js';
import type { LakeQuery, LakeScope } from '../lake/lake-query.js';
import type { NumericGroup } from './dimension-data.js';

const NUMERIC_VALUES = `SELECT e.event_date, TRY_CAST(json_extract_string(e.metadata, $dim_path) AS DECIMAL(38,12)) AS v
  FROM {{events}} e
 WHERE e.organization_id = $org AND e.event_timestamp >= $start AND e.event_timestamp < $end
   AND e.status <> 'failed'
   AND json_type(e.metadata, $dim_path) IN ('BIGINT', 'UBIGINT', 'DOUBLE')`;

const AGGREGATES = `CAST(count(v) AS BIGINT) AS event_count,
  CAST(sum(v) AS DECIMAL(38,12)) AS sum_value,
  CAST(min(v) AS DECIMAL(38,12)) AS min_value,
  CAST(max(v) AS DECIMAL(38,12)) AS max_value`;

export async function queryNumericBuckets(
  lake: LakeQuery,
  scope: LakeScope,
  key: string,
  granularity: Granularity,
): Promise<Array<NumericGroup & { bucket: string }>> {
  return lake.rows(
    scope,
    `SELECT CAST(date_trunc($unit, x.event_date) AS DATE) AS bucket, ${AGGREGATES}
       FROM (${NUMERIC_VALUES}) x WHERE v IS NOT NULL
      GROUP BY 1 ORDER BY 1`,
    { dim_path: jsonPointer(key), unit: truncUnit(granularity) },
  );
}

export async function queryNumericTotals(lake: LakeQuery, scope: LakeScope, key: string): Promise<NumericGroup> {
  const row = await lake.row<NumericGroup>(scope, `SELECT ${AGGREGATES} FROM (${NUMERIC_VALUES}) x WHERE v IS NOT NULL`, {
    dim_path: jsonPointer(key),
  });
  return row ?? { event_count: 0, sum_value: null, min_value: null, max_value: null };
}
