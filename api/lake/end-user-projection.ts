// One end user's rows of a DerivedCache table, copied into a small table of their own, so that a
// warm per-end-user query (end-user-costs by dimension, model, provider; a summary) reads that
// end user's few hundred rows instead of filtering the rows of every end user (hundreds of
// thousands at 90 days). A cached day's rows never change under its id (derived-cache.ts), so a
// copy of (end user, day id) is right for as long as the id is named; a day rebuilt under a new id
// is copied again, and the copies of ids the source no longer holds are deleted. One projection
// table per source table holds every end user asked for; past its row bound it is replaced by an
// empty one (the old one dropped after the grace period: a running query may name it).
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';

export interface EndUserProjectionOptions {
  /** Rows of one projection table before it starts over (default 100k). */
  maxRows?: number;
  graceMs?: number;
  catalog?: string;
}

interface Projection {
  table: string;
  created: boolean;
  /** End user → ids of the source days copied. */
  users: Map<string, Set<number>>;
  rows: number;
  lock: Promise<void>;
}

export class EndUserProjections {
  private readonly bySource = new Map<string, Projection>();
  private readonly doomed: Array<{ table: string; after: number }> = [];
  private nextTable = 0;
  private readonly maxRows: number;
  private readonly graceMs: number;
  private readonly catalog: string;

  constructor(
    private readonly connect: () => Promise<DuckDBConnection>,
    private readonly release: (c: DuckDBConnection) => void,
    options: EndUserProjectionOptions = {},
  ) {
    this.maxRows = options.maxRows ?? 100_000;
    this.graceMs = options.graceMs ?? 60_000;
    this.catalog = options.catalog ? `${options.catalog}.` : '';
  }

  /**
   * A SELECT of the rows of `source` (a DerivedCache table with `_day` and `end_user_id`) of the days `ids`
   * whose end_user_id is `endUserId`, without `_day`; copied first where missing. `held(id)` tells
   * whether the source still holds a day id (copies of the others are deleted).
   */
  async relation(source: string, endUserId: string, ids: readonly number[], held: (id: number) => boolean): Promise<string> {
    const p = this.projectionOf(source);
    const run = p.lock.then(() => this.update(p, source, endUserId, ids, held));
    p.lock = run.then(
      () => undefined,
      () => undefined,
    );
    const table = await run;
    return `SELECT * EXCLUDE (_day) FROM ${table} WHERE end_user_id = ${sqlStringLiteral(endUserId)} AND _day IN (${ids.join(', ')})`;
  }

  /** Forgets the projection of a source table that was dropped. */
  drop(source: string): void {
    const p = this.bySource.get(source);
    if (!p) return;
    this.bySource.delete(source);
    if (p.created) this.doomed.push({ table: p.table, after: performance.now() + this.graceMs });
  }

  private projectionOf(source: string): Projection {
    let p = this.bySource.get(source);
    if (!p) {
      p = { table: `${this.catalog}end_user_rows_${this.nextTable++}`, created: false, users: new Map(), rows: 0, lock: Promise.resolve() };
      this.bySource.set(source, p);
    }
    return p;
  }

  /** Copies the missing days of the end user, deletes the copies of days gone; returns the table to read. */
  private async update(p: Projection, source: string, endUserId: string, ids: readonly number[], held: (id: number) => boolean): Promise<string> {
    if (p.rows > this.maxRows) {
      // Start over: the old table stays readable for the grace period.
      this.doomed.push({ table: p.table, after: performance.now() + this.graceMs });
      Object.assign(p, { table: `${this.catalog}end_user_rows_${this.nextTable++}`, created: false, users: new Map(), rows: 0 });
    }
    let have = p.users.get(endUserId);
    if (!have) p.users.set(endUserId, (have = new Set()));
    const missing = ids.filter((id) => !have.has(id));
    const gone = [...have].filter((id) => !held(id));
    if (missing.length === 0 && gone.length === 0 && this.doomed.length === 0) return p.table;
    const user = sqlStringLiteral(endUserId);
    const conn = await this.connect();
    try {
      const now = performance.now();
      while (this.doomed.length > 0 && this.doomed[0]!.after <= now) await conn.run(`DROP TABLE IF EXISTS ${this.doomed.shift()!.table}`);
      if (missing.length > 0) {
        const select = `SELECT * FROM ${source} WHERE _day IN (${missing.join(', ')}) AND end_user_id = ${user}`;
        await conn.run(p.created ? `INSERT INTO ${p.table} BY NAME ${select}` : `CREATE TABLE ${p.table} AS ${select}`);
        p.created = true;
        for (const id of missing) have.add(id);
      }
      if (gone.length > 0) {
        // The source no longer holds these ids, so no query names them any more.
        await conn.run(`DELETE FROM ${p.table} WHERE end_user_id = ${user} AND _day IN (${gone.join(', ')})`);
        for (const id of gone) have.delete(id);
      }
      if (p.created) p.rows = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${p.table}`)).getRows()[0]![0] as bigint);
    } finally {
      this.release(conn);
    }
    return p.table;
  }
}
