// /margin-data: revenue records of active connections (control plane) and completed costs (lake)
// for one organization, handed to the margin rules. Ranges are capped at 12 months (422).
import { isUuid } from '../../core/ids.js';
import { activeRevenueSources } from '../../revenue/revenue-sources.js';
import { ValidationError } from '../../core/errors.js';
import { adaptiveGranularity, assertMaxMonths, parseDateRange, type DateRange } from '../../core/time.js';
import { columnKey, queryCostBuckets, queryCostGroups } from '../costs/costs.queries.js';
import type { ReadContext } from '../../core/http/read-context.js';
import {
  marginByEndUser,
  marginOrgTotal,
  marginTrend,
  type EndUserCost,
  type EndUserIdentity,
  type MarginCosts,
  type MarginRevenueRecord,
} from '../../revenue/margin.js';
import type { MarginByEndUser, MarginSummary, MarginTrend } from '../../revenue/margin.types.js';
import { isRecognizedIn } from '../../revenue/recognize-revenue.js';
import { cachedRevenue } from '../../revenue/revenue-cache.js';

/** The spec's margin date range: both dates, start before end, at most 12 months. */
function marginRange(startDate: string, endDate: string): DateRange {
  const range = parseDateRange(startDate, endDate);
  assertMaxMonths(range, 12);
  return range;
}

/**
 * Records of active connections overlapping the range (end users resolved), whether any source is
 * active, and the end users' names from the revenue source.
 */
async function revenueIn(
  rc: ReadContext,
  range: DateRange,
): Promise<{ records: MarginRevenueRecord[]; connected: boolean; names: Map<string, EndUserIdentity> }> {
  const [active, revenue] = await Promise.all([activeRevenueSources(rc.db, rc.organizationId), cachedRevenue(rc.db, rc.organizationId)]);
  return {
    connected: active.size > 0,
    records: revenue.records.filter((r) => active.has(r.source) && isRecognizedIn(r, range)),
    names: revenue.names,
  };
}

async function costsIn(rc: ReadContext, range: DateRange): Promise<MarginCosts> {
  const rows = await queryCostGroups(rc.lake, { organizationId: rc.organizationId, range }, columnKey('end_user_id'), {}, 'totals');
  const byEndUser: EndUserCost[] = [];
  let unattributed = { cost: '0', eventCount: 0 };
  for (const r of rows) {
    const cost = r.total_cost ?? '0';
    const eventCount = r.event_count ?? 0;
    if (r.group_value === null) unattributed = { cost, eventCount };
    else byEndUser.push({ endUserId: r.group_value, externalId: r.external_id ?? null, cost, eventCount });
  }
  return { byEndUser, unattributed };
}

export async function marginForEndUsers(rc: ReadContext, startDate: string, endDate: string): Promise<MarginByEndUser> {
  const window = marginRange(startDate, endDate);
  const [revenue, costs] = await Promise.all([revenueIn(rc, window), costsIn(rc, window)]);
  return marginByEndUser({ window, records: revenue.records, costs, endUsers: revenue.names, connected: revenue.connected });
}

export async function marginSummary(rc: ReadContext, startDate: string, endDate: string): Promise<MarginSummary> {
  const window = marginRange(startDate, endDate);
  const [revenue, costs] = await Promise.all([revenueIn(rc, window), costsIn(rc, window)]);
  return marginOrgTotal({ window, records: revenue.records, costs, connected: revenue.connected });
}

export async function marginTrendOf(
  rc: ReadContext,
  q: { start_date: string; end_date: string; end_user_id?: string },
): Promise<MarginTrend> {
  const window = marginRange(q.start_date, q.end_date);
  if (q.end_user_id !== undefined && !isUuid(q.end_user_id)) {
    throw new ValidationError('end_user_id', 'must be the internal end-user UUID from /margin-data/by-end-user');
  }
  const endUserId = q.end_user_id?.toLowerCase();
  const granularity = adaptiveGranularity(window);
  const [revenue, buckets] = await Promise.all([
    revenueIn(rc, window),
    queryCostBuckets(rc.lake, { organizationId: rc.organizationId, range: window }, granularity, null, endUserId ? { endUserId } : {}),
  ]);
  return marginTrend({
    window,
    granularity,
    records: endUserId ? revenue.records.filter((r) => r.endUserId === endUserId) : revenue.records,
    costs: buckets.map((b) => ({ bucket: new Date(`${b.bucket}T00:00:00.000Z`), cost: b.total_cost, eventCount: b.event_count })),
  });
}
