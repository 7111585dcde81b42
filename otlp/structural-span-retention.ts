// Retention of structural spans: every `intervalMs` (and once soon after start) deletes the spans
// received more than `retentionDays` ago, `chunk` rows per statement, one statement at a time, so
// ingest's statements (PGlite has one connection) wait at most one chunk. Every ingest replica
// runs one; concurrent passes delete disjoint or already-gone rows, which is harmless.
// retentionDays 0 keeps every span (as the lake keeps every event).
import type { Queryable } from '../core/control/db.js';
import type { Logger } from '../core/logger.js';
import { PeriodicPass } from '../core/periodic-pass.js';
import { DAY_MS } from '../core/time.js';
import { otlpStructuralSpansExpired } from './otlp-metrics.js';
import { deleteStructuralSpansReceivedBefore } from './structural-spans.store.js';

export interface StructuralSpanRetentionOptions {
  retentionDays: number;
  intervalMs: number;
  /** Rows per DELETE. */
  chunk: number;
  /** Delay of the first pass after start. */
  firstPassAfterMs: number;
}

export const DEFAULT_STRUCTURAL_SPAN_RETENTION = { intervalMs: 3_600_000, chunk: 2_000, firstPassAfterMs: 60_000 } as const;

export class StructuralSpanRetention {
  private readonly pass: PeriodicPass;

  constructor(
    private readonly db: Queryable,
    private readonly logger: Logger,
    private readonly opts: StructuralSpanRetentionOptions,
  ) {
    this.pass = new PeriodicPass(
      () => this.sweepOnce(),
      (err) => this.logger.warn({ err }, 'structural span retention pass failed; retrying next interval'),
      opts,
    );
  }

  start(): void {
    if (this.opts.retentionDays > 0) this.pass.start();
  }

  stop(): Promise<void> {
    return this.pass.stop();
  }

  /** Deletes every span received before now − retentionDays, chunk by chunk; returns how many. */
  async sweepOnce(now = new Date()): Promise<number> {
    if (this.opts.retentionDays === 0) return 0;
    const cutoff = new Date(now.getTime() - this.opts.retentionDays * DAY_MS);
    let total = 0;
    for (;;) {
      const deleted = await deleteStructuralSpansReceivedBefore(this.db, cutoff, this.opts.chunk);
      total += deleted;
      otlpStructuralSpansExpired.inc(deleted);
      if (deleted < this.opts.chunk || this.pass.stopped) break;
    }
    if (total > 0) this.logger.info({ deleted: total, cutoff }, 'structural spans past retention deleted');
    return total;
  }
}
