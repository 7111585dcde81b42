// Schema migrations: numbered SQL files in core/control/migrations, applied in order at start,
// each in its own transaction and recorded in schema_migrations with a checksum. A transaction-
// scoped advisory lock serializes processes that start at once; the loser finds the work done.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fromRoot } from '../paths.js';
import type { ControlDb, Queryable } from './db.js';

export interface Migration {
  version: number;
  /** File name without .sql, e.g. "002_ingest_ledger". */
  id: string;
  name: string;
  sql: string;
  checksum: string;
}

/** Arbitrary constant shared by every Marginal process: "the schema migration lock". */
const MIGRATION_LOCK_KEY = 0x6d61_7267; // "marg"

const FILE_PATTERN = /^(\d{3,})_([a-z0-9_]+)\.sql$/;

export function loadMigrations(dir: string = fromRoot('core', 'control', 'migrations')): Migration[] {
  const migrations = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .map((file) => {
      const m = FILE_PATTERN.exec(file);
      if (!m) throw new Error(`migration file name must look like 001_name.sql: ${file}`);
      const sql = fs.readFileSync(path.join(dir, file), 'utf8');
      return {
        version: Number(m[1]),
        id: file.slice(0, -'.sql'.length),
        name: m[2]!,
        sql,
        checksum: crypto.createHash('sha256').update(sql).digest('hex'),
      };
    })
    .sort((a, b) => a.version - b.version);
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]!.version === migrations[i - 1]!.version) {
      throw new Error(`two migrations share version ${migrations[i]!.version}`);
    }
  }
  return migrations;
}

async function lockAndEnsureTable(tx: Queryable): Promise<Map<number, string>> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
  await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    checksum   text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const rows = await tx.query<{ version: number; checksum: string }>('SELECT version, checksum FROM schema_migrations');
  return new Map(rows.map((r) => [r.version, r.checksum]));
}

function checkUnchanged(m: Migration, appliedChecksum: string): void {
  if (appliedChecksum !== m.checksum) {
    throw new Error(`migration ${m.id}.sql was edited after it was applied; add a new migration instead of changing an applied one`);
  }
}

/** Applies pending migrations in order; returns the ids of those this call applied. */
export async function migrate(db: ControlDb, migrations: Migration[] = loadMigrations()): Promise<string[]> {
  const applied = await db.transaction(lockAndEnsureTable);
  const done: string[] = [];
  for (const m of migrations) {
    const known = applied.get(m.version);
    if (known !== undefined) {
      checkUnchanged(m, known);
      continue;
    }
    const ran = await db.transaction(async (tx) => {
      // Re-read under the lock: another process may have applied it since.
      const now = await lockAndEnsureTable(tx);
      const other = now.get(m.version);
      if (other !== undefined) {
        checkUnchanged(m, other);
        return false;
      }
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [m.version, m.name, m.checksum]);
      return true;
    });
    if (ran) done.push(m.id);
  }
  return done;
}
