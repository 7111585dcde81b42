// The SQL of numeric dimensions: values of one metadata key that are JSON numbers (doubles, as
// JSON numbers are), aggregated as DECIMAL(38,12) — exact sums of the values as sent, rounded to
// 12 decimals; values outside its range are skipped. A per-file derivation keeps count, sum, min
// and max per (day, status), cached for whole days. Every processed event counts (a value is not
// a cost), failed ones excepted. Organization is always the first filter.
import { truncUnit, type Granularity } from '../../core/time.js';
import { jsonPointer } from '../costs/costs.queries.js';
import type { Derivation, LakeQuery, LakeScope } from '../lake/lake-query.js';
import type { NumericGroup } from './dimension-data.js';

function numericDerivation(key: string): Derivation {
  return {
    id: `numeric:${key}`,
    source: 'events',
    params: { dim_path: jsonPointer(key) },
    perDay: `SELECT filename, organization_id, event_date, status,
                     CAST(count(v) AS BIGINT) AS event_count,
                     CAST(sum(v) AS DECIMAL(38,12)) AS sum_value,
                     CAST(min(v) AS DECIMAL(38,12)) AS min_value,
                     CAST(max(v) AS DECIMAL(38,12)) AS max_value
                FROM (SELECT filename, organization_id, event_date, status,
                             TRY_CAST(TRY_CAST(j AS DOUBLE) AS DECIMAL(38,12)) AS v
                        FROM (SELECT filename, organization_id, event_date, status, json_extract(metadata, $dim_path) AS j FROM {{src}})
                       WHERE json_type(j) IN ('BIGINT', 'UBIGINT', 'DOUBLE'))
               WHERE v IS NOT NULL
               GROUP BY ALL`,
  };
}

const MERGED = `CAST(sum(x.event_count) AS BIGINT) AS event_count,
  CAST(sum(x.sum_value) AS DECIMAL(38,12)) AS sum_value,
  CAST(min(x.min_value) AS DECIMAL(38,12)) AS min_value,
  CAST(max(x.max_value) AS DECIMAL(38,12)) AS max_value`;

const WHERE = `x.organization_id = $org AND x.status <> 'failed'`;

export async function queryNumericBuckets(
  lake: LakeQuery,
  scope: LakeScope,
  key: string,
  granularity: Granularity,
): Promise<Array<NumericGroup & { bucket: string }>> {
  return lake.rows(
    { ...scope, derived: numericDerivation(key) },
    `SELECT CAST(date_trunc($unit, x.event_date) AS DATE) AS bucket, ${MERGED}
       FROM {{derived}} x WHERE ${WHERE}
      GROUP BY 1 ORDER BY 1`,
    { unit: truncUnit(granularity) },
  );
}

export async function queryNumericTotals(lake: LakeQuery, scope: LakeScope, key: string): Promise<NumericGroup> {
  const row = await lake.row<NumericGroup>({ ...scope, derived: numericDerivation(key) }, `SELECT ${MERGED} FROM {{derived}} x WHERE ${WHERE}`);
  return row && row.event_count !== null ? row : { event_count: 0, sum_value: null, min_value: null, max_value: null };
}
