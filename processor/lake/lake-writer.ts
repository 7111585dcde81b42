// The processor's door to the lake. Contract for the partition loop:
//  - on assignment call readManifest(p) and seek the consumer to its nextOffset;
//  - flush(p, rows, nextOffset) writes a batch (rows with offsets below nextOffset) and returns
//    once files and manifest are durable; only then commit nextOffset to Kafka;
//  - compactPartition / collectGarbage / rewriteRows may be called from the same loop between
//    flushes; operations on one partition always run one at a time (queued here), operations on
//    different partitions run concurrently, each on its own DuckDB connection;
//  - call compactPartition every few flushes (it also deletes garbage past its grace period), and
//    collectGarbage(p, { strays: true }) now and then (e.g. after assignment) to remove files a
//    crashed flush wrote but never named;
//  - backfillDimensions(p) now and then rolls up, for groups written before, dimensions defined
//    since (the same queue; one manifest swap per call);
//  - on revocation call releasePartition(p). A LakeFencedError means another processor replaced
//    the manifest: stop work on the partition and let the rebalance settle.
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs/promises';
import type { LakeEventRow } from '../../core/lake/events-schema.js';
import type { ManifestFile } from '../../core/lake/manifest.js';
import type { DimensionSource } from '../../core/lake/dimension-rollups.js';
import type { EventBatch } from './event-batch.js';
import { compact, type CompactionOptions, type CompactionResult } from './compaction.js';
import {
  backfillDimensions,
  dimensionBackfillPlan,
  type DimensionBackfillOptions,
  type DimensionBackfillResult,
} from './dimension-backfill.js';
import type { DedupWindowOptions } from './dedup-window.js';
import { flushBatch, type FlushResult } from './flush.js';
import { collectGarbage, type GarbageOptions, type GarbageResult } from './garbage.js';
import { PartitionState, type LakeContext } from './partition-state.js';
import { rewrite, type RewriteOptions, type RewriteResult, type RewriteSelector, type RowTransform } from './rewrite.js';

export { LakeFencedError, LakeUnavailableError } from './partition-state.js';
export { EventBatch } from './event-batch.js';
export type {
  FlushResult,
  CompactionOptions,
  CompactionResult,
  GarbageOptions,
  GarbageResult,
  RewriteSelector,
  RowTransform,
  RewriteOptions,
  RewriteResult,
};

export interface LakeWriterOptions {
  /**
   * DuckDB instance to use; by default one is created (in memory, two threads). One thread cost
   * about 10% less CPU per event, but compactions took 1.5x as long while holding their
   * partition's lake queue, and consumer-group rebalances under load stalled behind them.
   */
  duckdb?: DuckDBInstance;
  dedup?: DedupWindowOptions;
  /** Wall clock (tests move it to expire grace periods). */
  clock?: () => Date;
  /** Organizations' defined dimensions: every write keeps their rollups (core/lake/dimension-rollups.ts). */
  dimensions?: DimensionSource;
}

export interface PartitionManifestView {
  nextOffset: number;
  version: number;
  files: readonly ManifestFile[];
  /** Organizations with pending_rate_card rows, from lakes that list no files (DuckLake); absent: read `files`. */
  pendingOrganizations?: readonly string[];
  /** Budget spend revision ids the partition's re-pricing commits recorded (DuckLake); absent: the manifest's files show which rewrites landed. */
  revisionIds?: readonly string[];
}

/**
 * What the partition loop needs of a lake (the contract in this file's header): the open lake of
 * ducklake-writer.ts, which the service runs; the manifest lake of LakeWriter below is no longer
 * run (docs/decisions/0158) and goes once no test builds one.
 */
export interface ProcessorLake {
  readManifest(partition: number): Promise<PartitionManifestView>;
  flush(partition: number, rows: readonly LakeEventRow[] | EventBatch, nextOffset: number): Promise<FlushResult>;
  compactPartition(partition: number): Promise<CompactionResult & GarbageResult>;
  rewriteRows(partition: number, selector: RewriteSelector, transform: RowTransform, options?: RewriteOptions): Promise<RewriteResult>;
  backfillDimensions(partition: number, options?: DimensionBackfillOptions): Promise<DimensionBackfillResult>;
  releasePartition(partition: number): Promise<void>;
  close(): Promise<void>;
}

export class LakeWriter implements ProcessorLake {
  private readonly partitions = new Map<number, Promise<PartitionState>>();

  private constructor(
    private readonly ctx: LakeContext,
    private readonly instance: DuckDBInstance,
    private readonly ownsInstance: boolean,
    private readonly dedup: DedupWindowOptions,
  ) {}

  static async open(lakeDir: string, options: LakeWriterOptions = {}): Promise<LakeWriter> {
    await fs.mkdir(lakeDir, { recursive: true });
    const instance = options.duckdb ?? (await DuckDBInstance.create(':memory:', { threads: '2' }));
    return new LakeWriter(
      { lakeDir, clock: options.clock ?? (() => new Date()), dimensions: options.dimensions },
      instance,
      !options.duckdb,
      options.dedup ?? {},
    );
  }

  get lakeDir(): string {
    return this.ctx.lakeDir;
  }

  private state(partition: number): Promise<PartitionState> {
    if (!Number.isSafeInteger(partition) || partition < 0) throw new RangeError(`bad partition ${partition}`);
    let s = this.partitions.get(partition);
    if (!s) {
      s = PartitionState.load(this.ctx, this.instance, partition, this.dedup);
      this.partitions.set(partition, s);
      s.catch(() => this.partitions.delete(partition));
    }
    return s;
  }

  /** Load the partition (manifest and de-duplication window) and report where to resume. */
  async readManifest(partition: number): Promise<PartitionManifestView> {
    const s = await this.state(partition);
    return s.exclusive(async () => ({ nextOffset: s.manifest.next_offset, version: s.manifest.version, files: s.manifest.files }));
  }

  /**
   * Write one batch (rows, or an EventBatch the caller filled as it went); `nextOffset` is the
   * offset to resume from once this batch is durable.
   */
  async flush(partition: number, rows: readonly LakeEventRow[] | EventBatch, nextOffset: number): Promise<FlushResult> {
    const s = await this.state(partition);
    return s.exclusive(() => flushBatch(s, this.ctx, rows, nextOffset));
  }

  /** Merge small files per (table, organization, date), then delete garbage whose grace passed. */
  async compactPartition(partition: number, options: CompactionOptions = {}): Promise<CompactionResult & GarbageResult> {
    const s = await this.state(partition);
    return s.exclusive(async () => {
      const gc = await collectGarbage(s, this.ctx);
      return { ...(await compact(s, this.ctx, options)), ...gc };
    });
  }

  async collectGarbage(partition: number, options: GarbageOptions = {}): Promise<GarbageResult> {
    const s = await this.state(partition);
    return s.exclusive(() => collectGarbage(s, this.ctx, options));
  }

  /** Rewrite selected rows of an organization in this partition (re-pricing). */
  async rewriteRows(
    partition: number,
    selector: RewriteSelector,
    transform: RowTransform,
    options: RewriteOptions = {},
  ): Promise<RewriteResult> {
    const s = await this.state(partition);
    return s.exclusive(() => rewrite(s, this.ctx, selector, transform, options));
  }

  /**
   * Rewrite the dimension rollups of (organization, date) groups whose events files are not yet
   * rolled up for their organization's dimensions now (a dimension defined after they were written).
   */
  async backfillDimensions(partition: number, options: DimensionBackfillOptions = {}): Promise<DimensionBackfillResult> {
    const s = await this.state(partition);
    // Nothing left (the usual case, every second once a dimension's days are done) is answered
    // from the current manifest without queueing behind flushes; a pass that has work plans again
    // on the manifest it holds exclusively.
    if ((await dimensionBackfillPlan(s, this.ctx)).length === 0) return { groups: 0, remaining: 0 };
    return s.exclusive(() => backfillDimensions(s, this.ctx, options));
  }

  /** Forget the partition (after revocation). Waits for its running operation. */
  async releasePartition(partition: number): Promise<void> {
    const pending = this.partitions.get(partition);
    if (!pending) return;
    this.partitions.delete(partition);
    const s = await pending.catch(() => null);
    if (s) await s.exclusive(async () => s.close()).catch(() => undefined);
  }

  async close(): Promise<void> {
    for (const p of [...this.partitions.keys()]) await this.releasePartition(p);
    if (this.ownsInstance) this.instance.closeSync();
  }
}
