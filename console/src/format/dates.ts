// Dates as the console shows them: always UTC (the API's buckets and ranges are UTC).
export function day(iso: string): string {
  return iso.slice(0, 10);
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

export function durationMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${ms} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** 'YYYY-MM-DD' of a Date in UTC. */
export function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function addDays(dayString: string, days: number): string {
  const d = new Date(`${dayString}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return isoDay(d);
}
