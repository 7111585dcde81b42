// Retention of structural spans: every `intervalMs` (and once soon after start) deletes the spans
// received more than `retentionDays` ago, `chunk` rows per statement, one statement at a time, so
// ingest's statements (PGlite has one connection) wait at most one chunk. Every ingest replica
// runs one; concurrent passes delete disjoint or already-gone rows, which is harmless.
// retentionDays 0 keeps every span (as the lake keeps every event).
import type { Queryable } from '../core/control/db.js';
import type { Logger } from '../core/logger.js';
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
  private timers: NodeJS.Timeout[] = [];
  private current: Promise<number> | null = null;
  private stopped = false;

  constructor(
    private readonly db: Queryable,
    private readonly logger: Logger,
    private readonly opts: StructuralSpanRetentionOptions,
  ) {}

  start(): void {
    if (this.opts.retentionDays === 0 || this.timers.length > 0) return;
    const pass = () => {
      if (this.current || this.stopped) return;
      this.current = this.sweepOnce()
        .catch((err) => {
          this.logger.warn({ err }, 'structural span retention pass failed; retrying next interval');
          return 0;
        })
        .finally(() => (this.current = null));
    };
    this.timers = [setTimeout(pass, this.opts.firstPassAfterMs), setInterval(pass, this.opts.intervalMs)];
    for (const t of this.timers) t.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    await this.current;
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
      if (deleted < this.opts.chunk || this.stopped) break;
    }
    if (total > 0) this.logger.info({ deleted: total, cutoff }, 'structural spans past retention deleted');
    return total;
  }
}
