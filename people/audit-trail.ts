// The audit trail people/ keeps for every capability (it fills core/http/audit-trail.ts's slot),
// and its retention: once soon after start and then daily, each api process deletes the rows
// older than AUDIT_RETENTION_DAYS, a bounded chunk per statement; replicas overlapping delete
// disjoint or already-gone rows, which is harmless. 0 keeps every row.
import type { Queryable } from '../core/control/db.js';
import type { AuditTrail } from '../core/http/audit-trail.js';
import type { Logger } from '../core/logger.js';
import { PeriodicPass } from '../core/periodic-pass.js';
import { DAY_MS } from '../core/time.js';
import { deleteAuditBefore, recordAudit } from './audit.store.js';

export const auditTrail: AuditTrail = { record: recordAudit };

const CHUNK = 2_000;

export interface AuditRetentionOptions {
  retentionDays: number;
  /** Delay of the first pass after start; default one minute. */
  firstPassAfterMs?: number;
}

export class AuditRetention {
  private readonly pass: PeriodicPass;

  constructor(
    private readonly db: Queryable,
    private readonly logger: Logger,
    private readonly opts: AuditRetentionOptions,
  ) {
    this.pass = new PeriodicPass(
      () => this.sweepOnce(),
      (err) => this.logger.warn({ err }, 'audit retention pass failed; retrying tomorrow'),
      { firstPassAfterMs: opts.firstPassAfterMs ?? 60_000, intervalMs: DAY_MS },
    );
  }

  start(): void {
    if (this.opts.retentionDays > 0) this.pass.start();
  }

  stop(): Promise<void> {
    return this.pass.stop();
  }

  /** Deletes every row that occurred before now − retentionDays; returns how many. */
  async sweepOnce(now = new Date()): Promise<number> {
    if (this.opts.retentionDays === 0) return 0;
    const cutoff = new Date(now.getTime() - this.opts.retentionDays * DAY_MS);
    let total = 0;
    for (;;) {
      const deleted = await deleteAuditBefore(this.db, cutoff, CHUNK);
      total += deleted;
      if (deleted < CHUNK || this.pass.stopped) break;
    }
    if (total > 0) this.logger.info({ deleted: total, cutoff }, 'audit events past retention deleted');
    return total;
  }
}
