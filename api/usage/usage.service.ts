// /usage: validates the parameters, checks the subscription belongs to the caller, reads the lake.
import { getSubscription } from '../../core/control/subscriptions.js';
import { NotFoundError } from '../../core/errors.js';
import { assertMaxDays, parseDateRange } from '../../core/time.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { pageParams } from '../../core/http/paging.js';
import { MAX_EVENTS_RANGE_DAYS, usageEventItem } from './usage.js';
import { queryUsageByMetric, queryUsageEvents, type UsageFilter } from './usage.queries.js';
import type { UsageAggregation, UsageEventPage, UsageSummary } from './usage.types.js';

export interface UsageEventsQuery {
  start_date: string;
  end_date: string;
  subscription_id?: string;
  metric_name?: string;
  limit?: number;
  offset?: number;
}

/** 404 unless the subscription is one of the caller's (another organization's is "not found"). */
async function subscriptionFilter(rc: ReadContext, subscriptionId: string | undefined): Promise<UsageFilter> {
  if (subscriptionId === undefined) return {};
  const sub = await getSubscription(rc.db, rc.organizationId, subscriptionId);
  if (!sub) throw new NotFoundError('subscription', subscriptionId);
  return { subscriptionId: sub.id };
}

export async function usageEvents(rc: ReadContext, q: UsageEventsQuery): Promise<UsageEventPage> {
  const range = parseDateRange(q.start_date, q.end_date);
  assertMaxDays(range, MAX_EVENTS_RANGE_DAYS);
  const page = pageParams(q.limit, q.offset);
  const filter = await subscriptionFilter(rc, q.subscription_id);
  if (q.metric_name !== undefined) filter.metricName = q.metric_name;
  const { events, total } = await queryUsageEvents(rc.lake, { organizationId: rc.organizationId, range }, filter, page);
  return { events: events.map(usageEventItem), total, limit: page.limit, offset: page.offset };
}

export async function usageSummary(rc: ReadContext, startDate: string, endDate: string): Promise<UsageSummary> {
  const range = parseDateRange(startDate, endDate);
  const rows = await queryUsageByMetric(rc.lake, { organizationId: rc.organizationId, range });
  return {
    user_id: rc.ownerUserId ?? '',
    period_start: range.start.toISOString(),
    period_end: range.end.toISOString(),
    total_events: rows.reduce((n, r) => n + r.event_count, 0),
    metrics: rows.map((r) => ({ metric_name: r.metric_name, total_quantity: r.total_quantity, event_count: r.event_count })),
  };
}

export async function usageAggregation(
  rc: ReadContext,
  q: { start_date: string; end_date: string; subscription_id?: string; metric_name?: string },
): Promise<UsageAggregation> {
  const range = parseDateRange(q.start_date, q.end_date);
  const filter = await subscriptionFilter(rc, q.subscription_id);
  if (q.metric_name !== undefined) filter.metricName = q.metric_name;
  const rows = await queryUsageByMetric(rc.lake, { organizationId: rc.organizationId, range }, filter);
  return {
    aggregations: rows.map((r) => ({
      metric_name: r.metric_name,
      total_quantity: r.total_quantity,
      event_count: r.event_count,
      first_event_at: r.first_event_at.toISOString(),
      last_event_at: r.last_event_at.toISOString(),
    })),
    period_start: range.start.toISOString(),
    period_end: range.end.toISOString(),
    total_events: rows.reduce((n, r) => n + r.event_count, 0),
  };
}
