// The SQL of the anomalies: completed cost per UTC day and (end user, model, agent, feature) from
// {{costs}} (the daily_costs rollup for whole days), and the organizations whose webhook endpoints
// want cost.anomaly. Organization is always the first filter.
import type { Queryable } from '../../core/control/db.js';
import type { DateRange } from '../../core/time.js';
import type { LakeQuery } from '../lake/lake-query.js';

export interface DailyCostRow {
  /** 'YYYY-MM-DD' (UTC). */
  day: string;
  end_user_id: string | null;
  /** The end user's external id. */
  user_id: string | null;
  model: string | null;
  agent_id: string | null;
  feature: string | null;
  cost: string;
}

export async function queryDailyCosts(lake: LakeQuery, organizationId: string, range: DateRange): Promise<DailyCostRow[]> {
  return lake.rows<DailyCostRow>(
    { organizationId, range },
    `SELECT CAST(c.event_date AS VARCHAR) AS day, c.end_user_id, max(c.user_id) AS user_id, c.model, c.agent_id, c.feature,
            CAST(sum(c.total_cost) AS DECIMAL(38,12)) AS cost
       FROM {{costs}} c WHERE c.organization_id = $org AND c.status = 'completed'
      GROUP BY c.event_date, c.end_user_id, c.model, c.agent_id, c.feature`,
  );
}

/** Organizations with an enabled webhook endpoint subscribed to cost.anomaly (or to every event). */
export async function organizationsWatchingAnomalies(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ organization_id: string }>(
    `SELECT DISTINCT organization_id FROM webhook_endpoints
      WHERE deleted_at IS NULL AND enabled AND ('cost.anomaly' = ANY (enabled_events) OR '*' = ANY (enabled_events))`,
  );
  return rows.map((r) => r.organization_id);
}
