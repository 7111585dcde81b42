// The cost forecast method (pure): a series' daily cost of complete UTC days carried forward by a
// robust linear trend times day-of-week factors, with an interval from a rolling backtest over the
// series' own history. Invariants: floats live only inside the fit; every forecast day is rounded
// to the money scale before it is summed exactly (big.js), so returned money is decimal; a forecast
// is never negative and its interval always contains it. No forecasting library is installed (and
// none is added); the method and its constants are docs/decisions/0133-cost-forecasts.md, its
// error on generated histories bench/results/forecasts.md.
//
// Fit over the last HISTORY_DAYS days (leading days before the series' first cost left out):
//  - weekday factors: with MIN_SEASONAL_DAYS or more, the median over each weekday of the day's
//    ratio to its centred 7-day mean (a linear trend leaves that ratio at 1), scaled to average 1;
//    otherwise 1;
//  - trend: Theil–Sen (median of pairwise slopes, median intercept) on cost ÷ factor;
//  - day t: max(0, intercept + slope × t) × factor(weekday of t).
// Interval: the fit is cut at every CUT_STEP-th day it can be (up to MAX_CUTS, each keeping
// MIN_FIT_DAYS to fit on), each cut forecasts the following days (as many as asked, or as the history allows) and the
// error of that sum relative to its forecast is kept; low and high are the forecast × (1 ∓ the
// ERROR_QUANTILE of the absolute errors). Symmetric: consecutive cuts share most of their days,
// so their errors lean the same way and separate low/high quantiles came out too narrow (the
// bench's coverage). With fewer than MIN_CUTS cuts possible the spread is ±FALLBACK_SPREAD.
import { Big, MONEY_SCALE } from '../../core/money.js';

export const HISTORY_DAYS = 56;
const MIN_SEASONAL_DAYS = 14;
const MIN_FIT_DAYS = 14;
const MAX_CUTS = 21;
/** Days between backtest cuts: neighbouring cuts share nearly all their days, so every other one is enough. */
const CUT_STEP = 2;
const MIN_CUTS = 3;
/** The interval's half-width: this quantile of the backtest's absolute relative errors. */
const ERROR_QUANTILE = 0.8;
const FALLBACK_SPREAD = 0.5;
/** Digits kept of a statistical ratio before it scales money. */
const RATIO_DIGITS = 6;

/** A series' cost per complete UTC day, oldest first; `firstDay` is the epoch day (days since 1970-01-01) of costs[0]. */
export interface DailyHistory {
  firstDay: number;
  costs: readonly Big[];
}

/** A day to forecast and the share of it still to come (1 for a whole future day). */
export interface DayShare {
  day: number;
  share: number;
}

export interface CostForecast {
  value: Big;
  low: Big;
  high: Big;
}

interface Fit {
  intercept: number;
  slope: number;
  /** By weekday, 0 = Sunday. */
  factors: number[];
}

/** 0 = Sunday; epoch day 0 was a Thursday. */
const weekdayOf = (day: number): number => (day + 4) % 7;

function median(values: ArrayLike<number>): number {
  // A typed array sorts numerically and natively (a fit's pairwise slopes are 1,540 values).
  const sorted = Float64Array.from(values).sort();
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Linear-interpolated quantile of a non-empty list. */
function quantile(values: readonly number[], q: number): number {
  const sorted = Float64Array.from(values).sort();
  const at = q * (sorted.length - 1);
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

/** Each weekday's median ratio of cost to its centred 7-day mean, scaled to average 1. */
function weekdayFactors(y: readonly number[], firstDay: number): number[] {
  if (y.length < MIN_SEASONAL_DAYS) return [1, 1, 1, 1, 1, 1, 1];
  const ratios: number[][] = [[], [], [], [], [], [], []];
  let sum = y.slice(0, 7).reduce((a, b) => a + b, 0);
  for (let i = 3; i + 3 < y.length; i++) {
    if (i > 3) sum += y[i + 3]! - y[i - 4]!;
    if (sum > 0) ratios[weekdayOf(firstDay + i)]!.push(y[i]! / (sum / 7));
  }
  const raw = ratios.map((r) => (r.length > 0 ? median(r) : 1));
  const mean = raw.reduce((a, b) => a + b, 0) / 7;
  return mean > 0 ? raw.map((f) => f / mean) : [1, 1, 1, 1, 1, 1, 1];
}

/** Theil–Sen line through (i, y[i] / factor) for the days whose factor is positive. */
function fitTrend(y: readonly number[], firstDay: number): Fit {
  const factors = weekdayFactors(y, firstDay);
  const points: Array<[number, number]> = [];
  for (let i = 0; i < y.length; i++) {
    const f = factors[weekdayOf(firstDay + i)]!;
    if (f > 0) points.push([i, y[i]! / f]);
  }
  if (points.length === 0) return { intercept: 0, slope: 0, factors };
  const slopes = new Float64Array((points.length * (points.length - 1)) / 2);
  let k = 0;
  for (let a = 0; a < points.length; a++) {
    for (let b = a + 1; b < points.length; b++) slopes[k++] = (points[b]![1] - points[a]![1]) / (points[b]![0] - points[a]![0]);
  }
  const slope = slopes.length > 0 ? median(slopes) : 0;
  const intercept = median(points.map(([i, z]) => z - slope * i));
  return { intercept, slope, factors };
}

/** The fitted cost of history index t (may lie beyond the history). */
function fitted(f: Fit, firstDay: number, t: number): number {
  return Math.max(0, f.intercept + f.slope * t) * f.factors[weekdayOf(firstDay + t)]!;
}

/** A fitted float as money: rounded half-up to the money scale. */
function asMoney(n: number): Big {
  return new Big(n.toFixed(MONEY_SCALE));
}

/** Relative errors of `h`-day sums forecast from cuts every CUT_STEP days back from the last possible one. */
function backtestErrors(y: readonly number[], firstDay: number, h: number): number[] {
  const errors: number[] = [];
  for (let cut = y.length - h; cut >= MIN_FIT_DAYS && errors.length < MAX_CUTS; cut -= CUT_STEP) {
    const f = fitTrend(y.slice(0, cut), firstDay);
    let forecast = 0;
    let actual = 0;
    for (let t = cut; t < cut + h; t++) {
      forecast += fitted(f, firstDay, t);
      actual += y[t]!;
    }
    if (forecast > 0) errors.push(actual / forecast - 1);
  }
  return errors;
}

/** The spread of the backtest: [low, high] relative errors, low ≤ 0 ≤ high. */
function spread(y: readonly number[], firstDay: number, days: number): [number, number] {
  // The longest horizon that still leaves MIN_CUTS cuts with MIN_FIT_DAYS of fit each.
  const h = Math.min(days, y.length - MIN_FIT_DAYS - CUT_STEP * (MIN_CUTS - 1));
  const errors = h >= 1 ? backtestErrors(y, firstDay, h) : [];
  if (errors.length < MIN_CUTS) return [-FALLBACK_SPREAD, FALLBACK_SPREAD];
  const q = quantile(errors.map(Math.abs), ERROR_QUANTILE);
  return [-q, q];
}

/** `value` × (1 + ratio), the ratio cut to RATIO_DIGITS, rounded to the money scale, never below 0. */
function scaled(value: Big, ratio: number): Big {
  const r = new Big((1 + ratio).toFixed(RATIO_DIGITS));
  const out = value.times(r).round(MONEY_SCALE, Big.roundHalfUp);
  return out.lt(0) ? new Big(0) : out;
}

/** The history's last HISTORY_DAYS days from its first day with cost, as numbers for the fit. */
function trimmed(history: DailyHistory): { y: number[]; firstDay: number } {
  let start = Math.max(0, history.costs.length - HISTORY_DAYS);
  while (start < history.costs.length && history.costs[start]!.lte(0)) start++;
  return { y: history.costs.slice(start).map((c) => c.toNumber()), firstDay: history.firstDay + start };
}

/** The cost still to come over `days`: each day's fitted cost × its share, rounded to money, summed exactly, with its interval. */
export function forecastCost(history: DailyHistory, days: readonly DayShare[]): CostForecast {
  const { y, firstDay } = trimmed(history);
  if (y.length === 0 || days.length === 0) return { value: new Big(0), low: new Big(0), high: new Big(0) };
  const f = fitTrend(y, firstDay);
  let value = new Big(0);
  for (const d of days) value = value.plus(asMoney(fitted(f, firstDay, d.day - firstDay) * d.share));
  const [low, high] = spread(y, firstDay, days.length);
  return { value, low: scaled(value, low), high: scaled(value, high) };
}
