// The distributed deployment's control plane for a read-API benchmark: a throwaway local
// PostgreSQL cluster (scripts/postgres/local-cluster.ts), migrated, holding a copy of every row of
// the benchmark's PGlite control plane ($DATA_DIR/control), so an api process can run on
// PostgreSQL over the same lake and keys (bench/api-rss). Rows travel as JSON (bytea as \x hex,
// numerics and timestamps as text), foreign keys are not checked during the copy.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openControlDb } from '../../core/control/db.js';
import { migrate } from '../../core/control/migrate.js';
import { startLocalPostgres } from '../../scripts/postgres/local-cluster.js';

export interface PostgresControlPlane {
  url: string;
  stop(): Promise<void>;
}

export async function postgresCopyOfControlPlane(dataDir: string): Promise<PostgresControlPlane> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-api-pg-'));
  fs.chmodSync(dir, 0o777); // the cluster runs as the postgres OS user when we are root
  const cluster = await startLocalPostgres({ dir, database: 'bench_api', throwaway: true });
  const target = await openControlDb({ databaseUrl: cluster.url, pgliteDir: null, maxConnections: 1 });
  const source = await openControlDb({ databaseUrl: null, pgliteDir: path.join(dataDir, 'control') });
  try {
    await migrate(target);
    const tables = await target.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
    );
    await target.transaction(async (tx) => {
      await tx.query(`SET LOCAL session_replication_role = replica`);
      for (const { name } of tables) {
        // Tables the migrations filled (their own bookkeeping, seeded rows) are already right.
        const [{ n }] = (await tx.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${name}"`)) as [{ n: string }];
        if (n !== '0') continue;
        const columns = (
          await tx.query<{ c: string }>(
            `SELECT column_name AS c FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
            [name],
          )
        ).map((r) => `"${r.c}"`);
        const [{ rows }] = (await source.query<{ rows: string }>(`SELECT coalesce(json_agg(t), '[]')::text AS rows FROM "${name}" t`)) as [
          { rows: string },
        ];
        if (rows === '[]') continue;
        await tx.query(
          `INSERT INTO "${name}" (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM json_populate_recordset(NULL::"${name}", $1::json)`,
          [rows],
        );
      }
    });
  } finally {
    await source.close();
    await target.close();
  }
  return {
    url: cluster.url,
    async stop() {
      await cluster.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
