// What one request's expansion (lake-query.ts) reads the lake through: the versions of an
// organization's days (the names the caches key their rows by), the raw rows of a table, which days
// a dimension's rollup covers, and where a cache build reads a day's rows; all from one catalog
// snapshot, fixed for the whole request (ducklake-days.ts).
import type { DimensionType } from '../../core/lake/dimension-rollups.js';
import type { LakeTable } from '../../core/lake/layout.js';
import { type DateRange, utcDate } from '../../core/time.js';
import type { DaySource } from './derived-cache.js';
import { atSnapshot, type DuckLakeDays } from './ducklake-days.js';

export interface LakeView {
  /**
   * The version names ("files") of the table's days of the organization whose UTC date overlaps
   * `range` (all without), only the dates of `dates` when given: the DerivedCache's and
   * EdgeCache's keys.
   */
  files(table: LakeTable, organizationId: string, range: DateRange | null, dates?: ReadonlySet<string>): Promise<string[]>;
  /** The table's rows on the UTC days `range` overlaps (whole days; all without): filter organization_id and bounds. */
  relation(table: LakeTable, organizationId: string, range: DateRange | null): Promise<string>;
  /** UTC dates (YYYY-MM-DD) within `days` with events, and those whose every partition is rolled up for the dimension. */
  coveredDates(
    organizationId: string,
    days: DateRange | null,
    key: string,
    type: DimensionType,
  ): Promise<{ covered: Set<string>; all: Set<string> }>;
  /** Where cache builds read a day's rows. */
  source: DaySource;
}

/** The UTC dates [first, last] a range overlaps (null ends without a range). */
function dateBounds(range: DateRange | null): { first: string | null; last: string | null } {
  return range ? { first: utcDate(range.start), last: utcDate(new Date(range.end.getTime() - 1)) } : { first: null, last: null };
}

/**
 * Rows of a DuckLake table at `snapshot` for the organization, on the UTC days the range overlaps
 * (the rollups' partition column left out); none when `empty` (the table's columns, no read).
 */
function duckLakeTableSql(table: LakeTable, range: DateRange | null, snapshot: number, empty: boolean): string {
  const { first, last } = dateBounds(range);
  const days = empty ? ' AND false' : range ? ` AND "event_date" >= DATE '${first}' AND "event_date" <= DATE '${last}'` : '';
  const columns = table === 'events' ? '*' : '* EXCLUDE ("kafka_partition")';
  return `(SELECT ${columns} FROM ${atSnapshot(table, snapshot)} WHERE "organization_id" = $org${days})`;
}

/** The open lake's view at one catalog snapshot. */
export function duckLakeView(days: DuckLakeDays, snapshot: number): LakeView {
  return {
    files: async (table, org, range, dates) => {
      const { first, last } = dateBounds(range);
      const names = await days.names(snapshot, table, org, first, last);
      return dates ? names.filter((n) => dates.has(/date=(\d{4}-\d{2}-\d{2})/.exec(n)![1]!)) : names;
    },
    // Every write of a day (flush, re-pricing, backfill, migration) inserts its coverage rows in
    // the same commit (0152), so days without a version hold no rows: with none in range the
    // relation is empty and the request reads no lake table (an organization with no events yet).
    relation: async (table, org, range) => {
      const { first, last } = dateBounds(range);
      const empty = (await days.names(snapshot, table, org, first, last)).length === 0;
      return duckLakeTableSql(table, range, snapshot, empty);
    },
    coveredDates: async (org, range, key, type) => {
      const { first, last } = dateBounds(range);
      const covered = new Set<string>();
      const all = new Set<string>();
      for (const [day, yes] of await days.coveredDays(snapshot, org, key, type)) {
        if ((first !== null && day < first) || (last !== null && day > last)) continue;
        all.add(day);
        if (yes) covered.add(day);
      }
      return { covered, all };
    },
    source: days.source(snapshot),
  };
}
