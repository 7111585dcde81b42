// One flush of a partition: the batch's events and its rollups become new Parquet files (one per
// table × organization × date), are made durable, and only then does the manifest name them
// together with the new next_offset. Exactly once: rows below the manifest's next_offset were
// written by an earlier flush and are skipped; event ids seen in the de-duplication window are
// dropped; files written before a crash but never named by a manifest are invisible and swept.
import type { LakeEventRow } from '../../core/lake/events-schema.js';
import { absolutePath, type LakeTable } from '../../core/lake/layout.js';
import type { ManifestFile } from '../../core/lake/manifest.js';
import { readParquetSql } from '../../core/lake/parquet-sql.js';
import { DAILY_COSTS, SESSION_SPANS, rollupFromEventsSql } from '../../core/lake/rollups.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { dimensionRollupSources, dimensionSetsOf } from './dimension-files.js';
import { persist } from './durability.js';
import { EventBatch } from './event-batch.js';
import { stageChunks } from './event-staging.js';
import {
  copyPartitioned,
  directoriesOf,
  eventsGroupStats,
  fileSizes,
  groupKey,
  manifestEntry,
  type CopiedFile,
  type EventsGroupStats,
} from './lake-files.js';
import type { DedupWindow } from './dedup-window.js';
import type { LakeContext, PartitionState } from './partition-state.js';

export interface FlushResult {
  /** Rows now in the lake. */
  written: number;
  /** Rows dropped because their event_id was already written (window or same batch). */
  duplicates: number;
  /** Rows below the manifest's next_offset: already written by an earlier flush. */
  alreadyFlushed: number;
  /** Files added to the manifest (all tables). */
  files: number;
  nextOffset: number;
  /** Milliseconds per phase: stage (into DuckDB), write (Parquet), sync (fsync), manifest. */
  timings: Record<'stage' | 'write' | 'sync' | 'manifest', number>;
}

/** Which rows of a batch a flush writes: positions skipped (already flushed, or duplicate ids), in ascending order. */
export interface AdmittedBatch {
  batch: EventBatch;
  skipped: number[];
  /** Rows to write. */
  written: number;
  duplicates: number;
  alreadyFlushed: number;
  /** Takes the admitted ids out of the de-duplication window again (the flush failed). */
  forget(): void;
}

/**
 * The exactly-once filter every lake format's flush runs first: rows below the lake's next offset
 * (`fromOffset`) were written by an earlier flush, ids the window has seen are duplicates. New ids
 * join the window as they are checked (so a repeat later in the batch is caught by the same
 * lookup); forget() takes them out if the write then fails.
 */
export function admitBatch(
  partition: number,
  dedup: DedupWindow,
  fromOffset: number,
  rows: readonly LakeEventRow[] | EventBatch,
  nextOffset: number,
): AdmittedBatch {
  if (!Number.isSafeInteger(nextOffset) || nextOffset < fromOffset) {
    throw new RangeError(`partition ${partition}: next offset ${nextOffset} is behind the lake's ${fromOffset}`);
  }
  const batch = rows instanceof EventBatch ? rows : EventBatch.of(rows);
  const { eventIds, offsets, partitions, receivedMs } = batch;
  const skipped: number[] = [];
  let duplicates = 0;
  let alreadyFlushed = 0;
  const newestBefore = dedup.newestReceivedMs;
  let checked = 0; // rows [0, checked) have been through the loop below
  const forget = () => dedup.forget(eventIdsOf(batch, checked, skipped), newestBefore);
  try {
    for (let i = 0; i < batch.size; i++, checked++) {
      const eventId = eventIds[i]!;
      if (partitions[i] !== partition) {
        throw new RangeError(`event ${eventId} is from partition ${partitions[i]}, not ${partition}`);
      }
      if (offsets[i]! >= nextOffset) {
        throw new RangeError(`event ${eventId} has offset ${offsets[i]}, not below next offset ${nextOffset}`);
      }
      if (offsets[i]! < fromOffset) {
        alreadyFlushed++;
        skipped.push(i);
        continue;
      }
      if (!dedup.addNew(eventId, receivedMs[i]!)) {
        duplicates++;
        skipped.push(i);
      }
    }
  } catch (e) {
    forget();
    throw e;
  }
  return { batch, skipped, written: batch.size - skipped.length, duplicates, alreadyFlushed, forget };
}

export async function flushBatch(
  state: PartitionState,
  ctx: LakeContext,
  rows: readonly LakeEventRow[] | EventBatch,
  nextOffset: number,
): Promise<FlushResult> {
  const manifest = state.manifest;
  const { batch, skipped, written, duplicates, alreadyFlushed, forget } = admitBatch(
    state.partition,
    state.dedup,
    manifest.next_offset,
    rows,
    nextOffset,
  );
  const timings = { stage: 0, write: 0, sync: 0, manifest: 0 };
  if (written === 0 && nextOffset === manifest.next_offset) {
    return { written: 0, duplicates, alreadyFlushed, files: 0, nextOffset, timings };
  }
  let entries: ManifestFile[];
  try {
    entries = written > 0 ? await writeBatchFiles(state.conn, ctx, state.partition, batch, skipped, timings) : [];
    const t = performance.now();
    await state.commit(ctx, { next_offset: nextOffset, files: [...manifest.files, ...entries], garbage: manifest.garbage });
    timings.manifest = performance.now() - t;
  } catch (e) {
    forget();
    throw e;
  }
  state.dedup.evict();
  return { written, duplicates, alreadyFlushed, files: entries.length, nextOffset, timings };
}

/** Event ids of the first `end` rows of `batch`, less those in `skipped` (ascending positions). */
function* eventIdsOf(batch: EventBatch, end: number, skipped: readonly number[]): Generator<string> {
  let next = 0;
  for (let i = 0; i < end; i++) {
    if (skipped[next] === i) next++;
    else yield batch.eventIds[i]!;
  }
}

const BATCH = 'lake_batch';

// Per flush: stage the batch, one COPY per table (rollups straight from their GROUP BY over the
// staged rows), drop the staging table. Row counts come back from the COPYs and the events'
// group statistics from the batch itself, so no query runs just to describe the files: at the
// all-in-one's small flushes DuckDB's per-statement cost (1-2 ms each) outweighed the rows.
async function writeBatchFiles(
  conn: DuckDBConnection,
  ctx: LakeContext,
  partition: number,
  batch: EventBatch,
  skipped: readonly number[],
  timings: FlushResult['timings'],
): Promise<ManifestFile[]> {
  let t = performance.now();
  const lap = (phase: keyof FlushResult['timings']) => {
    const now = performance.now();
    timings[phase] += now - t;
    t = now;
  };
  const stats = batch.groupStats(skipped);
  const dimensions = await dimensionSetsOf(
    ctx,
    [...stats.values()].map((g) => g.organization_id),
  );
  await stageChunks(conn, BATCH, batch.chunks);
  try {
    // A fresh table's rowids are its rows' positions in append order, i.e. in the batch.
    if (skipped.length > 0) await conn.run(`DELETE FROM ${BATCH} WHERE rowid IN (${skipped.join(', ')})`);
    lap('stage');
    const sources: [LakeTable, string][] = [
      ['events', `SELECT * FROM ${BATCH}`],
      ['daily_costs', rollupFromEventsSql(DAILY_COSTS, BATCH)],
    ];
    // An empty session_spans COPY still costs a statement; most flushes of untraced traffic skip it.
    if (batch.hasSessions) sources.push(['session_spans', rollupFromEventsSql(SESSION_SPANS, BATCH)]);
    sources.push(...dimensionRollupSources(BATCH, dimensions));
    const written: CopiedFile[] = [];
    for (const [table, select] of sources) written.push(...(await copyPartitioned(conn, ctx.lakeDir, table, partition, 'flush', select)));
    const split = await eventsStatsOfSplitGroups(conn, ctx.lakeDir, written);
    const sizes = await fileSizes(ctx.lakeDir, written);
    lap('write');
    await persist(
      ctx.lakeDir,
      written.map((f) => absolutePath(ctx.lakeDir, f.path)),
      directoriesOf(ctx.lakeDir, written),
    );
    lap('sync');
    const now = ctx.clock();
    return written.map((f, i) => {
      const group = stats.get(groupKey(f.organization_id, f.date));
      if (!group) throw new Error(`partitioned COPY wrote ${f.path} for a group not in the batch`);
      return manifestEntry(f, f.rows, sizes[i]!, { ...(split.get(f.path) ?? group), dimensions: dimensions.get(f.organization_id) }, now);
    });
  } finally {
    await conn.run(`DROP TABLE IF EXISTS ${BATCH}`);
  }
}

/**
 * DuckDB normally writes one file per group; should it split a group's events over several
 * files, read those back so each manifest entry describes its own file exactly (rollup entries
 * carry the group's event statistics, as their rows are computed from all of them).
 */
async function eventsStatsOfSplitGroups(
  conn: DuckDBConnection,
  lakeDir: string,
  written: readonly CopiedFile[],
): Promise<Map<string, EventsGroupStats>> {
  const events = written.filter((f) => f.table === 'events');
  const count = new Map<string, number>();
  for (const f of events) count.set(groupKey(f.organization_id, f.date), (count.get(groupKey(f.organization_id, f.date)) ?? 0) + 1);
  const out = new Map<string, EventsGroupStats>();
  for (const f of events.filter((w) => count.get(groupKey(w.organization_id, w.date))! > 1)) {
    const src = readParquetSql([absolutePath(lakeDir, f.path)]);
    const [stats] = (await eventsGroupStats(conn, src)).values();
    if (stats) out.set(f.path, stats);
  }
  return out;
}
