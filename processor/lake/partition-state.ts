// What a processor holds for one assigned Kafka partition: its manifest as last written, its own
// DuckDB connection (temp tables are per connection), the de-duplication window and a queue that
// runs the partition's lake operations one at a time. Every change to the partition's files goes
// through commit(), which refuses to overwrite a manifest someone else replaced since we read it
// (a second owner after a rebalance), so a fenced-off processor cannot undo newer work.
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { DimensionSource } from '../../core/lake/dimension-rollups.js';
import { manifestPath } from '../../core/lake/layout.js';
import { manifestStatKey, readManifest, writeManifest, type Manifest } from '../../core/lake/manifest.js';
import { DedupWindow, type DedupWindowOptions } from './dedup-window.js';

export interface LakeContext {
  lakeDir: string;
  /** Wall clock for created_at, grace periods and stray-file age. */
  clock: () => Date;
  /** Organizations' defined dimensions, rolled up in every write (none when absent). */
  dimensions?: DimensionSource;
}

/** The partition's manifest changed under us: another processor owns it now. */
export class LakeFencedError extends Error {}

/**
 * The lake's store or catalog could not be reached: nothing was written, and no record is to
 * blame (the partition loop retries with backoff instead of narrowing the batch down).
 */
export class LakeUnavailableError extends Error {}

async function statKeyOf(file: string): Promise<string> {
  return (await manifestStatKey(file)) ?? 'absent';
}

export class PartitionState {
  private queue: Promise<unknown> = Promise.resolve();
  private fenced = false;
  private closed = false;

  private constructor(
    readonly partition: number,
    readonly conn: DuckDBConnection,
    private current: Manifest,
    private statKey: string,
    readonly dedup: DedupWindow,
  ) {}

  static async load(ctx: LakeContext, instance: DuckDBInstance, partition: number, dedup: DedupWindowOptions): Promise<PartitionState> {
    const file = manifestPath(ctx.lakeDir, partition);
    // Stat before reading: if the file changes in between, the first commit sees it and fences.
    const statKey = await statKeyOf(file);
    const manifest = await readManifest(ctx.lakeDir, partition);
    const conn = await instance.connect();
    const window = new DedupWindow(dedup);
    await window.rebuild(conn, ctx.lakeDir, manifest);
    return new PartitionState(partition, conn, manifest, statKey, window);
  }

  get manifest(): Manifest {
    return this.current;
  }

  /** Run `fn` after every earlier operation on this partition has finished. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(() => {
      if (this.closed) throw new Error(`partition ${this.partition} was released`);
      if (this.fenced) throw new LakeFencedError(`partition ${this.partition} was taken over; reassign it`);
      return fn();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Replace the manifest with `next` (version and updated_at are set here). */
  async commit(ctx: LakeContext, next: Pick<Manifest, 'next_offset' | 'files' | 'garbage'>): Promise<Manifest> {
    const file = manifestPath(ctx.lakeDir, this.partition);
    if ((await statKeyOf(file)) !== this.statKey) {
      this.fenced = true;
      throw new LakeFencedError(`manifest of partition ${this.partition} was replaced by another writer`);
    }
    const manifest: Manifest = {
      format: this.current.format,
      partition: this.partition,
      version: this.current.version + 1,
      next_offset: next.next_offset,
      updated_at: ctx.clock().toISOString(),
      files: next.files,
      garbage: next.garbage,
    };
    await writeManifest(ctx.lakeDir, manifest);
    this.statKey = await statKeyOf(file);
    this.current = manifest;
    return manifest;
  }

  close(): void {
    this.closed = true;
    this.conn.closeSync();
  }
}
