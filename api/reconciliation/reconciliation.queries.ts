// Our completed cost and tokens per UTC day × provider × model, from {{costs}} (rollups for whole days), for
// reconciliation against the providers' reports. Organization is the first filter.
import type { LakeQuery, LakeScope } from '../lake/lake-query.js';

export interface OurCostRow {
  date: string;
  provider: string | null;
  model: string | null;
  cost: string;
  /** Uncached input plus cache writes: the classes the providers' usage reports count as not read from cache. */
  input_tokens: string;
  cached_input_tokens: string;
  output_tokens: string;
}

export function queryDailyModelCosts(lake: LakeQuery, scope: LakeScope): Promise<OurCostRow[]> {
  return lake.rows<OurCostRow>(
    scope,
    `SELECT strftime(CAST(c.event_date AS DATE), '%Y-%m-%d') AS date, c.provider, c.model,
            CAST(sum(c.total_cost) AS DECIMAL(38,12)) AS cost,
            CAST(coalesce(sum(c.input_tokens), 0) + coalesce(sum(c.cache_creation_input_tokens), 0) AS VARCHAR) AS input_tokens,
            CAST(coalesce(sum(c.cache_read_input_tokens), 0) AS VARCHAR) AS cached_input_tokens,
            CAST(coalesce(sum(c.output_tokens), 0) AS VARCHAR) AS output_tokens
       FROM {{costs}} c WHERE c.organization_id = $org AND c.status = 'completed'
      GROUP BY ALL`,
  );
}
