// Our completed cost per UTC day × provider × model, from {{costs}} (rollups for whole days), for
// reconciliation against the providers' reports. Organization is the first filter.
import type { LakeQuery, LakeScope } from '../lake/lake-query.js';

export interface OurCostRow {
  date: string;
  provider: string | null;
  model: string | null;
  cost: string;
}

export function queryDailyModelCosts(lake: LakeQuery, scope: LakeScope): Promise<OurCostRow[]> {
  return lake.rows<OurCostRow>(
    scope,
    `SELECT strftime(CAST(c.event_date AS DATE), '%Y-%m-%d') AS date, c.provider, c.model,
            CAST(sum(c.total_cost) AS DECIMAL(38,12)) AS cost
       FROM {{costs}} c WHERE c.organization_id = $org AND c.status = 'completed'
      GROUP BY ALL`,
  );
}
