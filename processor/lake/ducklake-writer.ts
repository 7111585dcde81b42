// The processor's lake (docs/decisions/0139, 0158): the ProcessorLake contract of lake-writer.ts
// over the open lake (core/lake/lake-catalog.ts). Exactly once: a partition's
// resume offset is its row of partition_offsets_p<N>; each flush and each re-pricing is ONE
// DuckLake commit fenced on that offset (ducklake-commit.ts, ducklake-rewrite.ts), so an owner
// that lost the partition commits nothing and learns it as LakeFencedError. A commit that lost a
// race with another partition's transaction (DuckLakeConflictError) wrote nothing and is retried.
// Compaction and garbage are DuckLake's own operations, run at most once per interval per process.
// readManifest stays out of the partition's queue (flushes never wait for it): it reads two small
// tables (daily_costs for the organizations with pending rows, spend_revisions for the re-pricing
// commits' spend revision ids) on the writer's read connection.
import { Mutex } from 'async-mutex';
import type { DuckDBConnection } from '@duckdb/node-api';
import { collapseCoverage } from '../../core/lake/dimension-coverage.js';
import type { DimensionSource } from '../../core/lake/dimension-rollups.js';
import type { LakeEventRow } from '../../core/lake/events-schema.js';
import { ensureLakeTables, isLakeUnreachable, openLake, type OpenLake } from '../../core/lake/lake-catalog.js';
import type { LakeSettings } from '../../core/lake/lake-settings.js';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import { DAY_MS, utcDate } from '../../core/time.js';
import type { CompactionResult } from './compaction.js';
import type { DimensionBackfillOptions, DimensionBackfillResult } from './dimension-backfill.js';
import { backfillDuckLakeDimensions } from './ducklake-dimension-backfill.js';
import { dimensionSetsOf } from './dimension-files.js';
import { commitDuckLakeFlush, commitFenced, DuckLakeConflictError, lakeNextOffset, OffsetMovedError } from './ducklake-commit.js';
import { commitDuckLakeRewrite, fenceSql, lakeSpendRevisionIds } from './ducklake-rewrite.js';
import { DedupWindow, type DedupWindowOptions } from './dedup-window.js';
import type { EventBatch } from './event-batch.js';
import { stageChunks, stageEvents } from './event-staging.js';
import { admitBatch, type FlushResult } from './flush.js';
import type { GarbageResult } from './garbage.js';
import type { PartitionManifestView, ProcessorLake } from './lake-writer.js';
import { LakeFencedError, type LakeContext, LakeUnavailableError } from './partition-state.js';
import { replacementsOf, type RewriteOptions, type RewriteResult, type RewriteSelector, type RowTransform } from './rewrite.js';

export interface DuckLakeWriterOptions {
  dedup?: DedupWindowOptions;
  dimensions?: DimensionSource;
  /** DuckLake's merge, snapshot expiry and file cleanup run at most this often. Default 60 s. */
  maintenanceEveryMs?: number;
  /** Snapshots (and the files only they name) are kept this long for readers. Default 10 minutes. */
  snapshotRetentionMs?: number;
}

/** Commits retried after a conflict with another partition's concurrent transaction, and the pause before each. */
const CONFLICT_RETRIES = 8;
const CONFLICT_PAUSE_MS = { first: 20, max: 500 };

const BATCH = 'ducklake_batch';
const REPLACEMENTS = 'ducklake_replacements';

/** One assigned partition: its connection (TEMP tables are per connection), offset, window, and a queue. */
class DuckLakePartition {
  private readonly lock = new Mutex();
  fenced = false;
  closed = false;

  constructor(
    readonly partition: number,
    readonly conn: DuckDBConnection,
    public nextOffset: number,
    readonly dedup: DedupWindow,
  ) {}

  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.lock.runExclusive(() => {
      if (this.closed) throw new Error(`partition ${this.partition} was released`);
      if (this.fenced) throw new LakeFencedError(`partition ${this.partition} was taken over; reassign it`);
      return fn();
    });
  }

  /**
   * Runs `commit` (one fenced DuckLake transaction) until it lands; a conflict retries while the
   * lake's offset is still ours; a moved offset fences the partition.
   */
  async commitFenced(commit: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await commit();
      } catch (e) {
        if (e instanceof DuckLakeConflictError && attempt < CONFLICT_RETRIES) {
          if ((await lakeNextOffset(this.conn, this.partition)) === this.nextOffset) {
            await new Promise((r) => setTimeout(r, Math.min(CONFLICT_PAUSE_MS.max, CONFLICT_PAUSE_MS.first * 2 ** attempt)));
            continue;
          }
        } else if (!(e instanceof OffsetMovedError) && !(e instanceof DuckLakeConflictError)) {
          throw e;
        }
        this.fenced = true;
        throw new LakeFencedError(e instanceof Error ? e.message : String(e));
      }
    }
  }
}

export class DuckLakeWriter implements ProcessorLake {
  private readonly partitions = new Map<number, Promise<DuckLakePartition>>();
  /** The lake's own connection: table preparation and maintenance, one at a time. */
  private readonly shared = new Mutex();
  /** readManifest's connection, one read at a time, outside every partition's queue. */
  private readonly reading = new Mutex();
  private lastMaintenance = performance.now();

  private constructor(
    private readonly lake: OpenLake,
    private readonly reads: DuckDBConnection,
    private readonly ctx: Pick<LakeContext, 'dimensions'>,
    private readonly options: DuckLakeWriterOptions,
  ) {}

  /** `settings` must come from loadConfig() in this thread: openLake refuses credentials copied from another. */
  static async open(settings: LakeSettings, options: DuckLakeWriterOptions = {}): Promise<DuckLakeWriter> {
    const lake = await openLake(settings, { threads: 2 });
    try {
      await ensureLakeTables(lake);
      return new DuckLakeWriter(lake, await lake.instance.connect(), { dimensions: options.dimensions }, options);
    } catch (e) {
      lake.close();
      throw e;
    }
  }

  private state(partition: number): Promise<DuckLakePartition> {
    if (!Number.isSafeInteger(partition) || partition < 0) throw new RangeError(`bad partition ${partition}`);
    let s = this.partitions.get(partition);
    if (!s) {
      s = this.load(partition);
      this.partitions.set(partition, s);
      s.catch(() => this.partitions.delete(partition));
    }
    return s;
  }

  private async load(partition: number): Promise<DuckLakePartition> {
    await this.shared.runExclusive(() => ensureLakeTables(this.lake, [partition]));
    const conn = await this.lake.instance.connect();
    try {
      const dedup = new DedupWindow(this.options.dedup);
      await dedup.rebuildFromLake(conn, partition);
      return new DuckLakePartition(partition, conn, await lakeNextOffset(conn, partition), dedup);
    } catch (e) {
      conn.closeSync();
      throw e;
    }
  }

  /**
   * The partition's resume offset; `pendingOrganizations` tells re-pricing where to look (no files
   * to list), `revisionIds` which re-pricing commits landed (alerts/evaluation/spend-revisions.ts).
   * Not queued behind the partition's flushes: the offset is the last one this owner committed.
   */
  async readManifest(partition: number): Promise<PartitionManifestView> {
    const s = await this.state(partition);
    return this.reading.runExclusive(async () => {
      // One transaction: one snapshot, and the catalog read once for both tables.
      await this.reads.run('BEGIN TRANSACTION');
      try {
        // daily_costs has a row per (partition, organization, day, …, status) with events (its
        // invariant): the organizations of the events' pending rows, from rollup rows.
        const pending = await this.reads.runAndReadAll(
          `SELECT DISTINCT organization_id FROM lake.daily_costs
           WHERE kafka_partition = ${partition} AND status = 'pending_rate_card' ORDER BY organization_id`,
        );
        const revisionIds = await lakeSpendRevisionIds(this.reads, partition);
        const pendingOrganizations = pending.getRows().map((r) => r[0] as string);
        return { nextOffset: s.nextOffset, version: 0, files: [], pendingOrganizations, revisionIds };
      } finally {
        await this.reads.run('COMMIT').catch(() => undefined);
      }
    });
  }

  async flush(partition: number, rows: readonly LakeEventRow[] | EventBatch, nextOffset: number): Promise<FlushResult> {
    const s = await this.state(partition);
    return s.exclusive(async () => {
      const admitted = admitBatch(partition, s.dedup, s.nextOffset, rows, nextOffset);
      const { batch, skipped, written, duplicates, alreadyFlushed } = admitted;
      const timings = { stage: 0, write: 0, sync: 0, manifest: 0 };
      if (written === 0 && nextOffset === s.nextOffset) return { written, duplicates, alreadyFlushed, files: 0, nextOffset, timings };
      let t = performance.now();
      try {
        const orgs = [...batch.groupStats(skipped).values()].map((g) => g.organization_id);
        const dimensions = await dimensionSetsOf(this.ctx, orgs);
        if (written > 0) {
          await stageChunks(s.conn, BATCH, batch.chunks);
          // A fresh table's rowids are its rows' positions in append order, i.e. in the batch.
          if (skipped.length > 0) await s.conn.run(`DELETE FROM ${BATCH} WHERE rowid IN (${skipped.join(', ')})`);
        }
        timings.stage = performance.now() - t;
        t = performance.now();
        const staged = written > 0 ? BATCH : null;
        await s.commitFenced(() =>
          commitDuckLakeFlush(s.conn, {
            partition,
            fromOffset: s.nextOffset,
            nextOffset,
            staged,
            hasSessions: batch.hasSessions,
            dimensions,
          }),
        );
        timings.write = performance.now() - t;
      } catch (e) {
        admitted.forget();
        throw isLakeUnreachable(e) ? new LakeUnavailableError(e instanceof Error ? e.message : String(e)) : e;
      } finally {
        await s.conn.run(`DROP TABLE IF EXISTS ${BATCH}`).catch(() => undefined);
      }
      s.nextOffset = nextOffset;
      s.dedup.evict();
      return { written, duplicates, alreadyFlushed, files: 0, nextOffset, timings };
    });
  }

  /**
   * Re-pricing: the selected rows go through `transform`; the changed ones replace their originals,
   * and the partition's rollup rows of their days are recomputed, in one commit. `beforeCommit`
   * gets no files (DuckLake names none to us) and returns the budget spend revision's id, which the
   * commit records (spend_revisions).
   */
  async rewriteRows(
    partition: number,
    selector: RewriteSelector,
    transform: RowTransform,
    options: RewriteOptions = {},
  ): Promise<RewriteResult> {
    const s = await this.state(partition);
    return s.exclusive(async () => {
      const org = selector.organizationId;
      const where = [`kafka_partition = ${partition}`, `organization_id = ${sqlStringLiteral(org)}`];
      if (selector.statuses) where.push(`status IN (${selector.statuses.map(sqlStringLiteral).join(', ')})`);
      for (const [op, day] of [
        ['>=', selector.fromDate],
        ['<=', selector.toDate],
      ] as const) {
        if (day !== undefined) where.push(`event_date ${op} CAST(${sqlStringLiteral(day)} AS DATE)`);
      }
      const { examined, changed } = await replacementsOf(s.conn, `lake.events WHERE ${where.join(' AND ')}`, transform);
      const result: RewriteResult = { groups: 0, rowsExamined: examined, rowsChanged: 0, filesReplaced: 0, filesWritten: 0 };
      if (changed.length === 0) return result;
      const dates = [...new Set(changed.map((r) => r.event_timestamp.toISOString().slice(0, 10)))].sort();
      const dimensions = (await dimensionSetsOf(this.ctx, [org])).get(org) ?? {};
      await stageEvents(s.conn, REPLACEMENTS, changed);
      try {
        const revisionId = (await options.beforeCommit?.([])) ?? null;
        await s.commitFenced(() =>
          commitDuckLakeRewrite(s.conn, {
            partition,
            offset: s.nextOffset,
            organizationId: org,
            staged: REPLACEMENTS,
            dates,
            dimensions,
            revisionId,
          }),
        );
      } finally {
        await s.conn.run(`DROP TABLE IF EXISTS ${REPLACEMENTS}`).catch(() => undefined);
      }
      return { ...result, groups: dates.length, rowsChanged: changed.length };
    });
  }

  /**
   * DuckLake's own upkeep, for the whole lake and at most once per interval however many
   * partitions ask: merge small adjacent files, write inlined rows out to Parquet (so outside
   * readers of the files see them), expire snapshots older than any read, delete the files only
   * they named. A failure (e.g. a conflict with a flush) changes nothing and waits for the next turn.
   */
  async compactPartition(): Promise<CompactionResult & GarbageResult> {
    const none = { groups: 0, filesMerged: 0, filesWritten: 0, deleted: 0, strays: 0 };
    if (performance.now() - this.lastMaintenance < (this.options.maintenanceEveryMs ?? 60_000)) return none;
    return this.shared.runExclusive(async () => {
      if (performance.now() - this.lastMaintenance < (this.options.maintenanceEveryMs ?? 60_000)) return none;
      this.lastMaintenance = performance.now();
      const keepSeconds = Math.ceil((this.options.snapshotRetentionMs ?? 10 * 60_000) / 1000);
      const conn = this.lake.conn;
      await conn.run(`CALL ducklake_merge_adjacent_files('lake')`);
      await conn.run(`CALL ducklake_flush_inlined_data('lake')`);
      await conn.run(`CALL ducklake_expire_snapshots('lake', older_than => now() - to_seconds(${keepSeconds}))`);
      const deleted = await conn.runAndReadAll(`CALL ducklake_cleanup_old_files('lake', cleanup_all => true)`);
      // Settled days' coverage rows folded into one each: the api reads them per request after a change (0156).
      await collapseCoverage(conn, utcDate(new Date(Date.now() - DAY_MS)));
      return { ...none, deleted: deleted.currentRowCount };
    });
  }

  /**
   * Rolls up, for days written before, the dimensions their organization defines now
   * (ducklake-dimension-backfill.ts): a bounded number of days per call, each organization's in
   * one commit fenced on the partition's offset and retried after a conflict as a flush is.
   */
  async backfillDimensions(partition: number, options: DimensionBackfillOptions = {}): Promise<DimensionBackfillResult> {
    const s = await this.state(partition);
    return s.exclusive(async () => {
      try {
        return await backfillDuckLakeDimensions(
          s.conn,
          this.ctx,
          partition,
          (statements) =>
            s.commitFenced(() => commitFenced(s.conn, partition, s.nextOffset, statements, fenceSql(partition, s.nextOffset))),
          options.maxGroups,
        );
      } catch (e) {
        throw isLakeUnreachable(e) ? new LakeUnavailableError(e instanceof Error ? e.message : String(e)) : e;
      }
    });
  }

  async releasePartition(partition: number): Promise<void> {
    const pending = this.partitions.get(partition);
    if (!pending) return;
    this.partitions.delete(partition);
    const s = await pending.catch(() => null);
    if (!s) return;
    // Waits for the running operation; a fenced partition's queue refuses work, so close it directly after.
    await s.exclusive(async () => undefined).catch(() => undefined);
    s.closed = true;
    s.conn.closeSync();
  }

  async close(): Promise<void> {
    for (const p of [...this.partitions.keys()]) await this.releasePartition(p);
    await this.reading.runExclusive(async () => this.reads.closeSync());
    await this.shared.runExclusive(async () => this.lake.close());
  }
}
