// The control-plane database: one interface over PGlite (embedded, $DATA_DIR/control) and
// PostgreSQL (`pg`, when DATABASE_URL is set). Same SQL for both: plain PostgreSQL with $n params.
import path from 'node:path';
import fs from 'node:fs';

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
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
}

export async function openControlDb(opts: ControlDbOptions): Promise<ControlDb> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl) : openPglite(opts.pgliteDir);
}

async function openPglite(dir: string | null): Promise<ControlDb> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dir) fs.mkdirSync(path.dirname(dir), { recursive: true });
  // Match pg's defaults so callers see the same values on both: NUMERIC and INT8 as strings.
  const parsers = { 1700: (v: string) => v, 20: (v: string) => v };
  const db = dir ? new PGlite(dir, { parsers }) : new PGlite({ parsers });
  await db.waitReady;
  const wrap = (q: { query: (sql: string, params?: unknown[]) => Promise<{ rows: unknown[] }> }): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      return (await q.query(sql, params)).rows as T[];
    },
  });
  return {
    kind: 'pglite',
    ...wrap(db),
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    close: () => db.close(),
  };
}

async function openPostgres(url: string): Promise<ControlDb> {
  const pg = (await import('pg')).default;
  // NUMERIC and BIGINT arrive as strings (exact); keep them so. int8 counts are parsed by callers.
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  return {
    kind: 'postgres',
    async query<T>(sql: string, params?: unknown[]) {
      return (await pool.query(sql, params)).rows as T[];
    },
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({
          async query<T>(sql: string, params?: unknown[]) {
            return (await client.query(sql, params)).rows as T[];
          },
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
