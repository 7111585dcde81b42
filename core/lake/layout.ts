// Where lake files live. Data: $LAKE_DIR/<table>/org=<organization_id>/date=<YYYY-MM-DD>/<name>.parquet
// (names are unique, never reused). Manifests: $LAKE_DIR/_manifests/partition-<kafka partition>.json,
// one per partition covering every table, so the tables of a partition always move together.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { EVENTS_COLUMNS, type LakeColumn } from './events-schema.js';
import { DAILY_COSTS, SESSION_SPANS, rollupColumns, type RollupDefinition, type RollupTable } from './rollups.js';
import { DIMENSION_COSTS, DIMENSION_NUMBERS } from './dimension-rollups.js';

export type LakeTable = 'events' | RollupTable;
export const LAKE_TABLES: readonly LakeTable[] = ['events', 'daily_costs', 'session_spans', 'dimension_costs', 'dimension_numbers'];

/** Every rollup table's definition, by table. */
export const ROLLUPS: Record<RollupTable, RollupDefinition> = {
  daily_costs: DAILY_COSTS,
  session_spans: SESSION_SPANS,
  dimension_costs: DIMENSION_COSTS,
  dimension_numbers: DIMENSION_NUMBERS,
};

const COLUMNS: Record<LakeTable, readonly LakeColumn[]> = {
  events: EVENTS_COLUMNS,
  daily_costs: rollupColumns(DAILY_COSTS),
  session_spans: rollupColumns(SESSION_SPANS),
  dimension_costs: rollupColumns(DIMENSION_COSTS),
  dimension_numbers: rollupColumns(DIMENSION_NUMBERS),
};

export function tableColumns(table: LakeTable): readonly LakeColumn[] {
  return COLUMNS[table];
}

export function isLakeTable(value: string): value is LakeTable {
  return (LAKE_TABLES as readonly string[]).includes(value);
}

export const MANIFEST_DIR = '_manifests';
const MANIFEST_NAME = /^partition-(\d+)\.json$/;

export function manifestDir(lakeDir: string): string {
  return path.join(lakeDir, MANIFEST_DIR);
}

export function manifestPath(lakeDir: string, partition: number): string {
  return path.join(manifestDir(lakeDir), `partition-${partition}.json`);
}

/** The partition a manifest file name belongs to, or null for anything else (temp files). */
export function partitionOfManifestName(name: string): number | null {
  const m = MANIFEST_NAME.exec(name);
  return m ? Number(m[1]) : null;
}

// Organization ids become directory names and sit inside SQL string literals of file lists;
// DuckDB also treats * ? [ in read_parquet paths as globs. Allow only what cannot surprise.
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function assertSafeOrganizationId(organizationId: string): void {
  if (!SAFE_ID.test(organizationId)) {
    throw new Error(`organization id not usable as a lake path component: ${JSON.stringify(organizationId)}`);
  }
}

/** Relative (posix) directory of one (table, organization, date) group. */
export function groupDir(table: LakeTable, organizationId: string, date: string): string {
  assertSafeOrganizationId(organizationId);
  if (!DATE.test(date)) throw new Error(`not a YYYY-MM-DD date: ${date}`);
  return `${table}/org=${organizationId}/date=${date}`;
}

/** What produced a file; part of its name so a directory listing explains itself. */
export type FileOrigin = 'flush' | 'compact' | 'rewrite';

/** A new unique file name: p<partition>-<origin>-<uuid>.parquet. */
export function dataFileName(partition: number, origin: FileOrigin): string {
  return `p${partition}-${origin}-${randomUUID()}.parquet`;
}

/** Prefix for DuckDB's FILENAME_PATTERN in a partitioned COPY ({uuid} is filled by DuckDB). */
export function dataFilePattern(partition: number, origin: FileOrigin): string {
  return `p${partition}-${origin}-{uuid}`;
}

export function absolutePath(lakeDir: string, relativePath: string): string {
  return path.join(lakeDir, ...relativePath.split('/'));
}

/** Relative posix path of an absolute path inside the lake. */
export function relativePath(lakeDir: string, absolute: string): string {
  const rel = path.relative(lakeDir, absolute);
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new Error(`${absolute} is outside the lake ${lakeDir}`);
  return rel.split(path.sep).join('/');
}
