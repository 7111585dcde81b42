// The SQL of numeric dimensions: values of one metadata key that are JSON numbers (doubles, as
// JSON numbers are), aggregated as DECIMAL(38,12) — exact sums of the values as sent, rounded to
// 12 decimals; values outside its range are skipped. A per-file derivation keeps count, sum, min
// and max per (day, status), cached for whole days. Every processed event counts (a value is not
// a cost), failed ones excepted. Organization is always the first filter. Days the processor
// rolled the dimension up for (dimension_numbers) are read from that rollup instead of events.
import { truncUnit, type Granularity } from '../../core/time.js';
import { jsonPointer, numericValueSql } from '../../core/lake/dimension-rollups.js';
import type { DimensionDerivation, LakeQuery, LakeScope } from '../lake/lake-query.js';
import type { NumericGroup } from './dimension-data.js';

function numericDerivation(key: string): DimensionDerivation {
  return {
    id: `numeric:${key}`,
    source: 'events',
    params: { dim_path: jsonPointer(key) },
    perDay: `SELECT filename, organization_id, event_date, status,
                     CAST(count(v) AS BIGINT) AS event_count,
                     CAST(sum(v) AS DECIMAL(38,12)) AS sum_value,
                     CAST(min(v) AS DECIMAL(38,12)) AS min_value,
                     CAST(max(v) AS DECIMAL(38,12)) AS max_value
                FROM (SELECT filename, organization_id, event_date, status, ${numericValueSql('metadata', '$dim_path')} AS v FROM {{src}})
               WHERE v IS NOT NULL
               GROUP BY ALL`,
    // A number dimension's days rolled up by the processor: the same sums per (day, status).
    rollup: {
      table: 'dimension_numbers',
      key,
      type: 'number',
      perDay: `SELECT filename, organization_id, event_date, status,
                       CAST(sum(value_count) AS BIGINT) AS event_count,
                       CAST(sum(sum_value) AS DECIMAL(38,12)) AS sum_value,
                       CAST(min(min_value) AS DECIMAL(38,12)) AS min_value,
                       CAST(max(max_value) AS DECIMAL(38,12)) AS max_value
                  FROM {{src}} WHERE dimension_key = $dim_key GROUP BY ALL`,
    },
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
  const row = await lake.row<NumericGroup>(
    { ...scope, derived: numericDerivation(key) },
    `SELECT ${MERGED} FROM {{derived}} x WHERE ${WHERE}`,
  );
  return row && row.event_count !== null ? row : { event_count: 0, sum_value: null, min_value: null, max_value: null };
}
