// Compaction: flushes leave many small files per (table, organization, date); once a group has
// enough of them they are merged into one file (events concatenated in offset order, rollups
// re-aggregated with their merge SQL), the manifest swaps them atomically, and the replaced files
// are kept for a grace period so queries that listed them before the swap can finish.
import { ROLLUPS, absolutePath, tableColumns, type LakeTable } from '../../core/lake/layout.js';
import { intersectDimensionSets } from '../../core/lake/dimension-rollups.js';
import { EVENT_STATUSES, type EventStatus } from '../../core/lake/events-schema.js';
import type { GarbageFile, ManifestFile } from '../../core/lake/manifest.js';
import { parquetRelationSql } from '../../core/lake/parquet-sql.js';
import { rollupMergeSql } from '../../core/lake/rollups.js';
import { persist } from './durability.js';
import { copyToGroupFile, directoriesOf, fileSizes, manifestEntry, type WrittenFile } from './lake-files.js';
import type { LakeContext, PartitionState } from './partition-state.js';

export interface CompactionOptions {
  /** Merge a group once it holds at least this many small files. Default 8. */
  minFiles?: number;
  /** Files of at least this size are left as they are. Default 64 MiB. */
  smallFileBytes?: number;
  /** How long replaced files stay on disk. Default 10 minutes. */
  graceMs?: number;
  /** Groups merged per call, to bound the pause in the partition loop. Default 200. */
  maxGroups?: number;
}

export interface CompactionGroup {
  table: LakeTable;
  organization_id: string;
  date: string;
  files: ManifestFile[];
}

export interface CompactionResult {
  groups: number;
  filesMerged: number;
  filesWritten: number;
}

/** Which groups to merge: pure, so the policy is testable without files. */
export function planCompaction(files: readonly ManifestFile[], options: CompactionOptions = {}): CompactionGroup[] {
  const minFiles = Math.max(2, options.minFiles ?? 8);
  const small = options.smallFileBytes ?? 64 * 1024 * 1024;
  const groups = new Map<string, CompactionGroup>();
  for (const f of files) {
    if (f.bytes >= small) continue;
    const k = `${f.table}/${f.organization_id}/${f.date}`;
    const g = groups.get(k);
    if (g) g.files.push(f);
    else groups.set(k, { table: f.table, organization_id: f.organization_id, date: f.date, files: [f] });
  }
  return [...groups.values()]
    .filter((g) => g.files.length >= minFiles)
    .sort((a, b) => b.files.length - a.files.length)
    .slice(0, options.maxGroups ?? 200);
}

/**
 * Offsets, received time and status counts of the union of some files' events, and the dimensions
 * all of them are rolled up for (a merged events file covers a key only if every part did).
 */
export function combinedEventsStats(files: readonly ManifestFile[]) {
  const status_counts = Object.fromEntries(EVENT_STATUSES.map((s) => [s, 0])) as Record<EventStatus, number>;
  for (const f of files) for (const s of EVENT_STATUSES) status_counts[s] += f.status_counts?.[s] ?? 0;
  return {
    min_offset: Math.min(...files.map((f) => f.min_offset)),
    max_offset: Math.max(...files.map((f) => f.max_offset)),
    max_received_at: new Date(Math.max(...files.map((f) => Date.parse(f.max_received_at)))).toISOString(),
    status_counts,
    dimensions: intersectDimensionSets(files.map((f) => f.dimensions)),
  };
}

function mergeSelect(table: LakeTable, relation: string): string {
  if (table === 'events') return `SELECT * FROM ${relation} ORDER BY kafka_offset`;
  return rollupMergeSql(ROLLUPS[table], relation);
}

export async function compact(state: PartitionState, ctx: LakeContext, options: CompactionOptions = {}): Promise<CompactionResult> {
  const plan = planCompaction(state.manifest.files, options);
  if (plan.length === 0) return { groups: 0, filesMerged: 0, filesWritten: 0 };
  const written: WrittenFile[] = [];
  const pending: { group: CompactionGroup; file: WrittenFile; rows: number }[] = [];
  for (const group of plan) {
    const relation = parquetRelationSql(
      group.files.map((f) => absolutePath(ctx.lakeDir, f.path)),
      tableColumns(group.table),
    );
    const { file, rows } = await copyToGroupFile(
      state.conn,
      ctx.lakeDir,
      state.partition,
      'compact',
      group.table,
      group.organization_id,
      group.date,
      mergeSelect(group.table, relation),
    );
    const expected = group.files.reduce((n, f) => n + f.rows, 0);
    if (group.table === 'events' && rows !== expected) {
      throw new Error(`compaction of ${file.path}: wrote ${rows} rows, manifest lists ${expected}`);
    }
    written.push(file);
    pending.push({ group, file, rows });
  }
  const sizes = await fileSizes(ctx.lakeDir, written);
  await persist(
    ctx.lakeDir,
    written.map((f) => absolutePath(ctx.lakeDir, f.path)),
    directoriesOf(ctx.lakeDir, written),
  );
  const now = ctx.clock();
  const deletedAfter = new Date(now.getTime() + (options.graceMs ?? 10 * 60_000)).toISOString();
  const replaced = new Set(pending.flatMap((p) => p.group.files.map((f) => f.path)));
  const added = pending.map((p, i) => manifestEntry(p.file, p.rows, sizes[i]!, combinedEventsStats(p.group.files), now));
  const garbage: GarbageFile[] = [...replaced].map((path) => ({ path, deleted_after: deletedAfter }));
  const manifest = state.manifest;
  await state.commit(ctx, {
    next_offset: manifest.next_offset,
    files: [...manifest.files.filter((f) => !replaced.has(f.path)), ...added],
    garbage: [...manifest.garbage, ...garbage],
  });
  return { groups: plan.length, filesMerged: replaced.size, filesWritten: added.length };
}
