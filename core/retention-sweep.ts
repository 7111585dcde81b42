// Retention of control-plane rows: on a PeriodicPass (once soon after start, then every interval)
// deletes the rows older than `retentionDays`, `chunk` rows per statement, one statement at a time,
// so other statements (PGlite has one connection) wait at most one chunk. Replicas running it at
// once delete disjoint or already-gone rows, which is harmless. retentionDays 0 keeps every row.
import type { Logger } from './logger.js';
import { PeriodicPass } from './periodic-pass.js';
import { DAY_MS } from './time.js';

export interface RetentionRule {
  /** What is deleted, for log lines ("structural spans"). */
  what: string;
  retentionDays: number;
  /** Rows per DELETE. */
  chunk: number;
  firstPassAfterMs: number;
  intervalMs: number;
  /** Deletes at most `limit` rows older than `cutoff`; returns how many. */
  deleteBefore(cutoff: Date, limit: number): Promise<number>;
  onDeleted?(count: number): void;
}

export class RetentionSweep {
  private readonly pass: PeriodicPass;

  constructor(
    private readonly logger: Logger,
    private readonly rule: RetentionRule,
  ) {
    this.pass = new PeriodicPass(
      () => this.sweepOnce(),
      (err) => this.logger.warn({ err }, `${rule.what} retention pass failed; retrying next interval`),
      rule,
    );
  }

  start(): void {
    if (this.rule.retentionDays > 0) this.pass.start();
  }

  stop(): Promise<void> {
    return this.pass.stop();
  }

  /** Deletes every row older than now − retentionDays, chunk by chunk; returns how many. */
  async sweepOnce(now = new Date()): Promise<number> {
    if (this.rule.retentionDays === 0) return 0;
    const cutoff = new Date(now.getTime() - this.rule.retentionDays * DAY_MS);
    let total = 0;
    for (;;) {
      const deleted = await this.rule.deleteBefore(cutoff, this.rule.chunk);
      total += deleted;
      this.rule.onDeleted?.(deleted);
      if (deleted < this.rule.chunk || this.pass.stopped) break;
    }
    if (total > 0) this.logger.info({ deleted: total, cutoff }, `${this.rule.what} past retention deleted`);
    return total;
  }
}
