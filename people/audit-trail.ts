// The audit trail people/ keeps for every capability (it fills core/http/audit-trail.ts's slot),
// and its retention: once soon after start and then daily, each api process deletes the rows
// older than AUDIT_RETENTION_DAYS (core's RetentionSweep: bounded chunks, replicas harmless).
// 0 keeps every row.
import type { Queryable } from '../core/control/db.js';
import type { AuditTrail } from '../core/http/audit-trail.js';
import type { Logger } from '../core/logger.js';
import { RetentionSweep } from '../core/retention-sweep.js';
import { DAY_MS } from '../core/time.js';
import { deleteAuditBefore, recordAudit } from './audit.store.js';

export const auditTrail: AuditTrail = { record: recordAudit };

export interface AuditRetentionOptions {
  retentionDays: number;
  /** Delay of the first pass after start; default one minute. */
  firstPassAfterMs?: number;
}

export class AuditRetention extends RetentionSweep {
  constructor(db: Queryable, logger: Logger, opts: AuditRetentionOptions) {
    super(logger, {
      what: 'audit events',
      retentionDays: opts.retentionDays,
      chunk: 2_000,
      firstPassAfterMs: opts.firstPassAfterMs ?? 60_000,
      intervalMs: DAY_MS,
      deleteBefore: (cutoff, limit) => deleteAuditBefore(db, cutoff, limit),
    });
  }
}
