// The SQL of /usage. Totals come from a per-file derivation of events (count, quantity, first and
// last time per day × subscription × metric × status), cached for whole days; a page of events
// reads raw events, but only the days the page can fall in (found from the per-day counts).
// Usage counts every event the pipeline processed — completed or waiting for a rate card;
// `failed` events are only counted in the cost summary's status_counts. Organization first.
import type { DateRange } from '../../core/time.js';
import type { Derivation, LakeParam, LakeQuery, LakeScope } from '../lake/lake-query.js';
import { TOKENS_METRIC, type StoredUsageEvent } from './usage.js';

const METRIC_NAME = `CASE WHEN e.metric IS NULL OR e.metric = '' THEN '${TOKENS_METRIC}' ELSE lower(e.metric) END`;
const QUANTITY = `CASE WHEN e.metric IS NULL OR e.metric = ''
  THEN CAST(coalesce(e.input_tokens, 0) + coalesce(e.output_tokens, 0) AS DOUBLE)
  ELSE coalesce(e.quantity, 0) END`;

/** Usage per (day, subscription, metric name, status) of each events file. */
const USAGE_DERIVATION: Derivation = {
  id: 'usage-metrics',
  source: 'events',
  perDay: `SELECT e.filename, e.organization_id, e.event_date, e.subscription_id, e.status, ${METRIC_NAME} AS metric_name,
                   CAST(count(*) AS BIGINT) AS event_count, sum(${QUANTITY}) AS total_quantity,
                   min(e.event_timestamp) AS first_event_at, max(e.event_timestamp) AS last_event_at
              FROM {{src}} e GROUP BY ALL`,
};

export interface UsageFilter {
  subscriptionId?: string;
  metricName?: string;
}

/** Conditions on a row `e` of the derivation or of raw events (both name these columns). */
function whereSql(filter: UsageFilter, metricExpr: string): { sql: string; params: Record<string, LakeParam> } {
  let sql = `e.organization_id = $org AND e.status <> 'failed'`;
  const params: Record<string, LakeParam> = {};
  if (filter.subscriptionId !== undefined) {
    sql += ' AND e.subscription_id = $subscription_id';
    params.subscription_id = filter.subscriptionId;
  }
  if (filter.metricName !== undefined) {
    sql += ` AND ${metricExpr} = $metric_name`;
    params.metric_name = filter.metricName;
  }
  return { sql, params };
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
  const w = whereSql(filter, 'e.metric_name');
  return lake.rows<UsageMetricRow>(
    { ...scope, derived: USAGE_DERIVATION },
    `SELECT e.metric_name, sum(e.total_quantity) AS total_quantity, CAST(sum(e.event_count) AS BIGINT) AS event_count,
            min(e.first_event_at) AS first_event_at, max(e.last_event_at) AS last_event_at
       FROM {{derived}} e WHERE ${w.sql}
      GROUP BY 1 ORDER BY 1`,
    w.params,
  );
}

/** Matching events per UTC day ('YYYY-MM-DD'), newest day first. */
async function queryUsageDays(lake: LakeQuery, scope: LakeScope, filter: UsageFilter): Promise<Array<{ day: string; n: number }>> {
  const w = whereSql(filter, 'e.metric_name');
  return lake.rows(
    { ...scope, derived: USAGE_DERIVATION },
    `SELECT e.event_date AS day, CAST(sum(e.event_count) AS BIGINT) AS n FROM {{derived}} e WHERE ${w.sql} GROUP BY 1 ORDER BY 1 DESC`,
    w.params,
  );
}

const ITEM_COLUMNS = `e.event_id, e.metric, e.quantity, e.input_tokens, e.output_tokens, e.event_timestamp, e.metadata,
  e.provider, e.feature, e.agent_id, e.workflow_id, e.unit`;

/**
 * One page, newest first (ties by id), and the number of all matches. The page's rows are among
 * the newest offset + limit matches, so only the days holding those are read.
 */
export async function queryUsageEvents(
  lake: LakeQuery,
  scope: LakeScope & { range: DateRange },
  filter: UsageFilter,
  page: { limit: number; offset: number },
): Promise<{ events: StoredUsageEvent[]; total: number }> {
  const days = await queryUsageDays(lake, scope, filter);
  const total = days.reduce((n, d) => n + d.n, 0);
  if (total <= page.offset) return { events: [], total };
  const needed = page.offset + page.limit;
  let seen = 0;
  let from = days.at(-1)!.day;
  for (const d of days) {
    seen += d.n;
    if (seen >= needed) {
      from = d.day;
      break;
    }
  }

  const fromTime = new Date(`${from}T00:00:00.000Z`);
  const range = { start: fromTime > scope.range.start ? fromTime : scope.range.start, end: scope.range.end };
  const w = whereSql(filter, METRIC_NAME);
  const events = await lake.rows<StoredUsageEvent>(
    { organizationId: scope.organizationId, range },
    `SELECT ${ITEM_COLUMNS} FROM {{events}} e
      WHERE ${w.sql} AND e.event_timestamp >= $start AND e.event_timestamp < $end
      ORDER BY e.event_timestamp DESC, e.event_id LIMIT $limit OFFSET $offset`,
    // The days from `from` on hold a prefix of the newest-first order, so the offset is unchanged.
    { ...w.params, limit: page.limit, offset: page.offset },
  );
  return { events, total };
}
