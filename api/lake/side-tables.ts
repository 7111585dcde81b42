// The small tables the read path keeps beside the DerivedCache's (edge-cache.ts, row-projection.ts):
// unique names in its database, a connection for their statements, and the rule that a table
// given up stays readable for a grace period (a query that named it a moment ago may still be
// running) and is dropped by the first statement after it.
import type { DuckDBConnection } from '@duckdb/node-api';

export interface SideTablesOptions {
  /** How long a given-up table stays readable (default 60 s). */
  graceMs?: number;
  /** Database the tables are created in (as DerivedCacheOptions.catalog). */
  catalog?: string;
}

export class SideTables {
  private readonly doomed: Array<{ table: string; after: number }> = [];
  private next = 0;
  private readonly graceMs: number;
  private readonly catalog: string;

  constructor(
    private readonly connect: () => Promise<DuckDBConnection>,
    private readonly release: (c: DuckDBConnection) => void,
    private readonly prefix: string,
    options: SideTablesOptions = {},
  ) {
    this.graceMs = options.graceMs ?? 60_000;
    this.catalog = options.catalog ? `${options.catalog}.` : '';
  }

  /** A table name never used before in this process. */
  name(): string {
    return `${this.catalog}${this.prefix}_${this.next++}`;
  }

  /** Gives a table up: dropped after the grace period. */
  doom(table: string): void {
    this.doomed.push({ table, after: performance.now() + this.graceMs });
  }

  /** A given-up table is past its grace period and waits to be dropped. */
  get dropDue(): boolean {
    return this.doomed.length > 0 && this.doomed[0]!.after <= performance.now();
  }

  /** Runs `fn` on a connection, after dropping the given-up tables whose grace period is over. */
  async use<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    const conn = await this.connect();
    try {
      while (this.dropDue) await conn.run(`DROP TABLE IF EXISTS ${this.doomed.shift()!.table}`);
      return await fn(conn);
    } finally {
      this.release(conn);
    }
  }
}
