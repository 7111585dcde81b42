// The control-plane database: one interface over PGlite (embedded, $DATA_DIR/control, on its own
// thread: pglite-thread.ts) and PostgreSQL (`pg`, when DATABASE_URL is set). Same SQL for both:
// plain PostgreSQL with $n params, and the same JS values back: NUMERIC and INT8 as strings
// (exact), timestamptz as Date, arrays as arrays, jsonb as objects, bytea as Buffer.
import type { MessagePort } from 'node:worker_threads';
import { openPgliteThread } from './pglite-thread.js';

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface ControlDb extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn in one transaction; rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * PGlite on its thread only: a port to the same connection for another thread, answered by the
   * PGlite thread itself (statements, no transactions; see queryableOverPort). PostgreSQL has no
   * such thing: another thread opens its own pool.
   */
  connectPort?(): MessagePort;
  close(): Promise<void>;
}

export interface ControlDbOptions {
  databaseUrl: string | null;
  /** Directory for PGlite when databaseUrl is null; `null` means in-memory (tests). */
  pgliteDir: string | null;
  /** Pool size for PostgreSQL (default 10). */
  maxConnections?: number;
}

export async function openControlDb(opts: ControlDbOptions): Promise<ControlDb> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.maxConnections ?? 10);
  return openPgliteThread(opts.pgliteDir);
}

async function openPostgres(url: string, max: number): Promise<ControlDb> {
  const pg = (await import('pg')).default;
  // pg returns NUMERIC and BIGINT as strings (exact) by default; keep them so.
  // A connection that cannot be had in 5 s fails (answered 503) instead of holding the request.
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 5_000 });
  // An idle client losing its connection emits 'error' on the pool; without a listener that
  // would crash the process. The next query gets a fresh connection.
  pool.on('error', () => undefined);
  type ClientLike = { query: (sql: string, params?: unknown[]) => Promise<{ rows: unknown[] }> };
  const wrap = (c: ClientLike): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      return (await c.query(sql, params)).rows as T[];
    },
    async exec(sql: string) {
      // Without parameters pg uses the simple protocol, which accepts several statements.
      await c.query(sql);
    },
  });
  return {
    kind: 'postgres',
    ...wrap(pool),
    async transaction(fn) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await fn(wrap(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        // A connection that cannot even roll back is discarded instead of returned to the pool.
        await client.query('ROLLBACK').catch((e: Error) => (broken = e));
        throw err;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
