// The control-plane database: one interface over PGlite (embedded, $DATA_DIR/control) and
// PostgreSQL (`pg`, when DATABASE_URL is set). Same SQL for both: plain PostgreSQL with $n params,
// and the same JS values back: NUMERIC and INT8 as strings (exact), timestamptz as Date, arrays as
// arrays, jsonb as objects, bytea as Buffer.
import path from 'node:path';
import fs from 'node:fs';
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
  close(): Promise<void>;
}

export interface ControlDbOptions {
  databaseUrl: string | null;
  /** Directory for PGlite when databaseUrl is null; `null` means in-memory (tests). */
  pgliteDir: string | null;
  /** Pool size for PostgreSQL (default 10). */
  maxConnections?: number;
  /** PGlite on a worker thread (default), or false: on the calling thread. */
  pgliteThread?: boolean;
}

export async function openControlDb(opts: ControlDbOptions): Promise<ControlDb> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.maxConnections ?? 10);
  return opts.pgliteThread === false ? openPglite(opts.pgliteDir) : openPgliteThread(opts.pgliteDir);
}

// PostgreSQL type oids whose PGlite defaults differ from pg's.
const NUMERIC = 1700;
const INT8 = 20;
const BYTEA = 17;

async function openPglite(dir: string | null): Promise<ControlDb> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dir) fs.mkdirSync(path.dirname(dir), { recursive: true });
  const parsers = {
    [NUMERIC]: (v: string) => v,
    [INT8]: (v: string) => v,
    // Text-format bytea is "\x" + hex; pg hands back a Buffer, so do the same.
    [BYTEA]: (v: string) => Buffer.from(v.slice(2), 'hex'),
  };
  const db = dir ? new PGlite(dir, { parsers }) : new PGlite({ parsers });
  await db.waitReady;
  type PgliteLike = {
    query: (sql: string, params?: unknown[]) => Promise<{ rows: unknown[] }>;
    exec: (sql: string) => Promise<unknown>;
  };
  const wrap = (q: PgliteLike): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      return (await q.query(sql, params)).rows as T[];
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  });
  return {
    kind: 'pglite',
    ...wrap(db),
    // PGlite is one connection: its transactions run one at a time, queries wait for them.
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    close: () => db.close(),
  };
}

async function openPostgres(url: string, max: number): Promise<ControlDb> {
  const pg = (await import('pg')).default;
  // pg returns NUMERIC and BIGINT as strings (exact) by default; keep them so.
  const pool = new pg.Pool({ connectionString: url, max });
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
