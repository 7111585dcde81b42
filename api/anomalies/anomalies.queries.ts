// The SQL of the anomalies: completed cost per UTC day and (end user, model, agent, feature) from
// {{costs}} (the daily_costs rollup for whole days), and the organizations whose webhook endpoints
// want cost.anomaly; and completed cost per UTC hour for the hourly check of the current day, from
// a {{derived}} per-hour aggregate of events (cached per whole day, the current day's whole hours
// from the hourly cache; lake-query.ts). Organization is always the first filter.
import type { Queryable } from '../../core/control/db.js';
import type { DateRange } from '../../core/time.js';
import type { Derivation, LakeQuery } from '../lake/lake-query.js';

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

/** Completed cost per (UTC hour, end user, model, agent, feature) of each events file (event_date kept: the cache selects days and hours by it). */
const HOURLY_COSTS: Derivation = {
  id: 'anomalies-hourly-costs',
  source: 'events',
  perDay: `SELECT e.filename, e.organization_id, e.event_date, strftime(date_trunc('hour', e.event_timestamp), '%Y-%m-%dT%H:00:00Z') AS hour,
                  e.end_user_id, e.user_id, e.model, e.agent_id, e.feature, CAST(sum(e.total_cost) AS DECIMAL(38,12)) AS total_cost
             FROM {{src}} e WHERE e.status = 'completed' GROUP BY ALL`,
};

/** Completed cost per UTC hour within `range` (whole hours); `day` holds the hour, 'YYYY-MM-DDTHH:00:00Z'. */
export async function queryHourlyCosts(lake: LakeQuery, organizationId: string, range: DateRange): Promise<DailyCostRow[]> {
  return lake.rows<DailyCostRow>(
    { organizationId, range, derived: HOURLY_COSTS },
    `SELECT c.hour AS day, c.end_user_id, max(c.user_id) AS user_id, c.model, c.agent_id, c.feature,
            CAST(sum(c.total_cost) AS DECIMAL(38,12)) AS cost
       FROM {{derived}} c WHERE c.organization_id = $org
      GROUP BY c.hour, c.end_user_id, c.model, c.agent_id, c.feature`,
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
