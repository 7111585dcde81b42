// The lake of a test's processors and hosts: the open lake (DuckLake: data in the test's lake
// folder, catalog in a PostgreSQL database). A test DuckLake is recorded by a small file in its
// folder naming its LAKE_* / AWS_* settings, so the readers of processor-fixtures.ts (given only
// the folder) open the same lake; readers stay open per folder (a PostgreSQL catalog shows every
// commit to a long-lived reader).
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../core/config.js';
import { ensureLakeTables, type OpenLake, openLake } from '../../core/lake/lake-catalog.js';
import type { LakeSettings } from '../../core/lake/lake-settings.js';
import { openFreshControlDb } from './control-db.js';

const MARKER = '.marginal-test-ducklake.json';

/**
 * The lake format the suites run on: the open lake (MARGINAL_TEST_LAKE=files is refused since the
 * manifest format was removed, decision 0158). Kept for the tests that still name a format.
 */
export function testLakeFormat(): 'files' | 'ducklake' {
  const v = process.env.MARGINAL_TEST_LAKE ?? 'ducklake';
  if (v !== 'ducklake') throw new Error(`MARGINAL_TEST_LAKE must be ducklake (the manifest lake is removed), got ${v}`);
  return v;
}

/** The environment of a DuckLake in `lakeDir` with its catalog at `catalogUrl` (plus S3 settings when the data is on S3). */
export function duckLakeEnv(lakeDir: string, catalogUrl: string, s3: Record<string, string> = {}): Record<string, string> {
  return { LAKE_URL: lakeDir, LAKE_CATALOG_URL: catalogUrl, ...s3 };
}

/** Records that the lake of `lakeDir` is the DuckLake of `env` (as a processor is started on it). */
export function markDuckLake(lakeDir: string, env: Record<string, string>): void {
  fs.mkdirSync(lakeDir, { recursive: true });
  fs.writeFileSync(path.join(lakeDir, MARKER), JSON.stringify(env));
}

/** The settings of the DuckLake recorded in `lakeDir`, or null when none is. */
export function duckLakeSettingsOf(lakeDir: string): LakeSettings | null {
  const file = path.join(lakeDir, MARKER);
  if (!fs.existsSync(file)) return null;
  return loadConfig({ DATA_DIR: lakeDir, ...(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>) }).lake;
}

/**
 * For the environment of a child processor or a test host with a LAKE_DIR: the DuckLake variables
 * to add (its catalog the control plane's PostgreSQL, which the other processes of the test share,
 * unless LAKE_CATALOG_URL names one), and the lake folder is marked.
 */
export function lakeEnvOf(env: Record<string, string>): Record<string, string> {
  // The folder the test's readers are given (LAKE_DIR; the data may be elsewhere, on S3).
  const lakeDir = env.LAKE_DIR ?? env.LAKE_URL;
  if (!lakeDir) return {};
  if (env.LAKE_URL || env.LAKE_CATALOG_URL) {
    if (!lakeDir.startsWith('s3://')) markDuckLake(lakeDir, env);
    return {};
  }
  const catalog = env.DATABASE_URL;
  if (!catalog) throw new Error('a child processor on a test DuckLake needs DATABASE_URL (PostgreSQL) for the catalog');
  const added = duckLakeEnv(lakeDir, catalog);
  markDuckLake(lakeDir, added);
  return added;
}

/**
 * The lake variables of a test host given `env`: those of lakeEnvOf, and when the host has no
 * catalog (no LAKE_CATALOG_URL, no DATABASE_URL: a PGlite control plane), a fresh PostgreSQL
 * database of its own as the catalog, since the api opens the lake at start.
 */
export async function testHostLakeEnv(env: Record<string, string>): Promise<Record<string, string>> {
  if (env.LAKE_CATALOG_URL || env.DATABASE_URL) return lakeEnvOf(env);
  const catalog = await openFreshControlDb('postgres', { migrate: false });
  await catalog.db.close();
  const own = { LAKE_CATALOG_URL: catalog.url! };
  return { ...own, ...lakeEnvOf({ ...env, ...own }) };
}

const readers = new Map<string, Promise<OpenLake>>();

/** An open reader of the DuckLake recorded in `lakeDir` (tables prepared), or null when none is. */
export function testDuckLake(lakeDir: string): Promise<OpenLake> | null {
  const settings = duckLakeSettingsOf(lakeDir);
  if (!settings) return null;
  let lake = readers.get(lakeDir);
  if (!lake) {
    lake = (async () => {
      const opened = await openLake(settings, { threads: 1 });
      // A reader may come before the processor prepared the lake: an empty lake reads as empty.
      await ensureLakeTables(opened);
      return opened;
    })();
    readers.set(lakeDir, lake);
    lake.catch(() => readers.delete(lakeDir));
  }
  return lake;
}

/** LakeQuery options reading the lake of `lakeDir` as the api does: its DuckLake when it is one (a test's own LakeQuery). */
export function testLakeQueryOptions(lakeDir: string): { duckLake?: LakeSettings } {
  const settings = duckLakeSettingsOf(lakeDir);
  return settings ? { duckLake: settings } : {};
}
