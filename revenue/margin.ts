// Margin rules over plain data: per-end-user rows (least profitable first), the org_total, the
// warnings and the trend buckets. Revenue is recognized on an accrual basis (recognize-revenue.ts);
// cost belongs to the instant of its event. The caller reads records and costs; nothing here does I/O.
import { Big, formatMoney, sumMoney, toBig } from '../core/money.js';
import { bucketStarts, nextBucket, type DateRange, type Granularity } from '../core/time.js';
import { endUserName } from '../core/control/end-users.js';
import { latestNamedRecords } from './customer-names.js';
import { marginFigures, sortLeastProfitableFirst } from './profitability.js';
import { isRecognizedIn, recognizeRevenue, type RecognizableRevenue } from './recognize-revenue.js';
import type { EndUserMarginRow, MarginByEndUser, MarginOrgTotal, MarginTrend, MarginWarning } from './margin.types.js';

/** A revenue record of an active source, with its end user resolved. */
export interface MarginRevenueRecord extends RecognizableRevenue {
  /** Internal end-user id (UUIDv5 of organization + external id); null = unattributed. */
  endUserId: string | null;
  /** The end user's external id as the record names it. */
  externalUserId: string | null;
  customerName: string | null;
}

export interface EndUserCost {
  endUserId: string;
  /** The external id the events carried (`user_id`). */
  externalId: string | null;
  cost: string;
  eventCount: number;
}

export interface MarginCosts {
  byEndUser: readonly EndUserCost[];
  unattributed: { cost: string; eventCount: number };
}

export interface EndUserIdentity {
  externalId: string;
  /** The customer name known from a revenue source, if any. */
  name: string | null;
}

export interface MarginInput {
  window: DateRange;
  /** Records of active revenue sources (others are ignored by the caller). */
  records: readonly MarginRevenueRecord[];
  costs: MarginCosts;
  /** Known end users by internal id. */
  endUsers: ReadonlyMap<string, EndUserIdentity>;
  /** An active revenue connection exists. */
  connected: boolean;
}

interface RowAccumulator {
  revenue: Big;
  cost: Big;
  externalId: string | null;
}

/** A record's share of the window, computed once per request. */
interface Recognized {
  rec: MarginRevenueRecord;
  amount: Big;
}

/** Records whose billing period overlaps the window, with the amount it recognizes. */
function recognizedIn(records: readonly MarginRevenueRecord[], window: DateRange): Recognized[] {
  const out: Recognized[] = [];
  for (const rec of records) if (isRecognizedIn(rec, window)) out.push({ rec, amount: recognizeRevenue(rec, window) });
  return out;
}

export function marginByEndUser(input: MarginInput): MarginByEndUser {
  const recognized = recognizedIn(input.records, input.window);
  const rows = new Map<string, RowAccumulator>();
  const rowOf = (id: string): RowAccumulator => {
    let r = rows.get(id);
    if (!r) rows.set(id, (r = { revenue: new Big(0), cost: new Big(0), externalId: null }));
    return r;
  };

  for (const { rec, amount } of recognized) {
    if (rec.endUserId === null) continue;
    const r = rowOf(rec.endUserId);
    r.revenue = r.revenue.plus(amount);
    r.externalId ??= rec.externalUserId;
  }
  for (const c of input.costs.byEndUser) {
    const r = rowOf(c.endUserId);
    r.cost = r.cost.plus(toBig(c.cost));
    if (c.externalId !== null) r.externalId = c.externalId;
  }

  // An end user the caller does not know by name may still be named by a record in the window.
  const recordNames = latestNamedRecords(
    recognized.map((x) => x.rec),
    (rec) => rec.endUserId,
  );
  const endUsers: EndUserMarginRow[] = [...rows].map(([id, r]) => {
    const known = input.endUsers.get(id);
    const name = known?.name ?? recordNames.get(id)?.customerName;
    return {
      end_user_id: id,
      end_user_name: endUserName({ name, externalId: known?.externalId ?? r.externalId }, id),
      ...marginFigures(r.revenue, r.cost),
    };
  });
  return {
    end_users: sortLeastProfitableFirst(endUsers),
    org_total: orgTotalOf(input, recognized),
    warnings: warningsOf(input, recognized),
  };
}

/** Every recognized record and every event of the window, attributed or not. */
export function marginOrgTotal(input: Omit<MarginInput, 'endUsers'>): MarginOrgTotal {
  return orgTotalOf(input, recognizedIn(input.records, input.window));
}

function orgTotalOf(input: Omit<MarginInput, 'endUsers'>, recognized: readonly Recognized[]): MarginOrgTotal {
  const { window } = input;
  const revenue = sumMoney(recognized.map((r) => r.amount));
  // The spec's diagnostic: raw amounts of unattributed records whose period starts in the window.
  const startsInWindow = (rec: MarginRevenueRecord) =>
    rec.periodStart.getTime() >= window.start.getTime() && rec.periodStart.getTime() < window.end.getTime();
  const unattributedRevenue = sumMoney(
    input.records.filter((rec) => rec.endUserId === null && startsInWindow(rec)).map((rec) => rec.amount),
  );
  const { unattributed, byEndUser } = input.costs;
  const cost = sumMoney([unattributed.cost, ...byEndUser.map((c) => c.cost)]);
  const costRecords = byEndUser.reduce((n, c) => n + c.eventCount, unattributed.eventCount);
  const m = marginFigures(revenue, cost);
  return {
    total_revenue: m.revenue,
    total_cost: m.cost,
    margin_amount: m.margin_amount,
    margin_percent: m.margin_percent,
    profitability_category: m.profitability_category,
    revenue_record_count: recognized.length,
    cost_record_count: costRecords,
    unattributed_revenue: formatMoney(unattributedRevenue),
    unattributed_cost: formatMoney(input.costs.unattributed.cost),
  };
}

/**
 * unattributed_revenue counts the records without an end user that total_revenue recognizes;
 * unattributed_cost the events without one; revenue_not_connected has count 0. Fixed order.
 */
function warningsOf(input: Omit<MarginInput, 'endUsers'>, recognized: readonly Recognized[]): MarginWarning[] {
  const warnings: MarginWarning[] = [];
  const unattributed = recognized.filter((r) => r.rec.endUserId === null);
  if (unattributed.length > 0) {
    const amount = formatMoney(sumMoney(unattributed.map((r) => r.amount)));
    warnings.push({
      type: 'unattributed_revenue',
      count: unattributed.length,
      message: `${unattributed.length} revenue record(s) name no end user; ${amount} USD of recognized revenue is in org_total but in no end-user row.`,
    });
  }
  const u = input.costs.unattributed;
  if (u.eventCount > 0) {
    warnings.push({
      type: 'unattributed_cost',
      count: u.eventCount,
      message: `${u.eventCount} usage event(s) carry no user_id; ${formatMoney(u.cost)} USD of cost is in org_total but in no end-user row.`,
    });
  }
  if (!input.connected) {
    warnings.push({
      type: 'revenue_not_connected',
      count: 0,
      message: 'No revenue source is connected, so revenue reads "0". Import revenue records or connect Stripe through the admin API.',
    });
  }
  return warnings;
}

export interface CostBucket {
  /** Bucket start (UTC) as the granularity defines it. */
  bucket: Date;
  cost: string;
  eventCount: number;
}

/**
 * One point per bucket of the window (edge buckets clipped to it) holding revenue or events;
 * revenue of each bucket is recognized over bucket ∩ window, so the buckets sum to the window.
 */
export function marginTrend(input: {
  window: DateRange;
  granularity: Granularity;
  records: readonly RecognizableRevenue[];
  costs: readonly CostBucket[];
}): MarginTrend {
  const { window, granularity } = input;
  const costAt = new Map(input.costs.map((c) => [c.bucket.getTime(), c]));
  // Recognition is linear in the amount, so records sharing a billing period (every monthly
  // invoice of a month) are summed first and recognized once per bucket.
  const byPeriod = new Map<string, RecognizableRevenue & { sum: Big }>();
  for (const rec of input.records) {
    const key = `${rec.periodStart.getTime()}/${rec.periodEnd.getTime()}`;
    const g = byPeriod.get(key);
    if (g) g.sum = g.sum.plus(toBig(rec.amount));
    else byPeriod.set(key, { amount: '0', periodStart: rec.periodStart, periodEnd: rec.periodEnd, sum: toBig(rec.amount) });
  }
  const periods = [...byPeriod.values()].map((g) => ({ ...g, amount: g.sum.toFixed() }));
  const starts = bucketStarts(window, granularity);
  const data_points = [];
  for (const start of starts) {
    const slice: DateRange = {
      start: new Date(Math.max(start.getTime(), window.start.getTime())),
      end: new Date(Math.min(nextBucket(start, granularity).getTime(), window.end.getTime())),
    };
    const inSlice = periods.filter((rec) => isRecognizedIn(rec, slice));
    const hasRevenue = inSlice.length > 0;
    const revenue = sumMoney(inSlice.map((rec) => recognizeRevenue(rec, slice)));
    const c = costAt.get(start.getTime());
    if (!hasRevenue && !(c && c.eventCount > 0)) continue; // gaps are omitted, not zeros
    const m = marginFigures(revenue, c?.cost ?? '0');
    data_points.push({
      date: start.toISOString(),
      revenue: m.revenue,
      cost: m.cost,
      margin_amount: m.margin_amount,
      margin_percent: m.margin_percent,
    });
  }
  return { data_points, granularity };
}
