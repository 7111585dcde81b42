// Writing lake files through DuckDB and describing them as manifest entries. Used by flush
// (one partitioned COPY per table writes every organization-date group of a batch at once),
// compaction and re-pricing (one file per group).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { EVENT_STATUSES, type EventStatus } from '../../core/lake/events-schema.js';
import {
  dataFileName,
  dataFilePattern,
  groupDir,
  relativePath,
  absolutePath,
  type FileOrigin,
  type LakeTable,
} from '../../core/lake/layout.js';
import type { ManifestFile } from '../../core/lake/manifest.js';
import type { DimensionSet } from '../../core/lake/dimension-rollups.js';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';

/**
 * Flush files are small and short-lived (compaction merges them), and zstd's per-column-chunk
 * setup costs ~2 ms per 46-column file, so they use snappy; files meant to last use zstd.
 */
export type Compression = 'snappy' | 'zstd';

function parquetOptions(compression: Compression): string {
  return `FORMAT parquet, COMPRESSION ${compression}`;
}

/** What the manifest records about the events of one (organization, date) group. */
export interface EventsGroupStats {
  organization_id: string;
  date: string;
  rows: number;
  min_offset: number;
  max_offset: number;
  max_received_at: string;
  status_counts: Record<EventStatus, number>;
}

export function groupKey(organizationId: string, date: string): string {
  return `${organizationId}/${date}`;
}

/** Per (organization, date) statistics of an events relation. */
export async function eventsGroupStats(conn: DuckDBConnection, events: string): Promise<Map<string, EventsGroupStats>> {
  const statusCounts = EVENT_STATUSES.map((s) => `CAST(count(*) FILTER (WHERE status = ${sqlStringLiteral(s)}) AS DOUBLE) AS "${s}"`);
  const reader = await conn.runAndReadAll(
    `SELECT organization_id, CAST(event_date AS VARCHAR) AS date, CAST(count(*) AS DOUBLE) AS n,
       CAST(min(kafka_offset) AS DOUBLE) AS min_offset, CAST(max(kafka_offset) AS DOUBLE) AS max_offset,
       CAST(epoch_ms(max(received_at)) AS DOUBLE) AS max_received_ms, ${statusCounts.join(', ')}
     FROM ${events} GROUP BY organization_id, event_date`,
  );
  const out = new Map<string, EventsGroupStats>();
  for (const r of reader.getRowObjects()) {
    const counts = {} as Record<EventStatus, number>;
    for (const s of EVENT_STATUSES) counts[s] = r[s] as number;
    const stats: EventsGroupStats = {
      organization_id: r.organization_id as string,
      date: r.date as string,
      rows: r.n as number,
      min_offset: r.min_offset as number,
      max_offset: r.max_offset as number,
      max_received_at: new Date(r.max_received_ms as number).toISOString(),
      status_counts: counts,
    };
    out.set(groupKey(stats.organization_id, stats.date), stats);
  }
  return out;
}

export interface WrittenFile {
  table: LakeTable;
  /** Relative posix path. */
  path: string;
  organization_id: string;
  date: string;
}

/** A file a partitioned COPY wrote, with its row count. */
export interface CopiedFile extends WrittenFile {
  rows: number;
}

/**
 * Write `select` (which must have organization_id and event_date columns) as one new file per
 * (organization, date) under `table`, in a single partitioned COPY. Returns the files written and
 * their row counts (from the COPY itself, so no query has to count them).
 */
export async function copyPartitioned(
  conn: DuckDBConnection,
  lakeDir: string,
  table: LakeTable,
  partition: number,
  origin: FileOrigin,
  select: string,
  compression: Compression = 'snappy',
): Promise<CopiedFile[]> {
  const tableDir = path.join(lakeDir, table);
  await fs.mkdir(tableDir, { recursive: true });
  // The hive directory names come from the aliases org and date; PARTITION_BY leaves those two
  // out of the file, while organization_id and event_date stay in it.
  const reader = await conn.runAndReadAll(
    `COPY (SELECT *, organization_id AS org, CAST(event_date AS VARCHAR) AS date FROM (${select}))
     TO ${sqlStringLiteral(tableDir)}
     (${parquetOptions(compression)}, PARTITION_BY (org, date), FILENAME_PATTERN ${sqlStringLiteral(dataFilePattern(partition, origin))}, APPEND, RETURN_STATS)`,
  );
  // One row per file: filename, count, then per-column statistics (not read: they would all be
  // converted to JS values).
  const files: CopiedFile[] = [];
  for (let r = 0; r < reader.currentRowCount; r++) {
    const rel = relativePath(lakeDir, String(reader.value(0, r)));
    const m = /^[^/]+\/org=([^/]+)\/date=(\d{4}-\d{2}-\d{2})\/[^/]+\.parquet$/.exec(rel);
    if (!m) throw new Error(`unexpected file written by partitioned COPY: ${rel}`);
    files.push({ table, path: rel, organization_id: m[1]!, date: m[2]!, rows: Number(reader.value(1, r)) });
  }
  return files;
}

/** Write `select` to one new file of the (table, organization, date) group; returns its rows. */
export async function copyToGroupFile(
  conn: DuckDBConnection,
  lakeDir: string,
  partition: number,
  origin: FileOrigin,
  table: LakeTable,
  organizationId: string,
  date: string,
  select: string,
  compression: Compression = 'zstd',
): Promise<{ file: WrittenFile; rows: number }> {
  const rel = `${groupDir(table, organizationId, date)}/${dataFileName(partition, origin)}`;
  const abs = absolutePath(lakeDir, rel);
  await fs.mkdir(path.dirname(abs), { recursive: true });
  const reader = await conn.runAndReadAll(`COPY (${select}) TO ${sqlStringLiteral(abs)} (${parquetOptions(compression)})`);
  const rows = Number(reader.getRowsJS()[0]?.[0] ?? 0);
  return { file: { table, path: rel, organization_id: organizationId, date }, rows };
}

export async function fileSizes(lakeDir: string, files: readonly WrittenFile[]): Promise<number[]> {
  return Promise.all(files.map(async (f) => (await fs.stat(absolutePath(lakeDir, f.path))).size));
}

/** Directories whose entries must be made durable for these files to survive a crash. */
export function directoriesOf(lakeDir: string, files: readonly WrittenFile[]): string[] {
  const dirs = new Set<string>();
  for (const f of files) {
    let dir = path.dirname(absolutePath(lakeDir, f.path));
    while (dir.startsWith(lakeDir) && dir !== lakeDir && !dirs.has(dir)) {
      dirs.add(dir);
      dir = path.dirname(dir);
    }
  }
  dirs.add(lakeDir);
  return [...dirs];
}

/** A manifest entry for a written file. */
export function manifestEntry(
  file: WrittenFile,
  rows: number,
  bytes: number,
  events: Pick<EventsGroupStats, 'min_offset' | 'max_offset' | 'max_received_at'> & {
    status_counts?: Record<EventStatus, number>;
    dimensions?: DimensionSet;
  },
  createdAt: Date,
): ManifestFile {
  const entry: ManifestFile = {
    table: file.table,
    path: file.path,
    organization_id: file.organization_id,
    date: file.date,
    rows,
    bytes,
    min_offset: events.min_offset,
    max_offset: events.max_offset,
    max_received_at: events.max_received_at,
    created_at: createdAt.toISOString(),
  };
  if (file.table === 'events' && events.status_counts) entry.status_counts = { ...events.status_counts };
  if (file.table === 'events' && events.dimensions && Object.keys(events.dimensions).length > 0)
    entry.dimensions = { ...events.dimensions };
  return entry;
}
