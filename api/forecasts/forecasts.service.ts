// /forecasts and /forecasts/price-advice: reads completed cost per UTC day and end user from the
// lake (the last 56 complete days, the window, today so far) and, with revenue:read, the
// organization's revenue records of active sources (revenue's cache), then hands them to the pure
// rules (forecasts.ts, forecast-method.ts). Revenue is the recognized schedule of billing periods
// already known (revenue/recognize-revenue.ts), never forecast. It reads only.
import { compareCodePoints } from '../../core/compare.js';
import { ValidationError } from '../../core/errors.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { Big, formatMoney, toBig } from '../../core/money.js';
import { DAY_MS, utcDate } from '../../core/time.js';
import { cachedRevenue } from '../../revenue/revenue-cache.js';
import { activeRevenueSources } from '../../revenue/revenue-sources.js';
import { isRecognizedIn, recognizeRevenue } from '../../revenue/recognize-revenue.js';
import type { MarginRevenueRecord } from '../../revenue/margin.js';
import { marginPercent } from '../../revenue/profitability.js';
import type { LakeQuery } from '../lake/lake-query.js';
import { HISTORY_DAYS } from './forecast-method.js';
import {
  costFigure,
  dayStart,
  epochDay,
  FORECAST_METHOD,
  figureOut,
  horizonWindow,
  reachesTarget,
  requiredPrice,
  revenueAndMargin,
  type DayCosts,
  type DayWindow,
} from './forecasts.js';
import { queryEndUserDayCosts } from './forecasts.queries.js';
import type { EndUserForecast, Forecast, ForecastHorizon, PriceAdvice, PriceAdviceList } from './forecasts.types.js';

const HORIZONS: readonly ForecastHorizon[] = ['month-end', 'next-30-days'];
const DEFAULT_TARGET_MARGIN_PERCENT = 40;
/** The earliest cost a billing period's observed part reaches back to (longer contracts count from here). */
const MAX_PERIOD_DAYS = 400;

/** Cost per epoch day: the organization's and each end user's (with its external id). */
interface CostsByDay {
  organization: Map<number, Big>;
  endUsers: Map<string, { externalId: string | null; costs: Map<number, Big> }>;
}

function add(costs: Map<number, Big>, day: number, cost: Big): void {
  costs.set(day, (costs.get(day) ?? new Big(0)).plus(cost));
}

/** Completed cost per day from `fromDay` to now, for the organization and per end user. */
async function costsByDay(lake: LakeQuery, organizationId: string, fromDay: number, now: Date): Promise<CostsByDay> {
  const rows = await queryEndUserDayCosts(lake, organizationId, { start: dayStart(fromDay), end: now });
  const out: CostsByDay = { organization: new Map(), endUsers: new Map() };
  for (const r of rows) {
    const day = Date.parse(`${r.day}T00:00:00Z`) / DAY_MS;
    const cost = toBig(r.cost);
    add(out.organization, day, cost);
    if (r.end_user_id === null) continue;
    let e = out.endUsers.get(r.end_user_id);
    if (!e) out.endUsers.set(r.end_user_id, (e = { externalId: r.user_id, costs: new Map() }));
    add(e.costs, day, cost);
  }
  return out;
}

/** Revenue records of active sources (revenue's own cache and rule of which sources count). */
async function activeRecords(rc: ReadContext): Promise<MarginRevenueRecord[]> {
  const [active, revenue] = await Promise.all([activeRevenueSources(rc.db, rc.organizationId), cachedRevenue(rc.db, rc.organizationId)]);
  return revenue.records.filter((r) => active.has(r.source));
}

/** Revenue recognized in the window: the organization's (every record) and per internal end-user id. */
function revenueIn(records: readonly MarginRevenueRecord[], window: DayWindow): { total: Big; byEndUser: Map<string, Big> } {
  const range = { start: dayStart(window.startDay), end: dayStart(window.endDay) };
  let total = new Big(0);
  const byEndUser = new Map<string, Big>();
  for (const r of records) {
    if (!isRecognizedIn(r, range)) continue;
    const amount = recognizeRevenue(r, range);
    total = total.plus(amount);
    if (r.endUserId !== null) byEndUser.set(r.endUserId, (byEndUser.get(r.endUserId) ?? new Big(0)).plus(amount));
  }
  return { total, byEndUser };
}

function horizonOf(raw: string | undefined): ForecastHorizon {
  if (raw === undefined) return 'month-end';
  if (!HORIZONS.includes(raw as ForecastHorizon)) throw new ValidationError('horizon', `must be one of ${HORIZONS.join(', ')}`);
  return raw as ForecastHorizon;
}

/** The window's cost, revenue and margin for the organization and each end user; revenue only when `withRevenue`. */
export async function forecastOf(rc: ReadContext, horizonRaw: string | undefined, withRevenue: boolean): Promise<Forecast> {
  const horizon = horizonOf(horizonRaw);
  const now = rc.now();
  const window = horizonWindow(horizon, now);
  const fromDay = Math.min(window.startDay, epochDay(now) - HISTORY_DAYS);
  const [costs, records] = await Promise.all([
    costsByDay(rc.lake, rc.organizationId, fromDay, now),
    withRevenue ? activeRecords(rc) : null,
  ]);
  const revenue = records ? revenueIn(records, window) : null;
  const org = costFigure(costs.organization, now, window);
  const orgMargin = revenue ? revenueAndMargin(revenue.total, org) : null;
  const ids = new Set([...costs.endUsers.keys(), ...(revenue?.byEndUser.keys() ?? [])]);
  const endUsers: EndUserForecast[] = [...ids].sort(compareCodePoints).map((id) => {
    const e = costs.endUsers.get(id);
    const cost = costFigure(e?.costs ?? new Map(), now, window);
    const known = revenue?.byEndUser.get(id);
    const m = known === undefined ? null : revenueAndMargin(known, cost);
    return {
      end_user_id: id,
      external_id: e?.externalId ?? records?.find((r) => r.endUserId === id)?.externalUserId ?? null,
      cost: figureOut(cost),
      revenue: m && figureOut(m.revenue),
      margin: m && figureOut(m.margin),
    };
  });
  return {
    horizon,
    as_of: now.toISOString(),
    start_date: utcDate(dayStart(window.startDay)),
    end_date: utcDate(dayStart(window.endDay)),
    method: FORECAST_METHOD,
    observed_cost: formatMoney(org.observed),
    cost: figureOut(org),
    revenue: orgMargin && figureOut(orgMargin.revenue),
    margin: orgMargin && figureOut(orgMargin.margin),
    end_users: endUsers,
  };
}

function targetOf(raw: number | undefined): Big {
  if (raw === undefined) return new Big(DEFAULT_TARGET_MARGIN_PERCENT);
  if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < 0 || raw >= 100) {
    throw new ValidationError('target_margin_percent', 'must be a number from 0 up to (not including) 100');
  }
  return toBig(raw);
}

/** Per end user, the record covering `now` whose billing period started last (ties: ends last). */
function currentPeriods(records: readonly MarginRevenueRecord[], now: Date): Map<string, MarginRevenueRecord> {
  const out = new Map<string, MarginRevenueRecord>();
  const t = now.getTime();
  for (const r of records) {
    if (r.endUserId === null || r.periodStart.getTime() > t || r.periodEnd.getTime() <= t) continue;
    const seen = out.get(r.endUserId);
    const later = !seen || r.periodStart > seen.periodStart || (+r.periodStart === +seen.periodStart && r.periodEnd > seen.periodEnd);
    if (later) out.set(r.endUserId, r);
  }
  return out;
}

/** Each customer's price per billing period that reaches the target margin under the forecast cost. */
export async function priceAdviceOf(rc: ReadContext, targetRaw: number | undefined): Promise<PriceAdviceList> {
  const target = targetOf(targetRaw);
  const now = rc.now();
  const today = epochDay(now);
  const records = await activeRecords(rc);
  const periods = currentPeriods(records, now);
  const firstStart = Math.min(today, ...[...periods.values()].map((r) => epochDay(r.periodStart)));
  const fromDay = Math.max(today - MAX_PERIOD_DAYS, Math.min(firstStart, today - HISTORY_DAYS));
  const costs = await costsByDay(rc.lake, rc.organizationId, fromDay, now);
  const byEndUser = new Map<string | null, MarginRevenueRecord[]>();
  for (const r of records) {
    const list = byEndUser.get(r.endUserId);
    if (list) list.push(r);
    else byEndUser.set(r.endUserId, [r]);
  }
  const customers: PriceAdvice[] = [];
  for (const [id, period] of periods) {
    const range = { start: period.periodStart, end: period.periodEnd };
    const price = (byEndUser.get(id) ?? [])
      .filter((r) => isRecognizedIn(r, range))
      .reduce((s, r) => s.plus(recognizeRevenue(r, range)), new Big(0));
    // The period in whole UTC days: both bounds taken at the start of their date.
    const window = { startDay: epochDay(period.periodStart), endDay: epochDay(period.periodEnd) };
    const cost = costFigure(costs.endUsers.get(id)?.costs ?? (new Map() as DayCosts), now, window);
    customers.push({
      end_user_id: id,
      external_id: costs.endUsers.get(id)?.externalId ?? period.externalUserId,
      period_start: utcDate(dayStart(window.startDay)),
      period_end: utcDate(dayStart(window.endDay)),
      current_price: formatMoney(price),
      forecast_cost: figureOut(cost),
      forecast_margin_percent: marginPercent(toBig(formatMoney(price)), cost.value),
      required_price: requiredPrice(cost.value, target).toFixed(2),
      reaches_target: reachesTarget(price, cost.value, target),
    });
  }
  customers.sort((a, b) => Number(a.reaches_target) - Number(b.reaches_target) || compareCodePoints(a.end_user_id, b.end_user_id));
  return { as_of: now.toISOString(), target_margin_percent: target.toNumber(), method: FORECAST_METHOD, customers };
}
