// The lake a benchmark writes and reads (issue 24's open lake, DuckLake): on local disk or on
// S3Proxy (loopback, test/support/s3-server.ts), each with a throwaway PostgreSQL catalog of its
// own. A store hands back the lake variables (LAKE_FORMAT, LAKE_URL, LAKE_CATALOG_URL, AWS_*) that
// loadConfig and the service processes a benchmark starts read, and what the store holds in bytes.
// Drains (bench/lake, bench/processor) are done when every partition's resume offset in the lake
// (DuckLakeWriter.readManifest) has reached the topic's end.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { openLake } from '../../core/lake/lake-catalog.js';
import type { LakeSettings } from '../../core/lake/lake-settings.js';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import type { DuckLakeWriter } from '../../processor/lake/ducklake-writer.js';
import { startLocalPostgres } from '../../scripts/postgres/local-cluster.js';
import { startTestS3Server } from '../../test/support/s3-server.js';

export type Store = 'local' | 's3';

export function parseStore(value: string): Store {
  if (value !== 'local' && value !== 's3') throw new Error(`--store is local or s3, got "${value}"`);
  return value;
}

/** Sum of file sizes under `dir`. */
export function dirBytes(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += dirBytes(p);
    else if (e.isFile()) total += fs.statSync(p).size;
  }
  return total;
}

/** The one value of `sql` against the catalog database. */
async function catalogValue(url: string, sql: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number(Object.values((await client.query(sql)).rows[0] ?? {})[0] ?? 0);
  } finally {
    await client.end();
  }
}

/** The lake environment of one store (what loadConfig and the service processes read). */
export interface StoreSetup {
  store: Store;
  env: Record<string, string>;
  /** Bytes the store holds now (local folder or the S3 server's objects), and live bytes from the catalog. */
  bytes(): Promise<{ stored: number; liveDataFiles: number; catalog: number }>;
  stop(): Promise<void>;
}

/** A fresh, empty lake of `store` under `dir` (its catalog's cluster, data folder or S3 server's objects). */
export async function setUpStore(store: Store, dir: string): Promise<StoreSetup> {
  const pgServer = await startLocalPostgres({ dir: path.join(dir, 'pg'), database: 'lake', throwaway: true });
  const catalogBytes = async () => ({
    liveDataFiles:
      (await catalogValue(
        pgServer.url,
        'SELECT coalesce(sum(file_size_bytes),0) FROM ducklake.ducklake_data_file WHERE end_snapshot IS NULL',
      )) +
      (await catalogValue(
        pgServer.url,
        'SELECT coalesce(sum(file_size_bytes),0) FROM ducklake.ducklake_delete_file WHERE end_snapshot IS NULL',
      )),
    catalog: await catalogValue(pgServer.url, 'SELECT pg_database_size(current_database())'),
  });
  if (store === 'local') {
    const dataPath = path.join(dir, 'ducklake');
    return {
      store,
      env: { LAKE_FORMAT: 'ducklake', LAKE_URL: dataPath, LAKE_CATALOG_URL: pgServer.url },
      bytes: async () => ({ stored: dirBytes(dataPath), ...(await catalogBytes()) }),
      stop: pgServer.stop,
    };
  }
  const s3 = await startTestS3Server(dir).catch(async (e) => {
    await pgServer.stop();
    throw e;
  });
  return {
    store,
    env: {
      LAKE_FORMAT: 'ducklake',
      LAKE_URL: `s3://${s3.bucket}/lake`,
      LAKE_CATALOG_URL: pgServer.url,
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
      AWS_REGION: s3.region,
      AWS_ENDPOINT_URL: s3.endpoint,
    },
    bytes: async () => ({ stored: dirBytes(path.join(dir, 's3', 'objects', s3.bucket)), ...(await catalogBytes()) }),
    stop: async () => {
      await s3.stop();
      await pgServer.stop();
    },
  };
}

/** Sets this process's lake variables to `env` (the processes it starts inherit them), clearing others. */
export function useLakeEnvironment(env: Record<string, string>): void {
  for (const k of Object.keys(process.env)) if (/^(LAKE_|AWS_|MARGINAL_S3_)/.test(k)) delete process.env[k];
  Object.assign(process.env, env);
}

/**
 * The live data files of one lake table as its catalog names them at the latest snapshot (paths,
 * and their bytes with the delete files'), through a read-only attach.
 */
export async function lakeDataFiles(settings: LakeSettings, table: string): Promise<{ files: string[]; bytes: number }> {
  const lake = await openLake(settings, { readOnly: true, threads: 1 });
  try {
    const rows = (
      await lake.conn.runAndReadAll(
        `SELECT data_file, data_file_size_bytes, coalesce(delete_file_size_bytes, 0) FROM ducklake_list_files('lake', ${sqlStringLiteral(table)})`,
      )
    ).getRows();
    return { files: rows.map((r) => String(r[0])), bytes: rows.reduce((n, r) => n + Number(r[1]) + Number(r[2]), 0) };
  } finally {
    lake.close();
  }
}

/** Records of `ends` (partition → the topic's end offset) the lake holds: each partition's resume offset, capped at its end. */
export async function drainedRecords(lake: Pick<DuckLakeWriter, 'readManifest'>, ends: ReadonlyMap<number, number>): Promise<number> {
  let done = 0;
  for (const [p, end] of ends) done += Math.min(end, (await lake.readManifest(p)).nextOffset);
  return done;
}
