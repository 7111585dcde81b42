// Forecast rules over plain data: the window a horizon closes, the days still to forecast, a
// series' figure (the cost already spent in the window, exact, plus the method's forecast of the
// rest), margins against revenue, and the price that reaches a target margin. Days are epoch days
// (UTC); the method itself is forecast-method.ts. Nothing here does I/O.
import { Big, formatMoney } from '../../core/money.js';
import { DAY_MS } from '../../core/time.js';
import { forecastCost, HISTORY_DAYS, type DayShare } from './forecast-method.js';
import type { ForecastFigure, ForecastHorizon } from './forecasts.types.js';

export const FORECAST_METHOD = 'weekday-factors-theil-sen-v1';

/** Days since 1970-01-01 of an instant's UTC date. */
export const epochDay = (instant: Date): number => Math.floor(instant.getTime() / DAY_MS);

export const dayStart = (day: number): Date => new Date(day * DAY_MS);

/** A window of whole UTC days, [startDay, endDay). */
export interface DayWindow {
  startDay: number;
  endDay: number;
}

/** month-end: the current UTC calendar month; next-30-days: today and the 29 UTC days after it. */
export function horizonWindow(horizon: ForecastHorizon, now: Date): DayWindow {
  const today = epochDay(now);
  if (horizon === 'next-30-days') return { startDay: today, endDay: today + 30 };
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return { startDay: start / DAY_MS, endDay: end / DAY_MS };
}

const HOUR_MS = 3_600_000;

/**
 * The days of the window still to come after `now`: the rest of today as a share counted in whole
 * hours (the hour under way counts as to come), later days whole. Whole hours keep a forecast the
 * same for an hour instead of changing with every request.
 */
export function daysAhead(now: Date, endDay: number): DayShare[] {
  const today = epochDay(now);
  const out: DayShare[] = [];
  const rest = Math.ceil(((today + 1) * DAY_MS - now.getTime()) / HOUR_MS) / 24;
  if (today < endDay && rest > 0) out.push({ day: today, share: rest });
  for (let day = today + 1; day < endDay; day++) out.push({ day, share: 1 });
  return out;
}

/** A forecast figure kept in decimals until it is written. */
interface Figure {
  value: Big;
  low: Big;
  high: Big;
}

export const figureOut = (f: Figure): ForecastFigure => ({
  value: formatMoney(f.value),
  low: formatMoney(f.low),
  high: formatMoney(f.high),
});

/** A series' cost per epoch day (today's entry is the part before `now`). */
export type DayCosts = ReadonlyMap<number, Big>;

/**
 * The window's cost: what the days of the window up to now already cost (exact), plus the
 * forecast of the rest from the HISTORY_DAYS complete days before today.
 */
export function costFigure(costs: DayCosts, now: Date, window: DayWindow): Figure & { observed: Big } {
  const today = epochDay(now);
  let observed = new Big(0);
  for (let day = window.startDay; day <= today && day < window.endDay; day++) observed = observed.plus(costs.get(day) ?? 0);
  const firstDay = today - HISTORY_DAYS;
  const history = Array.from({ length: HISTORY_DAYS }, (_, i) => costs.get(firstDay + i) ?? new Big(0));
  const ahead = daysAhead(now, window.endDay).filter((d) => d.day >= window.startDay);
  const f = forecastCost({ firstDay, costs: history }, ahead);
  return { observed, value: observed.plus(f.value), low: observed.plus(f.low), high: observed.plus(f.high) };
}

/** Known revenue as a figure (no interval: billing periods already known) and the margin against cost. */
export function revenueAndMargin(revenue: Big, cost: Figure): { revenue: Figure; margin: Figure } {
  return {
    revenue: { value: revenue, low: revenue, high: revenue },
    margin: { value: revenue.minus(cost.value), low: revenue.minus(cost.high), high: revenue.minus(cost.low) },
  };
}

/** The share of a price left after a target margin: 1 − target / 100. */
const keptShare = (targetPercent: Big): Big => new Big(1).minus(targetPercent.div(100));

/** The price per period whose margin over `cost` is `targetPercent` (0 ≤ target < 100), rounded up to the cent. */
export function requiredPrice(cost: Big, targetPercent: Big): Big {
  return cost.div(keptShare(targetPercent)).round(2, Big.roundUp);
}

/** `price` reaches the target margin over `cost`, compared exactly: price × (1 − target / 100) ≥ cost. */
export function reachesTarget(price: Big, cost: Big, targetPercent: Big): boolean {
  return price.times(keptShare(targetPercent)).gte(cost);
}
