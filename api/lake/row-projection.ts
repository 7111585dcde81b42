// The rows of a DerivedCache table that one query reads — one end user's (end-user-costs by
// dimension, model, provider; a summary), or one value of a by-dimension filter — copied into a
// small table, so that a warm query reads those few hundred rows instead of filtering the rows of
// every end user or value (hundreds of thousands at 90 days). A cached day's rows never change
// under its id (derived-cache.ts), so a copy of (selection, day id) is right for as long as the id
// is named; a day rebuilt under a new id is copied again, and the copies of ids the source no
// longer holds are deleted. One projection table per source table holds every selection asked
// for, each copy tagged with its selection's number (so copies of one row for two selections
// never mix); past its row bound the table is replaced by an empty one (the old one dropped after
// the grace period: a running query may name it).
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import { SideTables, type SideTablesOptions } from './side-tables.js';

/**
 * The rows a query reads: those whose `column` (NULL read as `nullAs` when given) equals
 * `value`. The column is named by code (never request text) and must be one the derivation has.
 */
export interface RowSelection {
  column: 'end_user_id' | 'filter_value';
  value: string;
  nullAs?: string;
}

function rowSelectionSql(s: RowSelection): string {
  const col = s.nullAs === undefined ? `"${s.column}"` : `coalesce("${s.column}", ${sqlStringLiteral(s.nullAs)})`;
  return `${col} = ${sqlStringLiteral(s.value)}`;
}

export interface RowProjectionOptions extends SideTablesOptions {
  /** Rows of one projection table before it starts over (default 50k). */
  maxRows?: number;
  /** Selections per source table before its projection starts over (default 1,000). */
  maxSelections?: number;
}

interface Projection {
  table: string;
  created: boolean;
  /** Selection (its SQL) → its number and the ids of the source days copied. */
  selections: Map<string, { tag: number; days: Set<number> }>;
  rows: number;
  lock: Promise<void>;
}

export class RowProjections {
  private readonly bySource = new Map<string, Projection>();
  private nextTag = 0;
  private readonly maxRows: number;
  private readonly maxSelections: number;
  private readonly tables: SideTables;

  constructor(connect: () => Promise<DuckDBConnection>, release: (c: DuckDBConnection) => void, options: RowProjectionOptions = {}) {
    this.maxRows = options.maxRows ?? 50_000;
    this.maxSelections = options.maxSelections ?? 1_000;
    this.tables = new SideTables(connect, release, 'selected_rows', options);
  }

  /**
   * A SELECT of the rows of `source` (a DerivedCache table with `_day`) of the days `ids` (not
   * empty) that the selection picks, without `_day`; copied first where missing. `held(id)`
   * tells whether the source still holds a day id (copies of the others are deleted).
   */
  async relation(source: string, selection: RowSelection, ids: readonly number[], held: (id: number) => boolean): Promise<string> {
    const p = this.projectionOf(source);
    const run = p.lock.then(() => this.update(p, source, rowSelectionSql(selection), ids, held));
    p.lock = run.then(
      () => undefined,
      () => undefined,
    );
    const { table, tag } = await run;
    return `SELECT * EXCLUDE (_day, _selection) FROM ${table} WHERE _selection = ${tag} AND _day IN (${ids.join(', ')})`;
  }

  /** Rows held in projection tables now (for metrics and benchmarks). */
  get rows(): number {
    let n = 0;
    for (const p of this.bySource.values()) n += p.rows;
    return n;
  }

  /** Forgets the projection of a source table that was dropped. */
  drop(source: string): void {
    const p = this.bySource.get(source);
    if (!p) return;
    this.bySource.delete(source);
    if (p.created) this.tables.doom(p.table);
  }

  private projectionOf(source: string): Projection {
    let p = this.bySource.get(source);
    if (!p) {
      p = { table: this.tables.name(), created: false, selections: new Map(), rows: 0, lock: Promise.resolve() };
      this.bySource.set(source, p);
    }
    return p;
  }

  /** Copies the selection's missing days, deletes the copies of days gone; returns the table and tag to read. */
  private async update(
    p: Projection,
    source: string,
    where: string,
    ids: readonly number[],
    held: (id: number) => boolean,
  ): Promise<{ table: string; tag: number }> {
    let sel = p.selections.get(where);
    // Selections come from request text (a filter value): one matching no row adds no rows but
    // still an entry, so their number is bounded too.
    if (p.rows > this.maxRows || (!sel && p.selections.size >= this.maxSelections)) {
      // Start over: the old table stays readable for the grace period.
      this.tables.doom(p.table);
      Object.assign(p, { table: this.tables.name(), created: false, selections: new Map(), rows: 0 });
      sel = undefined;
    }
    if (!sel) p.selections.set(where, (sel = { tag: this.nextTag++, days: new Set() }));
    const have = sel.days;
    const missing = ids.filter((id) => !have.has(id));
    const gone = [...have].filter((id) => !held(id));
    if (missing.length === 0 && gone.length === 0 && !this.tables.dropDue) return { table: p.table, tag: sel.tag };
    await this.tables.use(async (conn) => {
      if (missing.length > 0) {
        const select = `SELECT *, ${sel.tag} AS _selection FROM ${source} WHERE _day IN (${missing.join(', ')}) AND ${where}`;
        await conn.run(p.created ? `INSERT INTO ${p.table} BY NAME ${select}` : `CREATE TABLE ${p.table} AS ${select}`);
        p.created = true;
        for (const id of missing) have.add(id);
      }
      if (gone.length > 0) {
        // The source no longer holds these ids, so no query names them any more.
        await conn.run(`DELETE FROM ${p.table} WHERE _selection = ${sel.tag} AND _day IN (${gone.join(', ')})`);
        for (const id of gone) have.delete(id);
      }
      if (p.created) p.rows = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${p.table}`)).getRows()[0]![0] as bigint);
    });
    return { table: p.table, tag: sel.tag };
  }
}
