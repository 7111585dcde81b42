// The lake read of the forecasts: completed cost per UTC day and end user from {{costs}} (the
// daily_costs rollup for whole days, raw events for today's part), organization first.
import type { DateRange } from '../../core/time.js';
import type { LakeQuery } from '../lake/lake-query.js';

export interface EndUserDayCost {
  /** 'YYYY-MM-DD' (UTC). */
  day: string;
  /** Internal end-user id; null for events without one. */
  end_user_id: string | null;
  /** The end user's external id. */
  user_id: string | null;
  cost: string;
}

export async function queryEndUserDayCosts(lake: LakeQuery, organizationId: string, range: DateRange): Promise<EndUserDayCost[]> {
  return lake.rows<EndUserDayCost>(
    { organizationId, range },
    `SELECT CAST(c.event_date AS VARCHAR) AS day, c.end_user_id, max(c.user_id) AS user_id,
            CAST(sum(c.total_cost) AS DECIMAL(38,12)) AS cost
       FROM {{costs}} c WHERE c.organization_id = $org AND c.status = 'completed'
      GROUP BY c.event_date, c.end_user_id`,
  );
}
