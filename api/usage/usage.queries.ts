// The SQL of /usage over raw events (the rollups keep no metric or quantity). Usage counts every
// event the pipeline processed — completed or waiting for a rate card; `failed` events are only
// counted in the cost summary's status_counts. Organization is always the first filter.
import type { LakeParam, LakeQuery, LakeScope } from '../lake/lake-query.js';
import { TOKENS_METRIC, type StoredUsageEvent } from './usage.js';

const METRIC_NAME = `CASE WHEN e.metric IS NULL OR e.metric = '' THEN '${TOKENS_METRIC}' ELSE lower(e.metric) END`;
const QUANTITY = `CASE WHEN e.metric IS NULL OR e.metric = ''
  THEN CAST(coalesce(e.input_tokens, 0) + coalesce(e.output_tokens, 0) AS DOUBLE)
  ELSE coalesce(e.quantity, 0) END`;

export interface UsageFilter {
  subscriptionId?: string;
  metricName?: string;
}

function whereSql(filter: UsageFilter): { sql: string; params: Record<string, LakeParam> } {
  let sql = `e.organization_id = $org AND e.event_timestamp >= $start AND e.event_timestamp < $end AND e.status <> 'failed'`;
  const params: Record<string, LakeParam> = {};
  if (filter.subscriptionId !== undefined) {
    sql += ' AND e.subscription_id = $subscription_id';
    params.subscription_id = filter.subscriptionId;
  }
  if (filter.metricName !== undefined) {
    sql += ` AND ${METRIC_NAME} = $metric_name`;
    params.metric_name = filter.metricName;
  }
  return { sql, params };
}

const ITEM_COLUMNS = `e.event_id, e.metric, e.quantity, e.input_tokens, e.output_tokens, e.event_timestamp, e.metadata,
  e.provider, e.feature, e.agent_id, e.workflow_id, e.unit`;

/** One page, newest first (ties by id), and the number of all matches. */
export async function queryUsageEvents(
  lake: LakeQuery,
  scope: LakeScope,
  filter: UsageFilter,
  page: { limit: number; offset: number },
): Promise<{ events: StoredUsageEvent[]; total: number }> {
  const w = whereSql(filter);
  const [events, count] = await Promise.all([
    lake.rows<StoredUsageEvent>(
      scope,
      `SELECT ${ITEM_COLUMNS} FROM {{events}} e WHERE ${w.sql}
        ORDER BY e.event_timestamp DESC, e.event_id LIMIT $limit OFFSET $offset`,
      { ...w.params, limit: page.limit, offset: page.offset },
    ),
    lake.row<{ n: number }>(scope, `SELECT count(*) AS n FROM {{events}} e WHERE ${w.sql}`, w.params),
  ]);
  return { events, total: count?.n ?? 0 };
}

export interface UsageMetricRow {
  metric_name: string;
  total_quantity: number;
  event_count: number;
  first_event_at: Date;
  last_event_at: Date;
}

/** Per metric name: quantity, events, first and last event time. */
export async function queryUsageByMetric(lake: LakeQuery, scope: LakeScope, filter: UsageFilter = {}): Promise<UsageMetricRow[]> {
  const w = whereSql(filter);
  return lake.rows<UsageMetricRow>(
    scope,
    `SELECT ${METRIC_NAME} AS metric_name, sum(${QUANTITY}) AS total_quantity, count(*) AS event_count,
            min(e.event_timestamp) AS first_event_at, max(e.event_timestamp) AS last_event_at
       FROM {{events}} e WHERE ${w.sql}
      GROUP BY 1 ORDER BY 1`,
    w.params,
  );
}
