// The cost-spike rule (pure): is one day's cost of a series (one end user, agent, model or feature
// of an organization) a spike against the series' own previous 28 days? Invariants: only days
// strictly before the evaluated day form the baseline, so a spike never raises its own baseline;
// money stays exact (the baseline is a median of the stored decimals); the statistics use numbers.
//
// Baseline: the median cost of the same weekday over the previous four weeks (weekly seasonality:
// a quiet Sunday is compared with Sundays), days without cost left out; the median of all the
// window's days with cost when fewer than two of that weekday had any.
// Scale: the day-to-day noise in log space, from the MAD of the window's week-over-week log changes
// (a robust σ that the weekly pattern does not inflate), floored at 0.05 so a steady series has one.
// A spike needs all of (constants justified in docs/decisions/0126-cost-anomalies.md, measured in
// bench/results/anomalies.md):
//  - MIN_ACTIVE_DAYS of the 28 with cost (a new or sparse series has no baseline to speak of);
//  - cost ≥ MIN_RATIO × baseline;
//  - robust z = ln(cost / baseline) / scale ≥ MIN_Z (a noisy series must jump further);
//  - cost − baseline ≥ MIN_INCREASE currency units (cents never alarm).
// Hours of the current day (detectHourlySpike) are judged by this same rule on the series of that
// hour of day: hour 14 of each day is one daily series, so its baseline is the median of hour 14
// on the same weekday over the previous 28 days (docs/decisions/0155-hourly-cost-anomalies.md).
import { Big, toBig } from '../../core/money.js';
import { DAY_MS, utcDate } from '../../core/time.js';

export const WINDOW_DAYS = 28;
export const MIN_ACTIVE_DAYS = 14;
export const MIN_RATIO = 2.4;
export const MIN_Z = 4;
export const MIN_INCREASE = new Big(1);
/** Floor of the relative scale: a steady series is treated as varying by at least 5%. */
const MIN_SCALE = 0.05;
/** MAD → σ for normal noise. */
const MAD_TO_SIGMA = 1.4826;

/** A series' cost per UTC date ('YYYY-MM-DD' → decimal string); a date absent cost 0. */
export type DailyCosts = ReadonlyMap<string, string | Big>;

export interface Spike {
  cost: Big;
  baseline: Big;
  /** cost / baseline. */
  ratio: number;
  /** Robust z of the relative jump. */
  zScore: number;
}

/** The WINDOW_DAYS dates before `date`, oldest first. */
export function windowDates(date: string): string[] {
  const day = Date.parse(`${date}T00:00:00Z`);
  return Array.from({ length: WINDOW_DAYS }, (_, i) => utcDate(new Date(day - (WINDOW_DAYS - i) * DAY_MS)));
}

/** Exact median of decimals (the mean of the middle two for an even count). */
function median(values: readonly Big[]): Big {
  const sorted = [...values].sort((a, b) => a.cmp(b));
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : sorted[mid - 1]!.plus(sorted[mid]!).div(2);
}

function medianNumber(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The window's costs, grouped by position in the week (index i and i + 7k share a weekday). */
function windowCosts(date: string, history: DailyCosts): Big[] {
  return windowDates(date).map((d) => toBig(history.get(d) ?? '0'));
}

/**
 * Median of the same weekday's days with cost in the window, or of every day with cost when fewer
 * than two of that weekday had any (idle days are absent, not cheap: two idle Mondays out of four
 * would otherwise halve the Monday baseline). Zero when the window has no cost.
 */
function baselineOf(costs: readonly Big[], weekday: number): Big {
  const active = (c: Big) => c.gt(0);
  const same = costs.filter((c, i) => i % 7 === weekday && active(c));
  if (same.length >= 2) return median(same);
  const all = costs.filter(active);
  return all.length > 0 ? median(all) : new Big(0);
}

/** The baseline of `date` from its previous WINDOW_DAYS (the weekday's median, else the window's). */
export function spikeBaseline(date: string, history: DailyCosts): Big {
  // windowDates(date)[i] shares the evaluated date's weekday when (WINDOW_DAYS - i) % 7 === 0.
  return baselineOf(windowCosts(date, history), 0);
}

/** Robust relative scale: 1.4826 × MAD of each active day's relative deviation from its weekday's baseline. */
function relativeScale(costs: readonly Big[]): number {
  const deviations: number[] = [];
  for (let i = 0; i < costs.length; i++) {
    const base = baselineOf(costs, i % 7).toNumber();
    if (base > 0 && costs[i]!.gt(0)) deviations.push(costs[i]!.toNumber() / base - 1);
  }
  const mad = deviations.length === 0 ? 0 : medianNumber(deviations.map(Math.abs));
  return Math.max(MAD_TO_SIGMA * mad, MIN_SCALE);
}

/** The spike on `date` of a series with these daily costs, or null when the day is not one. */
export function detectSpike(date: string, history: DailyCosts): Spike | null {
  const cost = toBig(history.get(date) ?? '0');
  // A day under MIN_INCREASE cannot rise that much above a positive baseline: skip the window.
  if (cost.lt(MIN_INCREASE)) return null;
  const costs = windowCosts(date, history);
  if (costs.filter((c) => c.gt(0)).length < MIN_ACTIVE_DAYS) return null;
  const baseline = baselineOf(costs, 0);
  if (baseline.lte(0) || cost.minus(baseline).lt(MIN_INCREASE) || cost.lt(baseline.times(MIN_RATIO))) return null;
  const ratio = cost.div(baseline).toNumber();
  const zScore = (ratio - 1) / relativeScale(costs);
  return zScore >= MIN_Z ? { cost, baseline, ratio, zScore } : null;
}

/** A series' cost per UTC hour ('YYYY-MM-DDTHH:00:00Z' → decimal string); an hour absent cost 0. */
export type HourlyCosts = ReadonlyMap<string, string | Big>;

/** The hour's date and the daily series of that hour of day (each date's cost at the same hour). */
function sameHourOfDay(hour: string, history: HourlyCosts): { date: string; daily: Map<string, string | Big> } {
  const clock = hour.slice(10); // 'THH:00:00Z'
  const daily = new Map<string, string | Big>();
  for (const [key, cost] of history) if (key.slice(10) === clock) daily.set(key.slice(0, 10), cost);
  return { date: hour.slice(0, 10), daily };
}

/** The spike in `hour` ('YYYY-MM-DDTHH:00:00Z') of a series with these hourly costs, or null (detectSpike on that hour of day). */
export function detectHourlySpike(hour: string, history: HourlyCosts): Spike | null {
  const { date, daily } = sameHourOfDay(hour, history);
  return detectSpike(date, daily);
}

/** The baseline of `hour` from the same hour of the previous WINDOW_DAYS (as spikeBaseline). */
export function hourlySpikeBaseline(hour: string, history: HourlyCosts): Big {
  const { date, daily } = sameHourOfDay(hour, history);
  return spikeBaseline(date, daily);
}
