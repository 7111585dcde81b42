// Time rules shared by every read endpoint: date parameters, ranges, adaptive granularity, UTC
// buckets and the cost summary's named windows. All UTC; pure functions of their inputs.
import { DateRangeTooLargeError, ValidationError } from './errors.js';

export type Granularity = 'daily' | 'weekly' | 'monthly';
export const DAY_MS = 86_400_000;

/** 'YYYY-MM-DD' of an instant, in UTC (an event's partition date, a day key). */
export function utcDate(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** ISO 8601 date or datetime; a date alone is UTC midnight, a datetime without offset is UTC. */
export function parseDateParam(field: string, value: string | undefined | null, required = true): Date | null {
  if (value === undefined || value === null || value === '') {
    if (required) throw new ValidationError(field, 'is required (ISO 8601 date or datetime)');
    return null;
  }
  const d = parseIsoDate(value);
  if (!d) throw new ValidationError(field, `must be an ISO 8601 date or datetime, got "${value}"`);
  return d;
}

function parseIsoDate(value: string): Date | null {
  let m = DATE_ONLY.exec(value);
  if (m) return checkedUtc(+m[1], +m[2], +m[3], 0, 0, 0, 0);
  m = DATE_TIME.exec(value);
  if (!m) return null;
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  const base = checkedUtc(+m[1], +m[2], +m[3], +m[4], +m[5], m[6] ? +m[6] : 0, ms);
  if (!base) return null;
  const zone = m[8];
  if (!zone || zone.toUpperCase() === 'Z') return base;
  const z = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
  const offsetMin = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3]));
  if (Number(z[2]) > 23 || Number(z[3]) > 59) return null;
  return new Date(base.getTime() - offsetMin * 60_000);
}

function checkedUtc(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): Date | null {
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d); // Date.UTC would read years 0–99 as 1900–1999
  date.setUTCHours(h, mi, s, ms);
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null; // 2026-02-30
  return date;
}

export interface DateRange {
  start: Date;
  /** Exclusive. */
  end: Date;
}

/** start_date/end_date pair: both required, start strictly before end. */
export function parseDateRange(startRaw: string | undefined, endRaw: string | undefined): DateRange {
  const start = parseDateParam('start_date', startRaw)!;
  const end = parseDateParam('end_date', endRaw)!;
  if (start.getTime() >= end.getTime()) throw new ValidationError('start_date', 'must be strictly before end_date');
  return { start, end };
}

/** 400 when the range is longer than maxDays (the 90-day cap of usage events). */
export function assertMaxDays(range: DateRange, maxDays: number, field = 'end_date'): void {
  if (range.end.getTime() - range.start.getTime() > maxDays * DAY_MS) {
    throw new ValidationError(field, `the range may not exceed ${maxDays} days`);
  }
}

/** 422 DATE_RANGE_TOO_LARGE when end is later than start plus `months` calendar months. */
export function assertMaxMonths(range: DateRange, months: number, field = 'end_date'): void {
  if (range.end.getTime() > addUtcMonths(range.start, months).getTime()) {
    throw new DateRangeTooLargeError(field, `${months} months`);
  }
}

/** Range length in days, rounded up (a partial day counts as a day). */
function rangeDays(range: DateRange): number {
  return Math.ceil((range.end.getTime() - range.start.getTime()) / DAY_MS);
}

/** ≤ 30 days daily, 31–90 weekly, > 90 monthly. */
export function adaptiveGranularity(range: DateRange): Granularity {
  const days = rangeDays(range);
  return days <= 30 ? 'daily' : days <= 90 ? 'weekly' : 'monthly';
}

export function addUtcMonths(d: Date, months: number): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const target = new Date(Date.UTC(y, m, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return target;
}

function utcMidnight(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

/** Start of the UTC bucket holding `d`: day, ISO week (Monday 00:00) or calendar month. */
export function bucketStart(d: Date, g: Granularity): Date {
  if (g === 'daily') return utcMidnight(d);
  if (g === 'monthly') return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  const day = utcMidnight(d);
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return new Date(day.getTime() - sinceMonday * DAY_MS);
}

export function nextBucket(start: Date, g: Granularity): Date {
  if (g === 'daily') return new Date(start.getTime() + DAY_MS);
  if (g === 'weekly') return new Date(start.getTime() + 7 * DAY_MS);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}

/** Every bucket start whose bucket overlaps [start, end). */
export function bucketStarts(range: DateRange, g: Granularity): Date[] {
  const out: Date[] = [];
  for (let b = bucketStart(range.start, g); b.getTime() < range.end.getTime(); b = nextBucket(b, g)) out.push(b);
  return out;
}

/** DuckDB date_trunc unit for a granularity (DuckDB's 'week' starts on ISO Monday). */
export function truncUnit(g: Granularity): 'day' | 'week' | 'month' {
  return g === 'daily' ? 'day' : g === 'weekly' ? 'week' : 'month';
}

export const TIME_WINDOWS = ['current-period', 'last-period', 'last-7-days', 'last-30-days', 'last-90-days', 'ytd', 'last-year'] as const;
export type TimeWindow = (typeof TIME_WINDOWS)[number];

export interface WindowPair {
  current: DateRange;
  previous: DateRange;
}

/**
 * The cost summary's windows and what each is compared with (docs/design.md "Previous period"):
 * calendar windows with the preceding calendar period of the same kind, rolling windows with the
 * preceding window of equal length. Windows "to date" end at `now`.
 */
export function timeWindow(name: TimeWindow, now: Date): WindowPair {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const monthStart = new Date(Date.UTC(y, m, 1));
  switch (name) {
    case 'current-period': {
      // Month to date vs the same span of the previous month (clamped to that month's end).
      const prevStart = new Date(Date.UTC(y, m - 1, 1));
      const prevEnd = minDate(new Date(prevStart.getTime() + (now.getTime() - monthStart.getTime())), monthStart);
      return { current: { start: monthStart, end: now }, previous: { start: prevStart, end: prevEnd } };
    }
    case 'last-period': {
      const start = new Date(Date.UTC(y, m - 1, 1));
      return { current: { start, end: monthStart }, previous: { start: new Date(Date.UTC(y, m - 2, 1)), end: start } };
    }
    case 'ytd': {
      const start = new Date(Date.UTC(y, 0, 1));
      const prevStart = new Date(Date.UTC(y - 1, 0, 1));
      return {
        current: { start, end: now },
        previous: { start: prevStart, end: minDate(addUtcYears(now, -1), start) },
      };
    }
    case 'last-year': {
      const start = new Date(Date.UTC(y - 1, 0, 1));
      const end = new Date(Date.UTC(y, 0, 1));
      return { current: { start, end }, previous: { start: new Date(Date.UTC(y - 2, 0, 1)), end: start } };
    }
    default: {
      const days = name === 'last-7-days' ? 7 : name === 'last-30-days' ? 30 : 90;
      const start = new Date(now.getTime() - days * DAY_MS);
      return { current: { start, end: now }, previous: { start: new Date(start.getTime() - days * DAY_MS), end: start } };
    }
  }
}

function addUtcYears(d: Date, years: number): Date {
  return addUtcMonths(d, 12 * years);
}

function minDate(a: Date, b: Date): Date {
  return a.getTime() <= b.getTime() ? a : b;
}
