// What the processor holds for one assigned partition: the priced rows not yet in the lake, the
// offset after the last of them (`position`), the offset the lake's manifest has made durable,
// and at most one flush in flight. Exactly once: rows are only ever handed to the lake together
// with the offset that follows them, the lake skips anything below its manifest's next offset,
// and whenever the worker's picture may be wrong (a failed or fenced write, a new owner) it drops
// its buffer and starts again from the manifest. Kafka offset commits follow the manifest and
// only tell the group where to fetch; they are never trusted over it.
// A record the lake refuses cannot stall the partition: after LAKE_WRITE_ATTEMPTS failed flushes
// from one offset the worker narrows the refused range down by halves (flushing each chunk before
// consuming the next), and a single record refused LAKE_WRITE_ATTEMPTS times becomes `poison`:
// the consumer dead-letters it and stores a failed stand-in when it reads it again.
import { Mutex } from 'async-mutex';
import { backoffStepMs } from '../core/backoff.js';
import type { LakeEventRow } from '../core/lake/events-schema.js';
import type { Logger } from '../core/logger.js';
import type { LakeRefusal } from './price-record.js';
import {
  EventBatch,
  LakeFencedError,
  LakeUnavailableError,
  type ProcessorLake,
  type RewriteResult,
  type RewriteSelector,
  type RowTransform,
} from './lake/lake-writer.js';
import { compactionDuration, consumerLag, duplicateRows, flushDuration, flushedRows, partitionResets } from './metrics.js';

/** After a failed flush (attempt: failures so far), and between reads of a manifest that cannot be read. */
const RESET_BACKOFF = { firstMs: 250, maxMs: 30_000 };
const LOAD_BACKOFF = { firstMs: 250, maxMs: 10_000 };

/** Failed flushes from one offset before its range is narrowed down, and of a single record before it is dead-lettered. */
const LAKE_WRITE_ATTEMPTS = 3;

export interface PartitionWorkerDeps {
  lake: ProcessorLake;
  logger: Logger;
  /** Tells the consumer group the partition's durable position (best effort). */
  commit(partition: number, nextOffset: number): Promise<void>;
  /** Re-positions the consumer's fetch for this partition. */
  seek(partition: number, offset: number): void;
  compactEveryMs: number;
  /** Alert evaluation from flushes (alerts/evaluation/spend-tally.ts): sees each row, counts a batch before its lake write. */
  alerts?: FlushAlerts;
}

/** What the partition loop tells alert evaluation; recordFlush and reconcile never throw. */
export interface FlushAlerts {
  note(partition: number, row: LakeEventRow): void;
  /** The record at `offset` leaves no row (dead-lettered without a stand-in). */
  noteAbsent(partition: number, offset: number): void;
  /** The buffer was dropped; `released` when the partition left this processor. */
  drop(partition: number, released?: boolean): void;
  recordFlush(partition: number, nextOffset: number): Promise<void>;
  /** The lake holds every record below `nextOffset`. */
  written(partition: number, nextOffset: number): void;
  /** The partition's manifest lists these files, or its DuckLake holds these spend revision ids (at load, and before each rewrite). */
  reconcile(partition: number, lakeFiles: Iterable<string>, revisionIds?: Iterable<string>): Promise<void>;
  /** Before a rewrite (re-pricing) of the partition: what makes budget spend follow it. */
  beginRevision(partition: number, organizationId: string, upTo: number): Promise<RewriteFollower>;
}

/** Follows one lake rewrite: watches its transform, acts before its manifest swap (or DuckLake commit) and after it. */
interface RewriteFollower {
  follow(transform: RowTransform): RowTransform;
  /** Returns the id of the spend revision written, for a DuckLake commit to record. */
  prepare(lakeFiles: readonly string[]): Promise<string | null>;
  commit(): Promise<void>;
}

export class PartitionWorker {
  /** Serializes batch processing, re-pricing and stop-time flushes of this partition. */
  readonly lock = new Mutex();
  /** Next offset to consume: everything below it is buffered or durable. */
  position = 0;
  /** The manifest's next offset after our last successful flush. */
  durable = 0;
  /** False while the worker (re)loads from the manifest: nothing may be consumed or flushed. */
  loaded = false;
  highWatermark = -1;
  /** Bumped whenever buffered work is dropped; work started under an older value is ignored. */
  generation = 0;
  revoked = false;
  /** Resolves once the partition is loaded from its manifest (after assignment or a reset). */
  ready: Promise<void>;
  /** Organization → rates_version its pending rows were last re-priced at (this assignment). */
  readonly repricedVersions = new Map<string, number>();

  /** Rows consumed since the last flush began, staged for the lake as they arrive. */
  private buffer = new EventBatch();
  private bufferSince: number | null = null;
  private inflight: Promise<void> | null = null;
  private lastCompaction = performance.now();
  private failures = 0;
  private lastSeek = { offset: -1, attempts: 0 };
  /** Failed flushes in a row that started at offset `from`. */
  private refusals = { from: -1, count: 0 };
  /** While set, offsets below `end` are flushed in chunks of at most `chunk` offsets (a refused range narrowed down). */
  private isolation: { end: number; chunk: number } | null = null;
  /** A record the lake refused alone LAKE_WRITE_ATTEMPTS times: dead-lettered when next consumed. */
  private poison: (LakeRefusal & { offset: number }) | null = null;

  constructor(
    readonly partition: number,
    private readonly deps: PartitionWorkerDeps,
    /** Settles when the previous owner of this partition in this process let go of it. */
    released: Promise<void> = Promise.resolve(),
  ) {
    this.ready = released.then(() => this.load(this.generation));
  }

  get bufferedRows(): number {
    return this.buffer.size;
  }

  get flushing(): boolean {
    return this.inflight !== null;
  }

  /** Milliseconds the oldest unflushed record has waited, 0 when nothing waits. */
  bufferAgeMs(now = performance.now()): number {
    return this.bufferSince === null ? 0 : now - this.bufferSince;
  }

  /** Whether consumed records are waiting for a flush (rows, or offsets of records without rows). */
  get hasUnflushed(): boolean {
    return this.position > this.durable || this.buffer.size > 0;
  }

  /** Takes a consumed record: its row (if any) joins the buffer and position moves past it. */
  accept(row: LakeEventRow | null, offset: number): void {
    if (row) {
      this.buffer.add(row);
      this.deps.alerts?.note(this.partition, row);
    } else {
      this.deps.alerts?.noteAbsent(this.partition, offset);
    }
    this.position = offset + 1;
    this.bufferSince ??= performance.now();
  }

  /** Why the lake refuses the record at `offset`, when it has been found to (see the header). */
  refusalAt(offset: number): LakeRefusal | null {
    return this.poison?.offset === offset ? this.poison : null;
  }

  /** While a refused range is narrowed down, the chunk just consumed must be flushed before the next record. */
  get mustFlushNow(): boolean {
    const iso = this.isolation;
    return iso !== null && (this.position - this.durable >= iso.chunk || this.position >= iso.end);
  }

  /** Accepts that offsets [position, offset) do not exist (retention, or a seek that landed later). */
  skipTo(offset: number): void {
    this.position = offset;
    this.bufferSince ??= performance.now();
  }

  updateLag(highWatermark?: number): void {
    if (highWatermark !== undefined) this.highWatermark = highWatermark;
    if (this.highWatermark >= 0) consumerLag.set({ partition: String(this.partition) }, Math.max(0, this.highWatermark - this.durable));
  }

  /**
   * Hands the buffer and the position after it to the lake, unless a flush is already running
   * (one at a time keeps flushes in offset order). Returns the running flush. Nothing is handed
   * over while the worker reloads: the buffer was dropped, and a flush of the empty buffer up to
   * `position` would move the lake's offset over the dropped records (an S3 outage lost events
   * so: a flush failed, and flushAll, waiting on it, started the next one).
   */
  startFlush(): Promise<void> {
    if (this.inflight) return this.inflight;
    if (this.revoked || !this.loaded || !this.hasUnflushed) return Promise.resolve();
    const rows = this.buffer;
    const from = this.durable;
    const nextOffset = this.position;
    const generation = this.generation;
    this.buffer = new EventBatch();
    this.bufferSince = null;
    const run = this.flush(rows, from, nextOffset, generation).finally(() => {
      if (this.inflight === run) this.inflight = null;
    });
    this.inflight = run;
    return run;
  }

  /** Waits for the running flush, then flushes whatever is buffered, and waits for that too. */
  async flushAll(): Promise<void> {
    if (this.inflight) await this.inflight;
    await this.startFlush();
  }

  private async flush(rows: EventBatch, from: number, nextOffset: number, generation: number): Promise<void> {
    const started = performance.now();
    try {
      await this.deps.alerts?.recordFlush(this.partition, nextOffset);
      const result = await this.deps.lake.flush(this.partition, rows, nextOffset);
      this.deps.alerts?.written(this.partition, nextOffset);
      if (generation !== this.generation) return;
      this.durable = nextOffset;
      this.failures = 0;
      this.refusals = { from: -1, count: 0 };
      // Past the refused range, or past the record found in it: back to normal batches.
      const passedPoison = this.poison !== null && nextOffset > this.poison.offset;
      if (passedPoison) this.poison = null;
      if (this.isolation && (nextOffset >= this.isolation.end || passedPoison)) this.isolation = null;
      flushDuration.observe((performance.now() - started) / 1000);
      flushedRows.inc(result.written);
      if (result.duplicates > 0) duplicateRows.inc(result.duplicates);
      this.updateLag();
      this.deps
        .commit(this.partition, nextOffset)
        .catch((err) =>
          this.deps.logger.debug({ err, partition: this.partition, nextOffset }, 'offset commit failed; the manifest stays authoritative'),
        );
      if (performance.now() - this.lastCompaction >= this.deps.compactEveryMs) await this.compact(generation);
    } catch (err) {
      if (generation !== this.generation) return;
      // An unreachable store refuses nothing: retry with backoff, never narrow or dead-letter for it.
      if (!(err instanceof LakeFencedError) && !(err instanceof LakeUnavailableError)) this.noteRefusal(from, nextOffset, err);
      this.reset(err);
    }
  }

  /** Counts a failed flush of offsets [from, to) and narrows the range down once it is refused (see the header). */
  private noteRefusal(from: number, to: number, err: unknown): void {
    const reason = err instanceof Error ? err.message : String(err);
    if (this.isolation && to - from > 1) {
      // Narrowing: a chunk refused once is halved at once (its range already failed as a whole).
      this.isolation.chunk = Math.ceil((to - from) / 2);
      return;
    }
    this.refusals = this.refusals.from === from ? { from, count: this.refusals.count + 1 } : { from, count: 1 };
    if (this.refusals.count < LAKE_WRITE_ATTEMPTS) return;
    this.refusals = { from: -1, count: 0 };
    if (to - from === 1) {
      this.poison = { offset: from, reason, standInRefused: this.poison?.offset === from };
      this.isolation ??= { end: to, chunk: 1 };
      this.deps.logger.error(
        { partition: this.partition, offset: from, reason },
        'the lake refuses this record; it goes to the DLQ when read again',
      );
    } else {
      this.isolation = { end: to, chunk: Math.ceil((to - from) / 2) };
      this.deps.logger.warn(
        { partition: this.partition, from, to, attempts: LAKE_WRITE_ATTEMPTS },
        'the lake refuses this range; narrowing it down',
      );
    }
  }

  /**
   * Rewrites rows of the partition in the lake (re-pricing), with budget spend following the costs
   * it changes (alerts/evaluation/rewrite-spend.ts). Run under `lock`, after flushAll.
   */
  async rewriteRows(selector: RewriteSelector, transform: RowTransform): Promise<RewriteResult> {
    const alerts = this.deps.alerts;
    if (!alerts) return this.deps.lake.rewriteRows(this.partition, selector, transform);
    // An earlier rewrite that swapped but failed right after (before its spend was applied) is
    // finished first; its re-run below changes nothing.
    const view = await this.deps.lake.readManifest(this.partition);
    await alerts.reconcile(
      this.partition,
      view.files.map((f) => f.path),
      view.revisionIds,
    );
    const spend = await alerts.beginRevision(this.partition, selector.organizationId, this.durable);
    const result = await this.deps.lake.rewriteRows(this.partition, selector, spend.follow(transform), {
      beforeCommit: (files) => spend.prepare(files),
    });
    await spend.commit();
    return result;
  }

  private async compact(generation: number): Promise<void> {
    this.lastCompaction = performance.now();
    const started = performance.now();
    try {
      const result = await this.deps.lake.compactPartition(this.partition);
      compactionDuration.observe((performance.now() - started) / 1000);
      if (result.groups > 0) this.deps.logger.debug({ partition: this.partition, ...result }, 'compacted');
    } catch (err) {
      // A failed compaction leaves the manifest as it was; only a fence means we lost the partition.
      if (generation === this.generation && err instanceof LakeFencedError) this.reset(err);
      else this.deps.logger.warn({ err, partition: this.partition }, 'compaction failed');
    }
  }

  /**
   * Drops buffered rows and reloads from the manifest: after a failed flush (nothing of it became
   * visible, or all of it did; the manifest says which) or a fence (another processor wrote the
   * manifest). The consumer is re-positioned at the manifest's next offset.
   */
  reset(cause: unknown): void {
    if (this.revoked) return;
    const fenced = cause instanceof LakeFencedError;
    partitionResets.inc({ cause: fenced ? 'fenced' : 'error' });
    this.failures++;
    // While narrowing a refused range down, failures are expected: retry soon.
    const delay = fenced ? 0 : this.isolation ? 250 : backoffStepMs(this.failures, RESET_BACKOFF);
    if (fenced)
      this.deps.logger.info(
        { partition: this.partition },
        'another processor wrote this partition (rebalance); reloading it from its manifest',
      );
    else
      this.deps.logger.error(
        { err: cause, partition: this.partition, retryInMs: delay },
        'lake write failed; reloading the partition from its manifest',
      );
    this.generation++;
    this.loaded = false;
    this.buffer = new EventBatch();
    this.bufferSince = null;
    // The dropped records are not consumed any more; load() moves position to the lake's offset.
    this.position = this.durable;
    this.deps.alerts?.drop(this.partition);
    const previous = this.inflight;
    const generation = this.generation;
    this.ready = (async () => {
      await previous?.catch(() => undefined);
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      await this.deps.lake.releasePartition(this.partition);
      await this.load(generation);
    })();
  }

  /** Reads the manifest (retrying until it can) and positions the worker at its next offset. */
  private async load(generation: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      if (this.revoked || generation !== this.generation) return;
      try {
        const view = await this.deps.lake.readManifest(this.partition);
        if (this.revoked || generation !== this.generation) return;
        this.position = view.nextOffset;
        this.durable = view.nextOffset;
        void this.deps.alerts?.reconcile(
          this.partition,
          view.files.map((f) => f.path),
          view.revisionIds,
        );
        this.repricedVersions.clear();
        this.lastSeek = { offset: -1, attempts: 0 };
        // Fetch from the manifest's next offset, whatever the group's committed offset says
        // (and at once: an idle partition would otherwise never deliver the batch that moves it).
        this.seekToPosition();
        this.loaded = true;
        this.updateLag();
        return;
      } catch (err) {
        this.deps.logger.error({ err, partition: this.partition }, 'cannot read the partition manifest; retrying');
        await this.deps.lake.releasePartition(this.partition).catch(() => undefined);
        await new Promise((r) => setTimeout(r, backoffStepMs(attempt, LOAD_BACKOFF)));
      }
    }
  }

  /**
   * Re-positions the consumer's fetch at `position`. Returns false when it was already asked to
   * fetch from there three times and still skipped ahead (the offsets are gone: retention).
   */
  seekToPosition(): boolean {
    if (this.lastSeek.offset === this.position && this.lastSeek.attempts >= 3) return false;
    this.lastSeek = { offset: this.position, attempts: this.lastSeek.offset === this.position ? this.lastSeek.attempts + 1 : 1 };
    this.deps.seek(this.partition, this.position);
    return true;
  }

  /**
   * The partition went to another member (or the processor stops without flushing): buffered rows
   * are dropped — their offsets were never committed past the manifest, so the next owner reads
   * them again — and the lake state is released once any running flush has settled.
   */
  async revoke(): Promise<void> {
    this.revoked = true;
    this.loaded = false;
    this.generation++;
    this.buffer = new EventBatch();
    this.bufferSince = null;
    this.deps.alerts?.drop(this.partition, true);
    consumerLag.remove({ partition: String(this.partition) });
    await this.inflight?.catch(() => undefined);
    await this.ready.catch(() => undefined);
    await this.deps.lake.releasePartition(this.partition);
  }
}
