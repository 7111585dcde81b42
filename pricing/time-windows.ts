// Time-of-day windows of a token card: the one copy of their rules (shape, no overlap, which window
// an instant falls in) that the admin API, the standard-card file and pricing share. Pure. A week
// has 10,080 UTC minutes; a card's windows are laid out once as a minute-of-week table, so finding
// the window of an event is one array read and an event at exactly a window's start is in it, one
// at exactly its end is not.
import { DAY_MS } from '../core/time.js';
import type { TimeWindow } from './pricing.types.js';

const MINUTES_PER_DAY = 1440;
const MINUTES_PER_WEEK = 7 * MINUTES_PER_DAY;
const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;
const ALL_DAYS = [1, 2, 3, 4, 5, 6, 7] as const;
const MAX_TIME_WINDOWS = 32;

/** How a caller reports a malformed window: a ValidationError for the API, an Error naming the file entry for the file. */
export type WindowFault = (field: string, message: string) => Error;

/** The minute of the UTC day of "HH:MM", or null when it is not one. */
function minuteOfDay(text: unknown): number | null {
  const m = typeof text === 'string' ? HH_MM.exec(text) : null;
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** Which window (index) covers each minute of the week, Monday 00:00 UTC first; -1 = none. */
export type WindowWeek = Int8Array;

/**
 * Checks a card's windows (names, days, times, no two covering one minute) and lays them out over
 * the week. `fault` builds the error for the first problem, `at` names the list ("time_of_day_windows").
 */
export function layOutTimeWindows(windows: readonly TimeWindow[], at: string, fault: WindowFault): WindowWeek {
  if (windows.length > MAX_TIME_WINDOWS) throw fault(at, `at most ${MAX_TIME_WINDOWS} windows`);
  const week = new Int8Array(MINUTES_PER_WEEK).fill(-1);
  windows.forEach((w, i) => {
    const field = `${at}[${i}]`;
    if (typeof w.name !== 'string' || w.name.trim() === '' || w.name.length > 64)
      throw fault(`${field}.name`, 'must be 1 to 64 characters');
    const start = minuteOfDay(w.start_utc);
    if (start === null) throw fault(`${field}.start_utc`, 'must be a UTC time of day HH:MM');
    const end = minuteOfDay(w.end_utc);
    if (end === null) throw fault(`${field}.end_utc`, 'must be a UTC time of day HH:MM');
    const days = w.days ?? ALL_DAYS;
    if (!Array.isArray(days) || days.length === 0 || days.some((d) => !Number.isInteger(d) || d < 1 || d > 7)) {
      throw fault(`${field}.days`, 'must be ISO weekdays 1 (Monday) to 7 (Sunday)');
    }
    if (new Set(days).size !== days.length) throw fault(`${field}.days`, 'must not repeat a day');
    // Equal times: the whole day; an end at or before the start runs into the next day.
    const length = end > start ? end - start : end + MINUTES_PER_DAY - start;
    for (const day of days) {
      const first = (day - 1) * MINUTES_PER_DAY + start;
      for (let m = first; m < first + length; m++) {
        const slot = m % MINUTES_PER_WEEK;
        if (week[slot] !== -1) throw fault(field, `overlaps ${at}[${week[slot]}]`);
        week[slot] = i;
      }
    }
  });
  return week;
}

/** The minute of the UTC week (Monday 00:00 = 0) an instant falls in. */
export function minuteOfWeek(at: Date): number {
  const ms = at.getTime();
  const day = Math.floor(ms / DAY_MS);
  const isoWeekday = (((day + 3) % 7) + 7) % 7; // 1970-01-01 was a Thursday: 0 = Monday
  return isoWeekday * MINUTES_PER_DAY + Math.floor((ms - day * DAY_MS) / 60_000);
}
