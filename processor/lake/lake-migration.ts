// `npm run cli -- lake migrate` (docs/decisions/0150): moves a manifest lake ($LAKE_DIR) into the
// open lake, one DuckLake commit per unit of lake-migration-plan.ts. A day's unit copies its live
// events files and recomputes every rollup from them with the processor's own SQL; a partition's
// last unit writes its next Kafka offset. Exactly once: each commit also records its unit in
// lake.lake_migration_units and is fenced on the partition's offset row as the processor's
// commits are (ducklake-commit.ts), so a killed run resumes at the first unrecorded unit, and a
// second migration or a processor on the same partition commits nothing. The old files go only
// after the totals per organization, day and status were found equal in this run.
import fs from 'node:fs/promises';
import path from 'node:path';
import { DAILY_COSTS, rollupFromEventsSql, SESSION_SPANS } from '../../core/lake/rollups.js';
import { EVENTS_COLUMNS } from '../../core/lake/events-schema.js';
import { ensureLakeTables, type OpenLake } from '../../core/lake/lake-catalog.js';
import { columnsDdl, partitionOffsetsTable } from '../../core/lake/lake-tables.js';
import { absolutePath, LAKE_TABLES, manifestDir, partitionOfManifestName } from '../../core/lake/layout.js';
import { readManifest, type Manifest } from '../../core/lake/manifest.js';
import { readParquetSql, sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import { dimensionRollupSources } from './dimension-files.js';
import { coverageInsertSql } from '../../core/lake/dimension-coverage.js';
import { commitFenced, DuckLakeConflictError, lakeNextOffset, OffsetMovedError, rollupInsertSql } from './ducklake-commit.js';
import { type DayTotal, type MigrationUnit, planLakeMigration, totalsDifferences } from './lake-migration-plan.js';

/** The migration cannot go on; the message says why and what to do. Nothing half-written is left. */
export class LakeMigrationError extends Error {
  override name = 'LakeMigrationError';
}

export interface MigrationProgress {
  unitsDone: number;
  unitsTotal: number;
  eventsCopied: number;
  eventsTotal: number;
  /** The unit just committed (null for the first report, of what earlier runs did). */
  unit: string | null;
}

export interface MigrationReport {
  units: number;
  /** Units committed by earlier (killed) runs. */
  unitsResumed: number;
  events: number;
  /** Per partition, the next Kafka offset now in the open lake. */
  offsets: Record<string, number>;
  verified: DayTotal[];
  /** What --remove-old deleted, or null when the old lake stays. */
  removed: { files: number; directories: string[] } | null;
}

const PROGRESS_TABLE = 'lake.lake_migration_units';
const STAGED = 'migrating_events';
/** The manifest lake's folders (besides the tables') that die with it; `_derived` is the api's cache of its days. */
const OLD_FOLDERS = ['_manifests', '_derived'];
/** `_manifests` is renamed to this first, so a run killed while deleting finishes the removal next time. */
const REMOVING = '_manifests.migrated';

export async function migrateLake(
  lake: OpenLake,
  lakeDir: string,
  options: {
    /** The open lake's DATA_PATH (config.lake.dataPath): the removal never deletes inside it. */
    dataPath: string;
    removeOld: boolean;
    onProgress: (p: MigrationProgress) => void;
  },
): Promise<MigrationReport> {
  const manifests = await readOldManifests(lakeDir);
  if (manifests.length === 0) {
    if (options.removeOld && (await exists(path.join(lakeDir, REMOVING)))) {
      return {
        units: 0,
        unitsResumed: 0,
        events: 0,
        offsets: {},
        verified: [],
        removed: await removeOldLake(lakeDir, options.dataPath, []),
      };
    }
    throw new LakeMigrationError(`no manifest lake in ${lakeDir} (${manifestDir(lakeDir)} has no partition manifests): nothing to migrate`);
  }
  const units = planLakeMigration(manifests);
  const partitions = manifests.map((m) => m.partition);
  await ensureLakeTables(lake, partitions);
  await lake.conn.run(
    `CREATE TABLE IF NOT EXISTS ${PROGRESS_TABLE} (source VARCHAR NOT NULL, unit VARCHAR NOT NULL, kafka_partition INTEGER NOT NULL, manifest_version BIGINT NOT NULL, events BIGINT NOT NULL, migrated_at TIMESTAMPTZ NOT NULL)`,
  );
  const source = path.resolve(lakeDir);
  const done = await unitsDone(lake, source);
  await refuseForeignData(lake, manifests, done);

  const eventsTotal = units.reduce((n, u) => n + u.events, 0);
  const progress: MigrationProgress = { unitsDone: 0, unitsTotal: units.length, eventsCopied: 0, eventsTotal, unit: null };
  for (const u of units) {
    if (!done.has(u.key)) continue;
    progress.unitsDone++;
    progress.eventsCopied += u.events;
  }
  const unitsResumed = progress.unitsDone;
  options.onProgress({ ...progress });
  for (const u of units) {
    if (done.has(u.key)) continue;
    await assertManifestUnchanged(lakeDir, u.partition, u.manifestVersion);
    await commitUnit(lake, source, u);
    progress.unitsDone++;
    progress.eventsCopied += u.events;
    options.onProgress({ ...progress, unit: u.key });
  }

  const verified = await verifyTotals(lake, lakeDir, manifests);
  for (const m of manifests) await assertManifestUnchanged(lakeDir, m.partition, m.version);
  const offsets = Object.fromEntries(manifests.map((m) => [String(m.partition), m.next_offset]));
  const removed = options.removeOld ? await removeOldLake(lakeDir, options.dataPath, manifests) : null;
  return { units: units.length, unitsResumed, events: eventsTotal, offsets, verified, removed };
}

/** Every partition's manifest, in partition order (none when the folder is absent). */
async function readOldManifests(lakeDir: string): Promise<Manifest[]> {
  const names = await fs.readdir(manifestDir(lakeDir)).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return [] as string[];
    throw e;
  });
  const partitions = names.map(partitionOfManifestName).filter((p): p is number => p !== null);
  return Promise.all(partitions.sort((a, b) => a - b).map((p) => readManifest(lakeDir, p)));
}

/** Recorded units and the manifest version each was planned from; refused when another old lake began migrating here. */
async function unitsDone(lake: OpenLake, source: string): Promise<Map<string, { partition: number; version: number }>> {
  const rows = (
    await lake.conn.runAndReadAll(`SELECT source, unit, kafka_partition, CAST(manifest_version AS DOUBLE) FROM ${PROGRESS_TABLE}`)
  ).getRows();
  const other = rows.find((r) => r[0] !== source);
  if (other)
    throw new LakeMigrationError(
      `the open lake holds a migration of another lake (${String(other[0])}): migrate ${source} into an empty lake`,
    );
  return new Map(rows.map((r) => [r[1] as string, { partition: r[2] as number, version: r[3] as number }]));
}

/**
 * A first run needs an empty open lake; a resumed one needs the old manifests as it left them (a
 * processor that wrote the old lake since would make the copied days stale) and no partition whose
 * offset moved without the migration (a processor wrote the open lake).
 */
async function refuseForeignData(lake: OpenLake, manifests: readonly Manifest[], done: ReadonlyMap<string, { version: number }>) {
  if (done.size === 0) {
    const events = Number((await lake.conn.runAndReadAll('SELECT count(*) FROM lake.events')).getRows()[0]![0]);
    if (events > 0)
      throw new LakeMigrationError(`the open lake already holds ${events} events that no migration wrote: migrate into an empty lake`);
  }
  for (const m of manifests) {
    for (const [key, d] of done) {
      if (key.startsWith(`p${m.partition}/`) && d.version !== m.version) {
        throw new LakeMigrationError(
          `partition ${m.partition}'s manifest is at version ${m.version}, the migration began at ${d.version}: a processor wrote the old lake meanwhile; stop it, and migrate into a new open lake`,
        );
      }
    }
    const offset = await lakeNextOffset(lake.conn, m.partition);
    if (offset !== 0 && !done.has(`p${m.partition}/offset`)) {
      throw new LakeMigrationError(
        `partition ${m.partition} of the open lake is at offset ${offset}, not written by a migration: a processor already writes it; migrate into an empty lake`,
      );
    }
  }
}

async function assertManifestUnchanged(lakeDir: string, partition: number, version: number): Promise<void> {
  const now = (await readManifest(lakeDir, partition)).version;
  if (now !== version) {
    throw new LakeMigrationError(
      `partition ${partition}'s manifest moved from version ${version} to ${now}: a processor owns the old lake; stop every processor before migrating`,
    );
  }
}

/** One unit in one commit; a fence that failed means someone else writes the partition. */
async function commitUnit(lake: OpenLake, lakeDir: string, u: MigrationUnit): Promise<void> {
  await writeUnit(lake, lakeDir, u).catch((e: unknown) => {
    if (!(e instanceof OffsetMovedError || e instanceof DuckLakeConflictError)) throw e;
    throw new LakeMigrationError(
      `${u.key} was not written: another migration or a processor writes partition ${u.partition} of the open lake (${e.message}); stop it and run again`,
    );
  });
}

/** The unit's statements, fenced on the partition's offset (0 until its offset unit). */
async function writeUnit(lake: OpenLake, lakeDir: string, u: MigrationUnit): Promise<void> {
  const offsets = `lake.${partitionOffsetsTable(u.partition).name}`;
  const record = `INSERT INTO ${PROGRESS_TABLE} VALUES (${sqlStringLiteral(path.resolve(lakeDir))}, ${sqlStringLiteral(u.key)}, ${u.partition}, ${u.manifestVersion}, ${u.events}, now())`;
  if (u.nextOffset !== null) {
    await commitFenced(lake.conn, u.partition, 0, [record], `UPDATE ${offsets} SET next_offset = ${u.nextOffset} WHERE next_offset = 0`);
    return;
  }
  // Staged outside the transaction (a DuckDB transaction writes one database), in today's schema:
  // files written before a column existed read it as NULL.
  await lake.conn.run(`CREATE OR REPLACE TEMP TABLE ${STAGED} (${columnsDdl(EVENTS_COLUMNS)})`);
  await lake.conn.run(`INSERT INTO ${STAGED} BY NAME SELECT * FROM ${readParquetSql(u.files.map((f) => absolutePath(lakeDir, f)))}`);
  const rollups: [string, string][] = [
    ['daily_costs', rollupFromEventsSql(DAILY_COSTS, STAGED)],
    ['session_spans', rollupFromEventsSql(SESSION_SPANS, STAGED)],
    ...dimensionRollupSources(STAGED, u.dimensions),
  ];
  const statements = [
    `INSERT INTO lake.events BY NAME SELECT * FROM ${STAGED}`,
    ...rollups.map(([table, select]) => rollupInsertSql(table, u.partition, select)),
    // The files' per-file coverage carried over: days rolled up for a dimension stay covered.
    coverageInsertSql(u.partition, STAGED, u.dimensions),
    record,
  ];
  await commitFenced(lake.conn, u.partition, 0, statements, `UPDATE ${offsets} SET next_offset = 0 WHERE next_offset = 0`);
}

const TOTALS = `organization_id, CAST(event_date AS VARCHAR) AS date, status`;

/**
 * Old events (every manifest's live files) = new events below each partition's migrated offset
 * (a processor may have added later ones) = the new daily rollup, per organization, day and
 * status, in events and total cost. The open lake is read in one snapshot.
 */
async function verifyTotals(lake: OpenLake, lakeDir: string, manifests: readonly Manifest[]): Promise<DayTotal[]> {
  const files = manifests.flatMap((m) => m.files.filter((f) => f.table === 'events').map((f) => absolutePath(lakeDir, f.path)));
  const old =
    files.length === 0
      ? []
      : await dayTotals(
          lake,
          `SELECT ${TOTALS}, CAST(count(*) AS DOUBLE), CAST(sum(total_cost) AS VARCHAR) FROM ${readParquetSql(files)} GROUP BY ALL`,
        );
  const migrated = manifests.map((m) => `(kafka_partition = ${m.partition} AND kafka_offset < ${m.next_offset})`).join(' OR ');
  await lake.conn.run('BEGIN TRANSACTION');
  try {
    const events = await dayTotals(
      lake,
      `SELECT ${TOTALS}, CAST(count(*) AS DOUBLE), CAST(sum(total_cost) AS VARCHAR) FROM lake.events WHERE ${migrated} GROUP BY ALL`,
    );
    const allEvents = await dayTotals(
      lake,
      `SELECT ${TOTALS}, CAST(count(*) AS DOUBLE), CAST(sum(total_cost) AS VARCHAR) FROM lake.events GROUP BY ALL`,
    );
    const rollup = await dayTotals(
      lake,
      `SELECT ${TOTALS}, CAST(sum(event_count) AS DOUBLE), CAST(sum(total_cost) AS VARCHAR) FROM lake.daily_costs GROUP BY ALL`,
    );
    const differences = [...totalsDifferences(old, events, 'the open lake'), ...totalsDifferences(allEvents, rollup, 'daily_costs')];
    if (differences.length > 0) {
      throw new LakeMigrationError(`the totals differ; the old lake is kept:\n${differences.slice(0, 50).join('\n')}`);
    }
  } finally {
    await lake.conn.run('ROLLBACK'); // it only read
  }
  return old;
}

async function dayTotals(lake: OpenLake, sql: string): Promise<DayTotal[]> {
  const rows = (await lake.conn.runAndReadAll(`${sql} ORDER BY 1, 2, 3`)).getRows();
  return rows.map((r) => ({
    organization_id: r[0] as string,
    date: r[1] as string,
    status: r[2] as string,
    events: r[3] as number,
    total_cost: r[4] as string,
  }));
}

/**
 * Deletes the manifest lake: `_manifests` is renamed first (a run killed after that finishes the
 * removal next time), then each table's folder, `_derived` and the renamed manifests. Refused when
 * the open lake's data lives inside one of those folders.
 */
async function removeOldLake(lakeDir: string, dataPath: string, manifests: readonly Manifest[]) {
  const folders = [...LAKE_TABLES, ...OLD_FOLDERS, REMOVING].map((f) => path.join(lakeDir, f));
  if (!dataPath.startsWith('s3://')) {
    const inside = folders.find((f) => !path.relative(f, path.resolve(dataPath)).startsWith('..'));
    if (inside) throw new LakeMigrationError(`the open lake's data path ${dataPath} is inside ${inside}: not removing the old lake`);
  }
  if (manifests.length > 0) await fs.rename(manifestDir(lakeDir), path.join(lakeDir, REMOVING));
  const files = manifests.reduce((n, m) => n + m.files.length + m.garbage.length, 0);
  const directories: string[] = [];
  for (const f of folders) {
    if (!(await exists(f))) continue;
    await fs.rm(f, { recursive: true, force: true });
    directories.push(path.relative(lakeDir, f));
  }
  return { files, directories };
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}
