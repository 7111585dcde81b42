// /anomalies: the cost spikes of an organization's series (end user, agent, model, feature) on the
// asked UTC dates, by the rule of anomalies.ts over {{costs}}; also what the cost.anomaly webhook
// tick (anomaly-alerts.ts) evaluates, so the webhook and the GET never disagree. When the dates
// include today (UTC), each completed hour of today is also judged against the same hour of the
// previous 28 days (detectHourlySpike, the same rule); those items carry `hour`.
import { DateRangeTooLargeError } from '../../core/errors.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { Big, formatMoney, toBig } from '../../core/money.js';
import { DAY_MS, parseDateRange, utcDate } from '../../core/time.js';
import type { LakeQuery } from '../lake/lake-query.js';
import { detectHourlySpike, detectSpike, hourlySpikeBaseline, spikeBaseline, WINDOW_DAYS, type Spike } from './anomalies.js';
import { queryDailyCosts, queryHourlyCosts, type DailyCostRow } from './anomalies.queries.js';
import type { Anomaly, AnomalyContributor, AnomalyDimension, AnomalyList } from './anomalies.types.js';

const MAX_ANOMALY_RANGE_DAYS = 90;
const HOUR_MS = 3_600_000;

/** The rule at one grain: a slot is a date ('YYYY-MM-DD') or an hour ('YYYY-MM-DDTHH:00:00Z'). */
interface Grain {
  detect: (slot: string, costs: ReadonlyMap<string, Big>) => Spike | null;
  baseline: (slot: string, costs: ReadonlyMap<string, Big>) => Big;
}
const DAILY: Grain = { detect: detectSpike, baseline: spikeBaseline };
const HOURLY: Grain = { detect: detectHourlySpike, baseline: hourlySpikeBaseline };

/** Dimensions in the order a tie between contributors is broken. */
const DIMENSIONS: ReadonlyArray<{ dimension: AnomalyDimension; valueIn: (r: DailyCostRow) => string | null }> = [
  { dimension: 'model', valueIn: (r) => r.model },
  { dimension: 'agent', valueIn: (r) => r.agent_id },
  { dimension: 'feature', valueIn: (r) => r.feature },
  { dimension: 'end_user', valueIn: (r) => (r.end_user_id === null ? null : r.user_id) },
];

/** Per series: its rows (for contributors) and its cost per day. */
interface Series {
  dimension: AnomalyDimension;
  value: string;
  rows: DailyCostRow[];
  costs: Map<string, Big>;
}

function addCost(costs: Map<string, Big>, day: string, cost: string): void {
  costs.set(day, (costs.get(day) ?? new Big(0)).plus(toBig(cost)));
}

/** Rows grouped into series; rows without a value of a dimension form no series of it. */
function seriesOf(rows: readonly DailyCostRow[]): Series[] {
  const out = new Map<string, Series>();
  for (const row of rows) {
    for (const { dimension, valueIn } of DIMENSIONS) {
      const value = valueIn(row);
      if (value === null) continue;
      const key = `${dimension}\u0000${value}`;
      let s = out.get(key);
      if (!s) out.set(key, (s = { dimension, value, rows: [], costs: new Map() }));
      s.rows.push(row);
      addCost(s.costs, row.day, row.cost);
    }
  }
  return [...out.values()];
}

/** In each other dimension, the value whose cost rose most above its own baseline in `slot`. */
function contributorsOf(series: Series, slot: string, grain: Grain): AnomalyContributor[] {
  const out: AnomalyContributor[] = [];
  for (const { dimension, valueIn } of DIMENSIONS) {
    if (dimension === series.dimension) continue;
    const slices = new Map<string, Map<string, Big>>();
    for (const row of series.rows) {
      const value = valueIn(row);
      if (value === null) continue;
      if (!slices.has(value)) slices.set(value, new Map());
      addCost(slices.get(value)!, row.day, row.cost);
    }
    let top: AnomalyContributor | null = null;
    for (const [value, costs] of slices) {
      const cost = costs.get(slot) ?? new Big(0);
      const baseline = grain.baseline(slot, costs);
      const increase = cost.minus(baseline);
      if (increase.gt(0) && (top === null || increase.gt(top.increase))) {
        top = { dimension, value, cost: formatMoney(cost), baseline: formatMoney(baseline), increase: formatMoney(increase) };
      }
    }
    if (top) out.push(top);
  }
  // Stable sort: equal increases keep DIMENSIONS' order.
  return out.sort((a, b) => new Big(b.increase).cmp(a.increase));
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The spikes of these series in each slot (ascending), by slot then increase; `hour` set for hourly slots. */
function spikesOf(series: readonly Series[], slots: readonly string[], grain: Grain): Anomaly[] {
  const items: Anomaly[] = [];
  for (const slot of slots) {
    const found: Anomaly[] = [];
    for (const s of series) {
      const spike = grain.detect(slot, s.costs);
      if (!spike) continue;
      found.push({
        date: slot.slice(0, 10),
        ...(grain === HOURLY ? { hour: slot } : {}),
        dimension: s.dimension,
        value: s.value,
        cost: formatMoney(spike.cost),
        baseline: formatMoney(spike.baseline),
        increase: formatMoney(spike.cost.minus(spike.baseline)),
        ratio: round2(spike.ratio),
        z_score: round2(spike.zScore),
        contributors: contributorsOf(s, slot, grain),
      });
    }
    found.sort((a, b) => new Big(b.increase).cmp(a.increase) || a.dimension.localeCompare(b.dimension) || (a.value < b.value ? -1 : 1));
    items.push(...found);
  }
  return items;
}

/** The completed hours of today (UTC) before `now`, as 'YYYY-MM-DDTHH:00:00Z'. */
function completedHoursOfToday(now: Date): string[] {
  const midnight = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const out: string[] = [];
  for (let h = midnight; h + HOUR_MS <= now.getTime(); h += HOUR_MS) out.push(`${new Date(h).toISOString().slice(0, 13)}:00:00Z`);
  return out;
}

/**
 * The spikes of the organization's series on each of `dates` (UTC, YYYY-MM-DD, ascending), by date
 * then increase; when `dates` include today, then each completed hour of today (items with `hour`).
 */
export async function costAnomalies(lake: LakeQuery, organizationId: string, dates: readonly string[], now: Date): Promise<Anomaly[]> {
  if (dates.length === 0) return [];
  const first = Date.parse(`${dates[0]}T00:00:00Z`);
  const last = Date.parse(`${dates[dates.length - 1]}T00:00:00Z`);
  const range = { start: new Date(first - WINDOW_DAYS * DAY_MS), end: new Date(last + DAY_MS) };
  const items = spikesOf(seriesOf(await queryDailyCosts(lake, organizationId, range)), dates, DAILY);
  const hours = dates.includes(utcDate(now)) ? completedHoursOfToday(now) : [];
  if (hours.length === 0) return items;
  const today = Date.parse(`${utcDate(now)}T00:00:00Z`);
  const hourRange = { start: new Date(today - WINDOW_DAYS * DAY_MS), end: new Date(Date.parse(hours[hours.length - 1]!) + HOUR_MS) };
  const hourly = spikesOf(seriesOf(await queryHourlyCosts(lake, organizationId, hourRange)), hours, HOURLY);
  return [...items, ...hourly];
}

/** The UTC dates whose day overlaps [start, end), none after today. */
function datesOf(range: { start: Date; end: Date }, now: Date): string[] {
  const out: string[] = [];
  const stop = Math.min(range.end.getTime(), Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS);
  for (let day = Math.floor(range.start.getTime() / DAY_MS) * DAY_MS; day < stop; day += DAY_MS) out.push(utcDate(new Date(day)));
  return out;
}

export async function listAnomalies(rc: ReadContext, startDate: string, endDate: string): Promise<AnomalyList> {
  const range = parseDateRange(startDate, endDate);
  if (range.end.getTime() - range.start.getTime() > MAX_ANOMALY_RANGE_DAYS * DAY_MS) {
    throw new DateRangeTooLargeError('end_date', `${MAX_ANOMALY_RANGE_DAYS} days`);
  }
  const now = rc.now();
  return { items: await costAnomalies(rc.lake, rc.organizationId, datesOf(range, now), now) };
}
