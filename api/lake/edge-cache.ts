// The answer of a sub-day slice of a range (the part before its first or after its last UTC
// midnight: whole hours from the hourly cache plus the sub-hour ends from raw events), kept as a
// small DuckDB table so that a range with sub-day bounds asked again reads a few cached rows
// instead of the day's raw events. A slice's rows are a function of the derivation (id and
// params), the organization, the exact [start, end) and the day's events files; files are
// immutable and never renamed, so a key naming all of them can never hold a stale answer (a
// flush, compaction or re-pricing of the day changes the file list, hence the key). A slice is
// kept on its second request: a range asked once (a rolling "now" bound) costs no extra write.
// Bounded by slices and rows, least recently used first; a dropped table stays readable for a
// grace period, as the DerivedCache's replaced rows do.
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { inlineParameters } from './inline-parameters.js';
import { SideTables, type SideTablesOptions } from './side-tables.js';

export interface EdgeCacheOptions extends SideTablesOptions {
  /** Slices kept at most (default 256; 0 = none: every slice computed, the read-path A/B's switch). */
  maxSlices?: number;
  /** Rows kept across all slices at most (default 50k). */
  maxRows?: number;
}

/** What a slice's rows depend on; every part goes into its key. */
export interface EdgeSlice {
  /** The derivation's id and parameters (what the rows are). */
  derivation: string;
  params: Readonly<Record<string, string>>;
  organizationId: string;
  start: Date;
  end: Date;
  /** Every events file of the slice's day (sorted or not). */
  files: readonly string[];
}

interface Kept {
  table: string;
  rows: number;
  lastUsed: number;
}

/** Keys remembered as asked once, so that their second request keeps them. */
const SEEN_KEYS = 4096;

export class EdgeCache {
  private readonly kept = new Map<string, Kept>();
  private readonly building = new Map<string, Promise<Kept | null>>();
  private readonly seen = new Set<string>();
  private totalRows = 0;
  private readonly maxSlices: number;
  private readonly maxRows: number;
  private readonly tables: SideTables;

  constructor(connect: () => Promise<DuckDBConnection>, release: (c: DuckDBConnection) => void, options: EdgeCacheOptions = {}) {
    this.maxSlices = options.maxSlices ?? 256;
    this.maxRows = options.maxRows ?? 50_000;
    this.tables = new SideTables(connect, release, 'edge', options);
  }

  /**
   * A relation with the slice's rows: the kept table when the slice was kept, else `compute()`
   * (the slice computed as usual, a relation whose parameters `values` binds), kept now when this
   * is the slice's second request.
   */
  async relation(slice: EdgeSlice, compute: () => Promise<string>, values: Record<string, string>): Promise<string> {
    if (this.maxSlices === 0) return compute();
    const key = sliceKey(slice);
    const kept = await this.current(key);
    if (kept) return `(SELECT * FROM ${kept.table})`;
    const sql = await compute();
    if (!this.seen.has(key)) {
      this.seen.add(key);
      if (this.seen.size > SEEN_KEYS) this.seen.delete(this.seen.values().next().value!);
      return sql;
    }
    // Another request may have kept (or be keeping) the slice while this one computed: one table per slice.
    const meanwhile = await this.current(key);
    if (meanwhile) return `(SELECT * FROM ${meanwhile.table})`;
    if (this.building.has(key)) return sql;
    const build = this.keep(key, sql, values);
    this.building.set(key, build);
    try {
      const made = await build;
      return made ? `(SELECT * FROM ${made.table})` : sql;
    } finally {
      this.building.delete(key);
    }
  }

  /** The slice's kept table (waiting for one being kept), marked used; null when none is (any more). */
  private async current(key: string): Promise<Kept | null> {
    const kept = this.kept.get(key) ?? (await this.building.get(key));
    if (!kept || this.kept.get(key) !== kept) return null;
    kept.lastUsed = performance.now();
    return kept;
  }

  private keep(key: string, sql: string, values: Record<string, string>): Promise<Kept | null> {
    const table = this.tables.name();
    return this.tables.use(async (conn) => {
      try {
        await conn.run(`CREATE TABLE ${table} AS SELECT * FROM ${inlineParameters(sql, values)}`);
        const rows = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRows()[0]![0] as bigint);
        const made: Kept = { table, rows, lastUsed: performance.now() };
        this.kept.set(key, made);
        this.seen.delete(key);
        this.totalRows += rows;
        this.evict(key);
        return made;
      } catch {
        // The slice is answered from `sql` as before; nothing is kept.
        await conn.run(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
        return null;
      }
    });
  }

  /** Least recently used slices (never `keep`) go while over either bound; their tables after the grace period. */
  private evict(keep: string): void {
    if (this.kept.size <= this.maxSlices && this.totalRows <= this.maxRows) return;
    const victims = [...this.kept].filter(([k]) => k !== keep).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [k, v] of victims) {
      if (this.kept.size <= this.maxSlices && this.totalRows <= this.maxRows) break;
      this.kept.delete(k);
      this.totalRows -= v.rows;
      this.tables.doom(v.table);
    }
  }

  /** Slices and rows kept now (for tests and metrics). */
  get size(): { slices: number; rows: number } {
    return { slices: this.kept.size, rows: this.totalRows };
  }
}

function sliceKey(s: EdgeSlice): string {
  const h = createHash('sha256');
  h.update(JSON.stringify([s.derivation, s.params, s.organizationId, s.start.toISOString(), s.end.toISOString(), [...s.files].sort()]));
  return h.digest('base64');
}
