// Derived tables kept in the api's DuckDB memory: per organization and UTC day, a small aggregate
// of that day's lake files (a merged copy of the daily_costs rollup, cost per metadata value,
// numeric sums, usage per metric). A day's rows are valid for exactly the set of files they were
// built from; lake files are immutable (names are never reused), so when the day's live file set
// is still the same, the rows are still right. When it changes (a flush, compaction, re-pricing)
// the day is rebuilt under a new id; the old rows stay readable for a grace period (a query may
// have named them a moment ago) and are then deleted. Readers select rows by the ids of the
// days they need. Built lazily, many days per statement; evicted least-recently-used past a row
// budget.
import type { DuckDBConnection } from '@duckdb/node-api';
import { readParquetSql, sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import type { LakeTable } from '../../core/lake/layout.js';

/**
 * How a day's files become cached rows. `perDay` reads `{{src}}` — the rows of the day's files
 * plus a `filename` column that names the group to aggregate by (the day here; NULL when the
 * same SQL runs over raw events of a partial day) — and must select `filename` and group by it.
 * It may use $org and the derivation's params.
 */
export interface Derivation {
  /** Stable id; include every parameter that changes the rows (e.g. the metadata key). */
  id: string;
  source: LakeTable;
  perDay: string;
  params?: Record<string, string>;
  /**
   * Build per hour instead of per day: `event_date` in {{src}} holds the hour (TIMESTAMP) of the
   * event, so the rows answer whole hours of a partial day. Source must be events.
   */
  hourly?: boolean;
}

export interface DerivedCacheOptions {
  /** Rows kept across all derived tables before the least recently used are dropped. */
  maxRows?: number;
  /** How long replaced rows stay readable. Default 60 s. */
  graceMs?: number;
}

interface Day {
  id: number;
  /** The sorted file paths the rows were built from. */
  files: string;
}

interface Entry {
  table: string;
  created: boolean;
  days: Map<string, Day>;
  /** Ids of replaced days and when they may be deleted. */
  garbage: Array<{ id: number; after: number }>;
  rows: number;
  lastUsed: number;
  lock: Promise<void>;
}

const DATE_DIR = /[/\\]date=(\d{4}-\d{2}-\d{2})[/\\]/;

/** The UTC date of a lake file, from its date=YYYY-MM-DD directory. */
function fileDate(path: string): string {
  const m = DATE_DIR.exec(path);
  if (!m) throw new Error(`not a lake data file path: ${path}`);
  return m[1]!;
}

export class DerivedCache {
  private readonly entries = new Map<string, Entry>();
  private nextTable = 0;
  private nextDayId = 1;
  private totalRows = 0;
  private readonly maxRows: number;
  private readonly graceMs: number;

  constructor(
    private readonly connect: () => Promise<DuckDBConnection>,
    private readonly release: (c: DuckDBConnection) => void,
    options: DerivedCacheOptions = {},
  ) {
    this.maxRows = options.maxRows ?? 40_000_000;
    this.graceMs = options.graceMs ?? 60_000;
  }

  /**
   * SQL relation of the derived rows of the days these files cover (every live file of each of
   * those days), built first where missing or stale; without the internal _day column.
   */
  async relation(derivation: Derivation, organizationId: string, files: readonly string[]): Promise<string | null> {
    if (files.length === 0) return null;
    const byDay = new Map<string, string[]>();
    for (const f of files) {
      const day = fileDate(f);
      const list = byDay.get(day);
      if (list) list.push(f);
      else byDay.set(day, [f]);
    }
    const key = `${derivation.id}\u0000${organizationId}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { table: `derived_${this.nextTable++}`, created: false, days: new Map(), garbage: [], rows: 0, lastUsed: 0, lock: Promise.resolve() };
      this.entries.set(key, entry);
    }
    entry.lastUsed = performance.now();
    const e = entry;
    const run = e.lock.then(() => this.build(e, derivation, organizationId, byDay));
    e.lock = run.then(
      () => undefined,
      () => undefined,
    );
    const ids = await run;
    this.evict(key);
    return `(SELECT * EXCLUDE (_day) FROM ${e.table} WHERE _day IN (${ids.join(', ')}))`;
  }

  /** Makes every day of `byDay` current; returns their ids. */
  private async build(e: Entry, d: Derivation, organizationId: string, byDay: Map<string, string[]>): Promise<number[]> {
    const stale: Array<{ day: string; files: string[]; id: number }> = [];
    const ids: number[] = [];
    for (const [day, files] of byDay) {
      const fingerprint = [...files].sort().join('\n');
      const current = e.days.get(day);
      if (current && current.files === fingerprint) {
        ids.push(current.id);
        continue;
      }
      const id = this.nextDayId++;
      stale.push({ day, files, id });
      ids.push(id);
    }
    const now = performance.now();
    const expired = e.garbage.filter((g) => g.after <= now);
    if (stale.length === 0 && expired.length === 0) return ids;
    const conn = await this.connect();
    try {
      if (expired.length > 0 && e.created) {
        await conn.run(`DELETE FROM ${e.table} WHERE _day IN (${expired.map((g) => g.id).join(', ')})`);
        e.garbage = e.garbage.filter((g) => g.after > now);
      }
      if (stale.length > 0) {
        const paths = stale.flatMap((s) => s.files);
        const map = `(VALUES ${stale.flatMap((s) => s.files.map((f) => `(${sqlStringLiteral(f)}, ${s.id})`)).join(', ')}) AS m(path, day_id)`;
        // `filename` carries the day's id, so perDay's GROUP BY filename merges the day's files.
        const eventDate = d.hourly ? `, date_trunc('hour', r.event_timestamp) AS event_date` : '';
        const src = `(SELECT r.* EXCLUDE (filename${d.hourly ? ', event_date' : ''})${eventDate}, m.day_id AS filename
                        FROM ${readParquetSql(paths, { filename: true })} r
                        JOIN ${map} ON r.filename = m.path
                       WHERE r.organization_id = $org)`;
        const select = `SELECT d.filename AS _day, d.* EXCLUDE (filename) FROM (${d.perDay.replaceAll('{{src}}', src)}) d`;
        const values: Record<string, string> = { org: organizationId };
        for (const [k, v] of Object.entries(d.params ?? {})) if (select.includes(`$${k}`)) values[k] = v;
        await conn.run(e.created ? `INSERT INTO ${e.table} ${select}` : `CREATE TABLE ${e.table} AS ${select}`, values);
        e.created = true;
        for (const s of stale) {
          const old = e.days.get(s.day);
          if (old) e.garbage.push({ id: old.id, after: now + this.graceMs });
          e.days.set(s.day, { id: s.id, files: [...s.files].sort().join('\n') });
        }
      }
      await this.recount(conn, e);
    } finally {
      this.release(conn);
    }
    return ids;
  }

  private async recount(conn: DuckDBConnection, e: Entry): Promise<void> {
    if (!e.created) return;
    const n = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${e.table}`)).getRows()[0]![0] as bigint);
    this.totalRows += n - e.rows;
    e.rows = n;
  }

  /** Drops whole least-recently-used tables (never `keep`) while over the row budget. */
  private evict(keep: string): void {
    if (this.totalRows <= this.maxRows) return;
    // Tables used within the grace period may be named by a query still running; leave them.
    const idleSince = performance.now() - this.graceMs;
    const victims = [...this.entries]
      .filter(([k, e]) => k !== keep && e.lastUsed < idleSince)
      .sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [k, e] of victims) {
      if (this.totalRows <= this.maxRows) break;
      this.entries.delete(k);
      this.totalRows -= e.rows;
      void e.lock.then(async () => {
        if (!e.created) return;
        const conn = await this.connect();
        try {
          await conn.run(`DROP TABLE IF EXISTS ${e.table}`);
        } finally {
          this.release(conn);
        }
      });
    }
  }

  /** Rows held now, replaced ones awaiting deletion included (for metrics and tests). */
  get rows(): number {
    return this.totalRows;
  }
}
