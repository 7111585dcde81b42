// Re-pricing rewrites: the caller's transform gets the selected rows of an organization (for
// example its pending_rate_card events) and returns replacements; every (organization, date)
// group with a change is written anew — events plus every rollup recomputed from them (dimension
// rollups for the organization's dimensions now), so the rollup invariants hold — and the manifest
// swaps the whole group at once. Replaced files go to garbage with a grace period, as in compaction.
import { EVENTS_COLUMNS, type EventStatus, type LakeEventRow } from '../../core/lake/events-schema.js';
import { absolutePath } from '../../core/lake/layout.js';
import type { GarbageFile, ManifestFile } from '../../core/lake/manifest.js';
import { parquetRelationSql, sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import { DAILY_COSTS, SESSION_SPANS, rollupFromEventsSql } from '../../core/lake/rollups.js';
import fs from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DimensionSet } from '../../core/lake/dimension-rollups.js';
import { dimensionRollupSources, dimensionSetsOf } from './dimension-files.js';
import { persist } from './durability.js';
import { rowFromWire, stageEvents, wireSelectList } from './event-staging.js';
import {
  copyToGroupFile,
  directoriesOf,
  eventsGroupStats,
  fileSizes,
  manifestEntry,
  type EventsGroupStats,
  type WrittenFile,
} from './lake-files.js';
import type { LakeContext, PartitionState } from './partition-state.js';
import { compareCodePoints } from '../../core/compare.js';

export interface RewriteSelector {
  organizationId: string;
  /** Only rows in one of these statuses reach the transform. Default: every row. */
  statuses?: readonly EventStatus[];
  /** Inclusive UTC event dates, YYYY-MM-DD. */
  fromDate?: string;
  toDate?: string;
}

/** Returns the replacement row, or null to keep the row as it is. */
export type RowTransform = (row: LakeEventRow) => LakeEventRow | null | Promise<LakeEventRow | null>;

export interface RewriteOptions {
  /** How long replaced files stay on disk. Default 10 minutes. */
  graceMs?: number;
  /**
   * Runs after the new files are durable, just before the manifest swap (lake-relative paths of the
   * files it brings in); throwing stops the swap. What it returns is for DuckLake's commit to record
   * (a budget spend revision's id, ducklake-writer.ts); the manifest lake ignores it.
   */
  beforeCommit?: (lakeFiles: readonly string[]) => Promise<string | null | undefined>;
}

export interface RewriteResult {
  /** (organization, date) groups rewritten. */
  groups: number;
  rowsExamined: number;
  rowsChanged: number;
  filesReplaced: number;
  filesWritten: number;
}

const REPLACEMENTS = 'lake_rewrite_rows';
const GROUP = 'lake_rewrite_group';

/**
 * The rows of `source` (a relation and its WHERE clause, in offset order) that `transform` replaces,
 * each replacement checked to be the same event (a rewrite may change costs and status, never which
 * event it is). Shared by both lake formats' re-pricing.
 */
export async function replacementsOf(
  conn: DuckDBConnection,
  source: string,
  transform: RowTransform,
): Promise<{ examined: number; changed: LakeEventRow[] }> {
  const reader = await conn.runAndReadAll(`SELECT ${wireSelectList()} FROM ${source} ORDER BY kafka_offset`);
  const candidates = reader.getRowObjects().map((o) => rowFromWire(o as Record<string, unknown>));
  const changed: LakeEventRow[] = [];
  for (const row of candidates) {
    const next = await transform({ ...row });
    if (next === null) continue;
    assertSameIdentity(row, next);
    changed.push(next);
  }
  return { examined: candidates.length, changed };
}

function assertSameIdentity(before: LakeEventRow, after: LakeEventRow): void {
  const same =
    after.event_id === before.event_id &&
    after.organization_id === before.organization_id &&
    after.event_timestamp instanceof Date &&
    after.event_timestamp.getTime() === before.event_timestamp.getTime() &&
    after.kafka_partition === before.kafka_partition &&
    after.kafka_offset === before.kafka_offset;
  if (!same) throw new Error(`rewrite of event ${before.event_id} changed its identity (id, organization, timestamp or offset)`);
}

export async function rewrite(
  state: PartitionState,
  ctx: LakeContext,
  selector: RewriteSelector,
  transform: RowTransform,
  options: RewriteOptions = {},
): Promise<RewriteResult> {
  const manifest = state.manifest;
  const result: RewriteResult = { groups: 0, rowsExamined: 0, rowsChanged: 0, filesReplaced: 0, filesWritten: 0 };
  const byDate = new Map<string, ManifestFile[]>();
  for (const f of manifest.files) {
    if (f.table !== 'events' || f.organization_id !== selector.organizationId) continue;
    if (selector.fromDate && f.date < selector.fromDate) continue;
    if (selector.toDate && f.date > selector.toDate) continue;
    byDate.set(f.date, [...(byDate.get(f.date) ?? []), f]);
  }
  const statuses = selector.statuses;
  const written: WrittenFile[] = [];
  const added: { file: WrittenFile; rows: number; events: EventsGroupStats & { dimensions?: DimensionSet } }[] = [];
  const replaced = new Set<string>();
  const dimensions = (await dimensionSetsOf(ctx, [selector.organizationId])).get(selector.organizationId);
  for (const [date, files] of [...byDate].sort(([a], [b]) => compareCodePoints(a, b))) {
    // status_counts lets a pending-only rewrite skip groups without reading them.
    if (statuses && files.every((f) => f.status_counts && statuses.every((s) => f.status_counts![s] === 0))) continue;
    const relation = parquetRelationSql(
      files.map((f) => absolutePath(ctx.lakeDir, f.path)),
      EVENTS_COLUMNS,
    );
    const where = statuses ? `WHERE status IN (${statuses.map(sqlStringLiteral).join(', ')})` : '';
    const { examined, changed } = await replacementsOf(state.conn, `${relation} ${where}`, transform);
    result.rowsExamined += examined;
    if (changed.length === 0) continue;
    const org = selector.organizationId;
    const cols = EVENTS_COLUMNS.map((c) => `"${c.name}"`).join(', ');
    await stageEvents(state.conn, REPLACEMENTS, changed);
    try {
      await state.conn.run(
        `CREATE OR REPLACE TEMP TABLE ${GROUP} AS
         SELECT ${cols} FROM ${relation} WHERE event_id NOT IN (SELECT event_id FROM ${REPLACEMENTS})
         UNION ALL SELECT ${cols} FROM ${REPLACEMENTS}`,
      );
      const [stats] = (await eventsGroupStats(state.conn, GROUP)).values();
      const expected = files.reduce((n, f) => n + f.rows, 0);
      if (!stats || stats.rows !== expected)
        throw new Error(`rewrite of ${org}/${date}: ${stats?.rows ?? 0} rows, manifest lists ${expected}`);
      const outputs: [WrittenFile['table'], string][] = [
        ['events', `SELECT * FROM ${GROUP} ORDER BY kafka_offset`],
        ['daily_costs', rollupFromEventsSql(DAILY_COSTS, GROUP)],
        ['session_spans', rollupFromEventsSql(SESSION_SPANS, GROUP)],
        ...dimensionRollupSources(GROUP, new Map(dimensions ? [[org, dimensions]] : [])),
      ];
      for (const [table, select] of outputs) {
        const { file, rows } = await copyToGroupFile(state.conn, ctx.lakeDir, state.partition, 'rewrite', table, org, date, select);
        if (rows === 0) {
          await fs.rm(absolutePath(ctx.lakeDir, file.path), { force: true });
          continue;
        }
        written.push(file);
        added.push({ file, rows, events: { ...stats, dimensions } });
      }
    } finally {
      await state.conn.run(`DROP TABLE IF EXISTS ${GROUP}`);
      await state.conn.run(`DROP TABLE IF EXISTS ${REPLACEMENTS}`);
    }
    for (const f of manifest.files) if (f.organization_id === org && f.date === date) replaced.add(f.path);
    result.groups++;
    result.rowsChanged += changed.length;
  }
  if (result.groups === 0) return result;
  const sizes = await fileSizes(ctx.lakeDir, written);
  await persist(
    ctx.lakeDir,
    written.map((f) => absolutePath(ctx.lakeDir, f.path)),
    directoriesOf(ctx.lakeDir, written),
  );
  const now = ctx.clock();
  const deletedAfter = new Date(now.getTime() + (options.graceMs ?? 10 * 60_000)).toISOString();
  const garbage: GarbageFile[] = [...replaced].map((path) => ({ path, deleted_after: deletedAfter }));
  await options.beforeCommit?.(written.map((f) => f.path));
  await state.commit(ctx, {
    next_offset: manifest.next_offset,
    files: [
      ...manifest.files.filter((f) => !replaced.has(f.path)),
      ...added.map((a, i) => manifestEntry(a.file, a.rows, sizes[i]!, a.events, now)),
    ],
    garbage: [...manifest.garbage, ...garbage],
  });
  result.filesReplaced = replaced.size;
  result.filesWritten = written.length;
  return result;
}
