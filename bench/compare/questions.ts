// The questions bench/compare asks every engine: bench/api's cost questions over the large
// organization, each as Marginal's HTTP request and as SQL for each engine, and both answers as
// comparable figures (key → event count and exact decimal cost). SQL is written once over a
// dialect: engines with rollups answer whole UTC days from the daily rollups and the partial days
// at a range's ends from raw events (what Marginal does); raw engines scan events only. Values in
// the SQL are this benchmark's own ids and dates (checked below), never outside text.
import { splitWholeDays } from '../../api/lake/lake-query.js';
import { Big, sumMoney, toBig } from '../../core/money.js';
import { timeWindow, type DateRange } from '../../core/time.js';

/** One figure of an answer; events undefined when the HTTP answer does not carry a count. */
export interface Figure {
  events?: number;
  cost: string;
}
export type Answer = Map<string, Figure>;

/** How one engine writes the pieces of SQL that differ. */
export interface Dialect {
  /** True when the daily rollups (daily_costs, daily_team_costs) exist. */
  rollups: boolean;
  /** The raw events relation (a table, or a Parquet scan of the organization's files). */
  events: string;
  timestamp(iso: string): string;
  date(ymd: string): string;
  /** ISO-week start (Monday) of a DATE expression, as 'YYYY-MM-DD' text. */
  week(dateExpr: string): string;
  text(expr: string): string;
  /** The metadata key `team` of an events row, NULL when absent. */
  team: string;
}

export interface QuestionContext {
  organizationId: string;
  /** The internal end-user id of external id user-0. */
  user0: string;
  /** First UTC day of data and the day after the last one ('YYYY-MM-DD'). */
  firstDay: string;
  endDay: string;
  /** The api's clock. */
  now: Date;
}

export interface Question {
  name: string;
  path: string;
  query: Record<string, string>;
  sql(d: Dialect): string;
  /** Marginal's JSON answer as figures. */
  fromHttp(body: any): Answer;
  /** An engine's rows (keys…, events, cost) as figures, given Marginal's answer where the shape depends on it. */
  fromRows(rows: unknown[][], marginal: Answer): Answer;
}

type Rollup = 'daily_costs' | 'daily_team_costs';
interface Source {
  from: string;
  events: string;
  where: string;
  team: string;
  date: string;
}

const SAFE = /^[A-Za-z0-9_-]+$/;

function sources(d: Dialect, org: string, rollup: Rollup, range: DateRange): Source[] {
  const raw = (r: DateRange): Source => ({
    from: d.events,
    events: '1',
    where: `organization_id = '${org}' AND status = 'completed' AND event_timestamp >= ${d.timestamp(r.start.toISOString())} AND event_timestamp < ${d.timestamp(r.end.toISOString())}`,
    team: d.team,
    date: 'event_date',
  });
  if (!d.rollups) return [raw(range)];
  const split = splitWholeDays(range);
  const out: Source[] = [];
  if (split.wholeDays) {
    const ymd = (t: Date) => t.toISOString().slice(0, 10);
    out.push({
      from: rollup,
      events: 'events',
      where: `organization_id = '${org}' AND status = 'completed' AND day >= ${d.date(ymd(split.wholeDays.start))} AND day < ${d.date(ymd(split.wholeDays.end))}`,
      team: 'team',
      date: 'day',
    });
  }
  return [...out, ...split.partial.map(raw)];
}

/** SELECT keys…, events, cost grouped by the keys, over the sources of a range. */
function grouped(d: Dialect, org: string, rollup: Rollup, range: DateRange, keys: (s: Source) => string[], filter = ''): string {
  const parts = sources(d, org, rollup, range).map((s) => {
    const k = keys(s).map((e, i) => `${e} AS k${i}`);
    return `SELECT ${[...k, `${s.events} AS n`, 'total_cost AS c'].join(', ')} FROM ${s.from} WHERE ${s.where}${filter}`;
  });
  const names = keys({ from: '', events: '', where: '', team: '', date: '' }).map((_, i) => `k${i}`);
  const groupBy = names.length ? ` GROUP BY ${names.map((_, i) => i + 1).join(', ')}` : '';
  return `SELECT ${[...names, d.text('sum(n)'), d.text('sum(c)')].join(', ')} FROM (${parts.join(' UNION ALL ')}) x${groupBy}`;
}

/** Figures from rows of (keys…, events, cost); a NULL key reads as `nullLabel`; adds 'total' when asked. */
function figures(rows: unknown[][], nullLabel: string, total = false): Answer {
  const out: Answer = new Map();
  for (const r of rows) {
    const keys = r.slice(0, -2).map((v) => (v === null ? nullLabel : String(v)));
    out.set(keys.join('|'), { events: Number(r.at(-2)), cost: String(r.at(-1)) });
  }
  if (total) out.set('total', { cost: sumMoney(rows.map((r) => String(r.at(-1)))).toFixed() });
  return out;
}

const items = (list: any[], key: string, total: string): Answer =>
  new Map<string, Figure>([
    ...list.map((i): [string, Figure] => [i[key], { events: i.event_count, cost: i.total_cost }]),
    ['total', { cost: total }],
  ]);
const points = (series: any, prefix = ''): Array<[string, Figure]> =>
  series.data_points.map((p: any): [string, Figure] => [`${prefix}${p.date.slice(0, 10)}`, { events: p.event_count, cost: p.cost }]);

export function compareQuestions(c: QuestionContext): Question[] {
  for (const v of [c.organizationId, c.user0]) if (!SAFE.test(v)) throw new Error(`unexpected id ${v}`);
  const org = c.organizationId;
  const full = { start_date: c.firstDay, end_date: c.endDay };
  const fullRange: DateRange = { start: new Date(`${c.firstDay}T00:00:00Z`), end: new Date(`${c.endDay}T00:00:00Z`) };
  const last90 = timeWindow('last-90-days', c.now);
  const user0 = ` AND end_user_id = '${c.user0}'`;
  return [
    {
      name: 'cost-data/summary (last-90-days)',
      path: '/cost-data/summary',
      query: { time_window: 'last-90-days' },
      sql: (d) =>
        `${grouped(d, org, 'daily_team_costs', last90.current, () => ["'current'"])} UNION ALL ${grouped(d, org, 'daily_team_costs', last90.previous, () => ["'previous'"])}`,
      fromHttp: (b) =>
        new Map([
          ['current', { events: b.event_count, cost: b.current_period_cost }],
          ['previous', { cost: b.previous_period_cost }],
        ]),
      fromRows: (rows) => figures(rows, '?'),
    },
    {
      name: 'cost-data/by-end-user (90 days)',
      path: '/cost-data/by-end-user',
      query: full,
      sql: (d) => grouped(d, org, 'daily_costs', fullRange, () => ['end_user_id']),
      fromHttp: (b) => items(b.end_users, 'end_user_id', b.total_cost),
      fromRows: (rows) => figures(rows, 'unassigned', true),
    },
    {
      name: 'end-user-costs/user-0/by-model (90 days)',
      path: '/end-user-costs/user-0/by-model',
      query: full,
      sql: (d) => grouped(d, org, 'daily_costs', fullRange, () => ['model'], user0),
      fromHttp: (b) => items(b.items, 'attribution_value', b.total_cost),
      fromRows: (rows) => figures(rows, 'Unassigned', true),
    },
    {
      name: 'end-user-costs/user-0/trend (90 days, weekly)',
      path: '/end-user-costs/user-0/trend',
      query: full,
      sql: (d) => grouped(d, org, 'daily_costs', fullRange, (s) => [d.week(s.date)], user0),
      fromHttp: (b) => new Map(points(b.series[0])),
      fromRows: (rows) => figures(rows, '?'),
    },
    {
      name: 'dimension-data/cost-trend (90 days, total)',
      path: '/dimension-data/cost-trend',
      query: full,
      sql: (d) => grouped(d, org, 'daily_team_costs', fullRange, (s) => [d.week(s.date)]),
      fromHttp: (b) => new Map(points(b.series[0])),
      fromRows: (rows) => figures(rows, '?'),
    },
    {
      name: 'dimension-data/cost-trend?dimension_key=team (90 days, top 5 + Other)',
      path: '/dimension-data/cost-trend',
      query: { ...full, dimension_key: 'team' },
      sql: (d) => grouped(d, org, 'daily_team_costs', fullRange, (s) => [s.team, d.week(s.date)]),
      fromHttp: (b) => new Map(b.series.flatMap((s: any) => points(s, `${s.key}|`))),
      fromRows: (rows, marginal) => topFiveAndOther(figures(rows, 'Unassigned'), marginal),
    },
    {
      name: 'dimension-data/cost-breakdown?dimension_key=team (90 days)',
      path: '/dimension-data/cost-breakdown',
      query: { ...full, dimension_key: 'team' },
      sql: (d) => grouped(d, org, 'daily_team_costs', fullRange, (s) => [s.team]),
      fromHttp: (b) => items(b.items, 'dimension_value', b.total_cost),
      fromRows: (rows) => figures(rows, 'Unassigned', true),
    },
  ];
}

/**
 * An engine's (team, week) figures folded the way the trend shows them: the series Marginal
 * names stay, every other team adds into `other`. The named ones must be the engine's own five
 * costliest teams (ties by name), or the fold would hide a disagreement.
 */
function topFiveAndOther(byTeamWeek: Answer, marginal: Answer): Answer {
  const named = new Set([...marginal.keys()].map((k) => k.split('|')[0]!).filter((t) => t !== 'other'));
  const totals = new Map<string, Big>();
  for (const [k, f] of byTeamWeek) {
    const team = k.split('|')[0]!;
    totals.set(team, (totals.get(team) ?? new Big(0)).plus(toBig(f.cost)));
  }
  const top = [...totals]
    .sort((a, b) => b[1].cmp(a[1]) || (a[0] < b[0] ? -1 : 1))
    .slice(0, 5)
    .map(([t]) => t);
  if (top.some((t) => !named.has(t)) || named.size !== top.length) {
    throw new Error(`the engine's five costliest teams (${top.join(', ')}) are not Marginal's series (${[...named].join(', ')})`);
  }
  const out: Answer = new Map();
  for (const [k, f] of byTeamWeek) {
    const [team, week] = k.split('|');
    const key = `${named.has(team!) ? team : 'other'}|${week}`;
    const prev = out.get(key);
    out.set(key, prev ? { events: prev.events! + f.events!, cost: toBig(prev.cost).plus(toBig(f.cost)).toFixed() } : f);
  }
  return out;
}

/** Differences between Marginal's answer and an engine's (a missing key counts as zero); empty when equal. */
export function answerDifferences(marginal: Answer, engine: Answer): string[] {
  const diffs: string[] = [];
  const zero: Figure = { events: 0, cost: '0' };
  for (const key of new Set([...marginal.keys(), ...engine.keys()])) {
    const m = marginal.get(key) ?? zero;
    const e = engine.get(key) ?? zero;
    if (!toBig(m.cost).eq(toBig(e.cost))) diffs.push(`${key}: cost ${m.cost} ≠ ${e.cost}`);
    if (m.events !== undefined && e.events !== undefined && m.events !== e.events) diffs.push(`${key}: events ${m.events} ≠ ${e.events}`);
  }
  return diffs;
}
