// The date range every page reads, kept in the URL (?range=last-30-days, or
// ?range=custom&from=YYYY-MM-DD&to=YYYY-MM-DD with `to` inclusive) so a link reproduces the view.
// Days are UTC, like the API's buckets; `end` is exclusive, as the API's end_date.
import { useSearch } from 'wouter';
import { addDays, isoDay } from '../format/dates.js';

export const PRESETS = [
  ['this-month', 'This month'],
  ['last-month', 'Last month'],
  ['last-7-days', 'Last 7 days'],
  ['last-30-days', 'Last 30 days'],
  ['last-90-days', 'Last 90 days'],
  ['ytd', 'Year to date'],
  ['custom', 'Custom'],
] as const;
export type Preset = (typeof PRESETS)[number][0];
const DEFAULT_PRESET = 'last-30-days' as const;

export interface DateRange {
  preset: Preset;
  /** YYYY-MM-DD, inclusive. */
  start: string;
  /** YYYY-MM-DD, exclusive. */
  end: string;
}

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

/** The range a preset names on `today` (UTC): rolling presets end with today included. */
export function presetRange(preset: Exclude<Preset, 'custom'>, today: Date): DateRange {
  const t = isoDay(today);
  const tomorrow = addDays(t, 1);
  const monthStart = `${t.slice(0, 7)}-01`;
  switch (preset) {
    case 'this-month':
      return { preset, start: monthStart, end: tomorrow };
    case 'last-month': {
      const d = new Date(`${monthStart}T00:00:00Z`);
      d.setUTCMonth(d.getUTCMonth() - 1);
      return { preset, start: isoDay(d), end: monthStart };
    }
    case 'last-7-days':
      return { preset, start: addDays(tomorrow, -7), end: tomorrow };
    case 'last-30-days':
      return { preset, start: addDays(tomorrow, -30), end: tomorrow };
    case 'last-90-days':
      return { preset, start: addDays(tomorrow, -90), end: tomorrow };
    case 'ytd':
      return { preset, start: `${t.slice(0, 4)}-01-01`, end: tomorrow };
  }
}

export function rangeFromSearch(search: string, today: Date = new Date()): DateRange {
  const p = new URLSearchParams(search);
  const preset = p.get('range') as Preset | null;
  if (preset === 'custom') {
    const from = p.get('from') ?? '';
    const to = p.get('to') ?? '';
    if (DAY_RE.test(from) && DAY_RE.test(to) && from <= to) return { preset, start: from, end: addDays(to, 1) };
  }
  const known = PRESETS.some(([id]) => id === preset) && preset !== 'custom';
  return presetRange(known ? (preset as Exclude<Preset, 'custom'>) : DEFAULT_PRESET, today);
}

/** The URL parameters of a range (to merge into the current search). */
export function rangeSearchParams(r: DateRange): Record<string, string> {
  return r.preset === 'custom' ? { range: 'custom', from: r.start, to: addDays(r.end, -1) } : { range: r.preset };
}

/** The window of equal length just before `r` (the "change against the previous period"). */
export function previousRange(r: DateRange): DateRange {
  const days = Math.round((Date.parse(r.end) - Date.parse(r.start)) / 86_400_000);
  return { preset: 'custom', start: addDays(r.start, -days), end: r.start };
}

export function rangeQuery(r: DateRange): { start_date: string; end_date: string } {
  return { start_date: r.start, end_date: r.end };
}

export function useDateRange(): DateRange {
  return rangeFromSearch(useSearch());
}

/** `path` with the range (and only the range) of the current URL, for links between pages. */
export function withRange(path: string, r: DateRange, extra: Record<string, string> = {}): string {
  const qs = new URLSearchParams({ ...rangeSearchParams(r), ...extra });
  return `${path}?${qs.toString()}`;
}

/**
 * Every bucket start (ISO, UTC) of the range at a granularity, as the API dates its points: days,
 * ISO weeks from Monday, calendar months. Charts draw every bucket so bars keep one width (the
 * API omits empty buckets; a chart shows them as zero).
 */
export function bucketStarts(r: DateRange, granularity: 'daily' | 'weekly' | 'monthly'): string[] {
  const end = Date.parse(`${r.end}T00:00:00Z`);
  const d = new Date(`${r.start}T00:00:00Z`);
  if (granularity === 'weekly') d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  if (granularity === 'monthly') d.setUTCDate(1);
  const out: string[] = [];
  while (d.getTime() < end && out.length < 400) {
    out.push(d.toISOString());
    if (granularity === 'daily') d.setUTCDate(d.getUTCDate() + 1);
    else if (granularity === 'weekly') d.setUTCDate(d.getUTCDate() + 7);
    else d.setUTCMonth(d.getUTCMonth() + 1);
  }
  return out;
}
