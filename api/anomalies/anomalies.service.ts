// /anomalies: the cost spikes of an organization's series (end user, agent, model, feature) on the
// asked UTC dates, by the rule of anomalies.ts over {{costs}}; also what the cost.anomaly webhook
// tick (anomaly-alerts.ts) evaluates, so the webhook and the GET never disagree.
import { DateRangeTooLargeError } from '../../core/errors.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { Big, formatMoney, toBig } from '../../core/money.js';
import { DAY_MS, parseDateRange, utcDate } from '../../core/time.js';
import type { LakeQuery } from '../lake/lake-query.js';
import { detectSpike, spikeBaseline, WINDOW_DAYS, type DailyCosts } from './anomalies.js';
import { queryDailyCosts, type DailyCostRow } from './anomalies.queries.js';
import type { Anomaly, AnomalyContributor, AnomalyDimension, AnomalyList } from './anomalies.types.js';

const MAX_ANOMALY_RANGE_DAYS = 90;

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

/** In each other dimension, the value whose cost rose most above its own baseline on `date`. */
function contributorsOf(series: Series, date: string): AnomalyContributor[] {
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
      const cost = costs.get(date) ?? new Big(0);
      const baseline = spikeBaseline(date, costs);
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

/** The spikes of the organization's series on each of `dates` (UTC, YYYY-MM-DD, ascending), by date then increase. */
export async function costAnomalies(lake: LakeQuery, organizationId: string, dates: readonly string[]): Promise<Anomaly[]> {
  if (dates.length === 0) return [];
  const first = Date.parse(`${dates[0]}T00:00:00Z`);
  const last = Date.parse(`${dates[dates.length - 1]}T00:00:00Z`);
  const range = { start: new Date(first - WINDOW_DAYS * DAY_MS), end: new Date(last + DAY_MS) };
  const series = seriesOf(await queryDailyCosts(lake, organizationId, range));
  const items: Anomaly[] = [];
  for (const date of dates) {
    const found: Anomaly[] = [];
    for (const s of series) {
      const spike = detectSpike(date, s.costs as DailyCosts);
      if (!spike) continue;
      found.push({
        date,
        dimension: s.dimension,
        value: s.value,
        cost: formatMoney(spike.cost),
        baseline: formatMoney(spike.baseline),
        increase: formatMoney(spike.cost.minus(spike.baseline)),
        ratio: round2(spike.ratio),
        z_score: round2(spike.zScore),
        contributors: contributorsOf(s, date),
      });
    }
    found.sort((a, b) => new Big(b.increase).cmp(a.increase) || a.dimension.localeCompare(b.dimension) || (a.value < b.value ? -1 : 1));
    items.push(...found);
  }
  return items;
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
  return { items: await costAnomalies(rc.lake, rc.organizationId, datesOf(range, rc.now())) };
}
