// Derived tables kept in the api's DuckDB memory: per organization and UTC day, a small aggregate
// of that day's lake files (a merged copy of the daily_costs rollup, cost per metadata value,
// numeric sums, usage per metric). A day's rows are valid for exactly the set of files they were
// built from; lake files are immutable (names are never reused), so when the day's live file set
// is still the same, the rows are still right. When it changes (a flush, compaction, re-pricing)
// the day is rebuilt under a new id; the old rows stay readable for a grace period (a query may
// have named them a moment ago) and are then deleted. Readers select rows by the ids of the
// days they need. Built lazily, many days per statement; evicted least-recently-used past a row
// budget. With a DerivedStore, days built from the lake are also persisted (settled days only, after
// the request that built them), and a day missing from memory is loaded from its persisted rows
// when their file list is the day's current one (api/lake/derived-store.ts). Background work of a
// relation (persisting, copying persisted rows in) waits for the query that named it: each
// expansion collects its own (collect), so one request's end never starts another's.
// The "files" of a day name its version: on the manifest lake its live files; on the open lake
// (DuckLake) one name per day carrying the day's version read from the catalog
// (api/lake/ducklake-days.ts), whose rows a DaySource reads. Either way a changed day has a new name.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DayFiles, DerivedStore } from './derived-store.js';
import { RowProjections, type RowSelection } from './row-projection.js';
import { readParquetSql, sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import type { LakeTable } from '../../core/lake/layout.js';
import { DAY_MS } from '../../core/time.js';

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

/**
 * Where a build reads a table's rows for some days: `days` name each day's id and its "files"
 * (as relation was given them). Returns a parenthesized relation of the organization's ($org)
 * rows of those days, in the table's columns plus `_day_id` (the day's id), and nothing else.
 */
export type DaySource = (table: LakeTable, days: ReadonlyArray<DayFiles & { id: number }>) => string;

export interface DerivedCacheOptions {
  /**
   * Rows kept across all derived tables before the least recently used are dropped, and above
   * which persisted days are no longer copied into memory. Default 600k (about 200 MB of merged
   * daily_costs rows: the api's RSS stays under 400 MB; bench/results/api.json).
   */
  maxRows?: number;
  /** How long replaced rows stay readable. Default 60 s. */
  graceMs?: number;
  /**
   * Database the tables are created in (the api's: an attached compressed in-memory database,
   * lake-query.ts); default DuckDB's main database.
   */
  catalog?: string;
  /** Where built days are persisted and looked up; none by default. */
  store?: DerivedStore | null;
  /**
   * A day is persisted once its end is at least this far in the past (default 1 day): the last
   * days still change with every flush, so their rows would be superseded within seconds.
   */
  persistSettledMs?: number;
  /**
   * Whether a query that reads only some rows (relation's `only`) reads that selection's
   * projection (row-projection.ts) or the whole cached days, filtered by the query as before;
   * default true. A switch for the read-path A/B (bench/read-path-layers).
   */
  rowProjections?: boolean;
}

type StaleDay = DayFiles & { id: number };

interface Built {
  /** Ids of the days now in memory. */
  ids: number[];
  /** Days read from their persisted file by this request. */
  direct: Array<DayFiles & { file: string }>;
  /** Days built from the lake that are settled enough to persist. */
  persist: StaleDay[];
}

/** The identity of a day's file list (lake file names are never reused). */
function fileListKey(files: readonly string[]): string {
  return [...files].sort().join('\n');
}

function groupByFile(days: ReadonlyArray<{ day: string; file: string }>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const x of days) out.set(x.file, [...(out.get(x.file) ?? []), x.day]);
  return out;
}

interface Day {
  id: number;
  /** The sorted file paths the rows were built from. */
  files: string;
}

interface Entry {
  key: string;
  table: string;
  created: boolean;
  days: Map<string, Day>;
  /** Ids of replaced days and when they may be deleted. */
  garbage: Array<{ id: number; after: number }>;
  rows: number;
  lastUsed: number;
  lock: Promise<void>;
  /** Days being copied from persisted files into memory. */
  loading: Set<string>;
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
  private readonly store: DerivedStore | null;
  private readonly persistSettledMs: number;
  private readonly catalog: string;
  private readonly background = new Set<Promise<void>>();
  /** The rows one query selects of a table (relation's `only`). */
  private readonly projections: RowProjections;
  private readonly useProjections: boolean;
  /**
   * Days answered from memory (`reused`) and built from the lake (`built`, and by the table they
   * were built from), over the cache's life: for tests and metrics.
   */
  readonly counts = { reused: 0, built: 0, builtFrom: {} as Partial<Record<LakeTable, number>> };
  /**
   * Starts of the background work of relations handed out and not yet started, one list per
   * collect() (per request: its own query ran, its own work starts) plus `unowned` for relations
   * asked outside any collect (LakeQuery.expand on its own: tests, EXPLAIN; no query of theirs is
   * coming), started at the end of the next request or by idle(). The current
   * list travels with the expansion's async calls, so callers in between (dimension-rollup-read.ts)
   * need not pass it along.
   */
  private readonly collecting = new AsyncLocalStorage<Array<() => void>>();
  private readonly pending = new Set<Array<() => void>>();
  private readonly unowned: Array<() => void> = [];

  constructor(
    private readonly connect: () => Promise<DuckDBConnection>,
    private readonly release: (c: DuckDBConnection) => void,
    options: DerivedCacheOptions = {},
  ) {
    this.maxRows = options.maxRows ?? 600_000;
    this.graceMs = options.graceMs ?? 60_000;
    this.store = options.store ?? null;
    this.catalog = options.catalog ? `${options.catalog}.` : '';
    this.persistSettledMs = options.persistSettledMs ?? DAY_MS;
    this.projections = new RowProjections(connect, release, { graceMs: this.graceMs, catalog: options.catalog });
    this.useProjections = options.rowProjections ?? true;
  }

  /**
   * SQL relation of the derived rows of the days these files cover (every live file of each of
   * those days), built first where missing or stale; without the internal _day column. With
   * `only` (the query reads only the rows it selects), the in-memory days may come from that
   * selection's projection (row-projection.ts): a subset holding every row it selects.
   */
  async relation(
    derivation: Derivation,
    organizationId: string,
    files: readonly string[],
    opts: { only?: RowSelection; source: DaySource },
  ): Promise<string | null> {
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
      entry = {
        key,
        table: `${this.catalog}derived_${this.nextTable++}`,
        loading: new Set(),
        created: false,
        days: new Map(),
        garbage: [],
        rows: 0,
        lastUsed: 0,
        lock: Promise.resolve(),
      };
      this.entries.set(key, entry);
    }
    entry.lastUsed = performance.now();
    const e = entry;
    const run = e.lock.then(() => this.build(e, derivation, organizationId, byDay, opts.source));
    // Never rejects, so one failure does not stop later builds.
    e.lock = run.then(
      () => undefined,
      () => undefined,
    );
    // After this request has its answer (its collect's startBackground, once its query ran), in the
    // background: persist the days built from the lake, load into memory the days read from
    // persisted files (requests meanwhile read those files). Started earlier, the copy competed
    // with the request's own query for DuckDB's threads.
    const started = new Promise<void>((resolve) => (this.collecting.getStore() ?? this.unowned).push(resolve));
    const settled = started
      .then(() => run)
      .then((built) => this.settle(e, derivation, organizationId, built))
      .catch(() => undefined);
    this.background.add(settled);
    void settled.finally(() => this.background.delete(settled));
    const { ids, direct } = await run;
    this.evict(key);
    const parts: string[] = [];
    if (ids.length > 0 && opts.only !== undefined && this.useProjections) {
      // Its copies are deleted only once the table no longer holds a day id (nor keeps it for the grace period).
      const held = new Set([...[...e.days.values()].map((day) => day.id), ...e.garbage.map((g) => g.id)]);
      parts.push(await this.projections.relation(e.table, opts.only, ids, (id) => held.has(id)));
    } else if (ids.length > 0) parts.push(`SELECT * EXCLUDE (_day) FROM ${e.table} WHERE _day IN (${ids.join(', ')})`);
    for (const [file, days] of groupByFile(direct)) {
      parts.push(
        `SELECT * EXCLUDE (_file_day) FROM ${readParquetSql([file])} WHERE _file_day IN (${days.map(sqlStringLiteral).join(', ')})`,
      );
    }
    return `(${parts.join(' UNION ALL BY NAME ')})`;
  }

  /**
   * Makes every day of `byDay` current: in memory already, or persisted for its file list (read
   * from that file by this request: `direct`), or built from the lake now. Returns the ids of the
   * days in memory, the direct ones, and the days built from the lake that may be persisted.
   */
  private async build(e: Entry, d: Derivation, organizationId: string, byDay: Map<string, string[]>, source: DaySource): Promise<Built> {
    const ids: number[] = [];
    const missing: DayFiles[] = [];
    for (const [day, files] of byDay) {
      const current = e.days.get(day);
      if (current && current.files === fileListKey(files)) ids.push(current.id);
      else missing.push({ day, files });
    }
    // Only settled days are ever persisted: a recent day's miss need not look on disk.
    const settledBefore = Date.now() - this.persistSettledMs;
    const settled = (day: string) => Date.parse(`${day}T00:00:00Z`) + DAY_MS <= settledBefore;
    const lookup = missing.filter((m) => settled(m.day));
    const direct = this.store && lookup.length > 0 ? await this.store.find(d, organizationId, lookup) : [];
    const directDays = new Set(direct.map((x) => x.day));
    const stale: StaleDay[] = missing.filter((m) => !directDays.has(m.day)).map((m) => ({ ...m, id: this.nextDayId++ }));
    ids.push(...stale.map((s) => s.id));
    this.counts.reused += byDay.size - missing.length;
    this.counts.built += stale.length;
    this.counts.builtFrom[d.source] = (this.counts.builtFrom[d.source] ?? 0) + stale.length;
    const directFiles = missing
      .filter((m) => directDays.has(m.day))
      .map((m) => ({ ...m, file: direct.find((x) => x.day === m.day)!.file }));
    const now = performance.now();
    const expired = e.garbage.filter((g) => g.after <= now);
    if (stale.length === 0 && expired.length === 0) return { ids, direct: directFiles, persist: [] };
    const conn = await this.connect();
    try {
      if (expired.length > 0 && e.created) {
        await conn.run(`DELETE FROM ${e.table} WHERE _day IN (${expired.map((g) => g.id).join(', ')})`);
        e.garbage = e.garbage.filter((g) => g.after > now);
      }
      if (stale.length > 0) {
        // `filename` carries the day's id, so perDay's GROUP BY filename merges the day's rows.
        const eventDate = d.hourly ? `, date_trunc('hour', s.event_timestamp) AS event_date` : '';
        const src = `(SELECT s.* EXCLUDE (_day_id${d.hourly ? ', event_date' : ''})${eventDate}, s._day_id AS filename
                        FROM ${source(d.source, stale)} s)`;
        const select = `SELECT d.filename AS _day, d.* EXCLUDE (filename) FROM (${d.perDay.replaceAll('{{src}}', src)}) d`;
        const values: Record<string, string> = { org: organizationId };
        for (const [k, v] of Object.entries(d.params ?? {})) if (select.includes(`$${k}`)) values[k] = v;
        await conn.run(e.created ? `INSERT INTO ${e.table} BY NAME ${select}` : `CREATE TABLE ${e.table} AS ${select}`, values);
        e.created = true;
        for (const s of stale) this.replaceDay(e, s.day, s.id, s.files);
      }
      await this.recount(conn, e);
    } finally {
      this.release(conn);
    }
    return { ids, direct: directFiles, persist: this.store ? stale.filter((s) => settled(s.day)) : [] };
  }

  /** Records a day's new rows; its old rows (if any) are deleted after the grace period. */
  private replaceDay(e: Entry, day: string, id: number, files: readonly string[]): void {
    const old = e.days.get(day);
    if (old) e.garbage.push({ id: old.id, after: performance.now() + this.graceMs });
    e.days.set(day, { id, files: fileListKey(files) });
  }

  /** The work after a build: persist what was built from the lake, load what was read from persisted files. */
  private async settle(e: Entry, d: Derivation, organizationId: string, built: Built): Promise<void> {
    // An entry evicted meanwhile has no table to copy from (a failed COPY would turn persistence off).
    if (!this.store || this.entries.get(e.key) !== e) return;
    if (built.persist.length > 0) {
      const conn = await this.connect();
      try {
        await this.store.write(conn, d, organizationId, e.table, built.persist);
      } finally {
        this.release(conn);
      }
    }
    // Over the row budget, persisted days stay on disk: read from their files, memory stays bounded.
    if (this.full) return;
    const load = built.direct.filter((x) => !e.loading.has(x.day) && e.days.get(x.day)?.files !== fileListKey(x.files));
    if (load.length > 0) await this.loadPersisted(e, load);
  }

  /**
   * Copies persisted days into memory. The Parquet is decoded into a staging table outside the
   * entry's lock (requests meanwhile read the files directly); only the move into the entry's
   * table holds it.
   */
  private async loadPersisted(e: Entry, load: Array<DayFiles & { file: string }>): Promise<void> {
    for (const x of load) e.loading.add(x.day);
    const ids = load.map(() => this.nextDayId++);
    const staging = `${e.table}_load_${ids[0]}`;
    const map = `(VALUES ${load.map((x, i) => `(${sqlStringLiteral(x.file)}, ${sqlStringLiteral(x.day)}, ${ids[i]})`).join(', ')}) AS m(path, file_day, day_id)`;
    const conn = await this.connect();
    try {
      try {
        await conn.run(`CREATE TABLE ${staging} AS SELECT m.day_id AS _day, p.* EXCLUDE (_file_day, filename)
                          FROM ${readParquetSql([...new Set(load.map((x) => x.file))], { filename: true })} p
                          JOIN ${map} ON p.filename = m.path AND p._file_day = m.file_day`);
      } catch {
        // The batch was deleted meanwhile (superseded in another process): the next request rebuilds.
        for (const x of load) this.store?.forget(x.file);
        return;
      }
      const moved = e.lock.then(async () => {
        if (this.entries.get(e.key) !== e) return; // evicted meanwhile
        if (e.created) await conn.run(`INSERT INTO ${e.table} BY NAME SELECT * FROM ${staging}`);
        else await conn.run(`ALTER TABLE ${staging} RENAME TO ${e.table.slice(this.catalog.length)}`);
        e.created = true;
        // A build may have made a day current meanwhile: its rows win, ours are garbage at once.
        load.forEach((x, i) => {
          if (e.days.get(x.day)?.files === fileListKey(x.files)) e.garbage.push({ id: ids[i]!, after: 0 });
          else this.replaceDay(e, x.day, ids[i]!, x.files);
        });
        await this.recount(conn, e);
      });
      e.lock = moved.catch(() => undefined);
      await moved;
    } finally {
      await conn.run(`DROP TABLE IF EXISTS ${staging}`).catch(() => undefined);
      this.release(conn);
      for (const x of load) e.loading.delete(x.day);
    }
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
      this.projections.drop(e.table);
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

  /**
   * Runs `expand` (which asks for relations) with a background list of its own and returns its
   * value and `startBackground`, which starts that list's work (and any unowned) but no other
   * request's: call it once the query reading the relations ran. Should `expand` throw, its work
   * starts at once.
   */
  async collect<T>(expand: () => Promise<T>): Promise<{ value: T; startBackground: () => void }> {
    const list: Array<() => void> = [];
    this.pending.add(list);
    const startBackground = () => {
      this.pending.delete(list);
      for (const start of [...list.splice(0), ...this.unowned.splice(0)]) start();
    };
    try {
      return { value: await this.collecting.run(list, expand), startBackground };
    } catch (err) {
      startBackground();
      throw err;
    }
  }

  /** Relations whose background work has not started yet (their query has not run; for tests). */
  get waiting(): number {
    let n = this.unowned.length;
    for (const list of this.pending) n += list.length;
    return n;
  }

  /** Settles when the background work so far (persisting, loading persisted days) is done; starts what waits. */
  async idle(): Promise<void> {
    for (const start of this.unowned.splice(0)) start();
    for (const list of [...this.pending]) {
      this.pending.delete(list);
      for (const start of list.splice(0)) start();
    }
    while (this.background.size > 0) await Promise.all([...this.background]);
  }

  /**
   * Settles when the background work handed out so far is done, starting none of it: work that
   * waits for its request's query starts when that query ran (every request starts its own).
   */
  async settled(): Promise<void> {
    await Promise.all([...this.background]);
  }

  /** Rows held in the selections' projections (row-projection.ts), beside `rows`. */
  get projectedRows(): number {
    return this.projections.rows;
  }

  /** Whether the row budget is used up (more rows would push out the least recently used). */
  get full(): boolean {
    return this.totalRows >= this.maxRows;
  }

  /** Rows held now, replaced ones awaiting deletion included (for metrics and tests). */
  get rows(): number {
    return this.totalRows;
  }
}
