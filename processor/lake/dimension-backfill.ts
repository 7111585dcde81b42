// Backfill of dimension rollups (core/lake/dimension-rollups.ts): when an organization defines a
// dimension, its events files written before the processor knew it are not rolled up for it, and
// readers answer those days from raw events. This rewrites, per (organization, date) group of the
// partition whose events files do not all list the organization's dimensions now, the group's
// dimension rollup files from all of its events, and names the events files as covering those
// dimensions — in one manifest commit per call, so readers see the old rollup or the new one,
// never a mix. Events files are not touched. At most `maxGroups` groups per call bound the time
// the partition's queue is held; the caller repeats until a call finds nothing to do.
import fs from 'node:fs/promises';
import { coversDimension, type DimensionSet } from '../../core/lake/dimension-rollups.js';
import { EVENTS_COLUMNS } from '../../core/lake/events-schema.js';
import { absolutePath } from '../../core/lake/layout.js';
import type { GarbageFile, ManifestFile } from '../../core/lake/manifest.js';
import { parquetRelationSql } from '../../core/lake/parquet-sql.js';
import { compareCodePoints } from '../../core/compare.js';
import { combinedEventsStats } from './compaction.js';
import { dimensionRollupSources, dimensionSetsOf } from './dimension-files.js';
import { persist } from './durability.js';
import { copyToGroupFile, directoriesOf, fileSizes, manifestEntry, type WrittenFile } from './lake-files.js';
import type { LakeContext, PartitionState } from './partition-state.js';

export interface DimensionBackfillOptions {
  /** Groups rewritten per call. Default 30. */
  maxGroups?: number;
  /** How long replaced files stay on disk. Default 10 minutes. */
  graceMs?: number;
}

export interface DimensionBackfillResult {
  /** (organization, date) groups rewritten by this call. */
  groups: number;
  /** Groups still to do after this call. */
  remaining: number;
}

export interface BackfillGroup {
  organizationId: string;
  date: string;
  set: DimensionSet;
  events: ManifestFile[];
}

/** Groups whose events files do not all cover every dimension of their organization's set. Pure. */
export function planDimensionBackfill(files: readonly ManifestFile[], sets: ReadonlyMap<string, DimensionSet>): BackfillGroup[] {
  const groups = new Map<string, BackfillGroup>();
  for (const f of files) {
    const set = sets.get(f.organization_id);
    if (f.table !== 'events' || !set) continue;
    const k = `${f.organization_id}/${f.date}`;
    const g = groups.get(k);
    if (g) g.events.push(f);
    else groups.set(k, { organizationId: f.organization_id, date: f.date, set, events: [f] });
  }
  return [...groups.values()]
    .filter((g) =>
      Object.entries(g.set).some(
        ([key, type]) =>
          !coversDimension(
            g.events.map((f) => f.dimensions),
            key,
            type,
          ),
      ),
    )
    .sort((a, b) => compareCodePoints(a.organizationId, b.organizationId) || compareCodePoints(a.date, b.date));
}

/** The partition's groups left to backfill, planned on its current manifest. */
export async function dimensionBackfillPlan(state: PartitionState, ctx: LakeContext): Promise<BackfillGroup[]> {
  const files = state.manifest.files;
  const orgs = new Set(files.filter((f) => f.table === 'events').map((f) => f.organization_id));
  return planDimensionBackfill(files, await dimensionSetsOf(ctx, orgs));
}

export async function backfillDimensions(
  state: PartitionState,
  ctx: LakeContext,
  options: DimensionBackfillOptions = {},
): Promise<DimensionBackfillResult> {
  const manifest = state.manifest;
  const plan = await dimensionBackfillPlan(state, ctx);
  const todo = plan.slice(0, options.maxGroups ?? 30);
  if (todo.length === 0) return { groups: 0, remaining: 0 };
  const written: WrittenFile[] = [];
  const added: Array<{ file: WrittenFile; rows: number; events: ManifestFile[] }> = [];
  const replaced = new Set<string>();
  const covered = new Map<string, DimensionSet>(); // events file path → its new set
  for (const g of todo) {
    const events = parquetRelationSql(
      g.events.map((f) => absolutePath(ctx.lakeDir, f.path)),
      EVENTS_COLUMNS,
    );
    for (const [table, select] of dimensionRollupSources(events, new Map([[g.organizationId, g.set]]))) {
      const { file, rows } = await copyToGroupFile(
        state.conn,
        ctx.lakeDir,
        state.partition,
        'rewrite',
        table,
        g.organizationId,
        g.date,
        select,
      );
      if (rows === 0) {
        await fs.rm(absolutePath(ctx.lakeDir, file.path), { force: true });
        continue;
      }
      written.push(file);
      added.push({ file, rows, events: g.events });
    }
    for (const f of manifest.files) {
      const sameGroup = f.organization_id === g.organizationId && f.date === g.date;
      if (sameGroup && (f.table === 'dimension_costs' || f.table === 'dimension_numbers')) replaced.add(f.path);
    }
    for (const f of g.events) covered.set(f.path, g.set);
  }
  const sizes = await fileSizes(ctx.lakeDir, written);
  await persist(
    ctx.lakeDir,
    written.map((f) => absolutePath(ctx.lakeDir, f.path)),
    directoriesOf(ctx.lakeDir, written),
  );
  const now = ctx.clock();
  const deletedAfter = new Date(now.getTime() + (options.graceMs ?? 10 * 60_000)).toISOString();
  const garbage: GarbageFile[] = [...replaced].map((path) => ({ path, deleted_after: deletedAfter }));
  await state.commit(ctx, {
    next_offset: manifest.next_offset,
    files: [
      ...manifest.files
        .filter((f) => !replaced.has(f.path))
        .map((f) => (covered.has(f.path) ? { ...f, dimensions: { ...covered.get(f.path)! } } : f)),
      ...added.map((a, i) => manifestEntry(a.file, a.rows, sizes[i]!, combinedEventsStats(a.events), now)),
    ],
    garbage: [...manifest.garbage, ...garbage],
  });
  return { groups: todo.length, remaining: plan.length - todo.length };
}
