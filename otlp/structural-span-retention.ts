// Retention of structural spans: every `intervalMs` (and once soon after start) deletes the spans
// received more than `retentionDays` ago (core's RetentionSweep: bounded chunks, replicas harmless).
// Every ingest replica runs one; retentionDays 0 keeps every span (as the lake keeps every event).
import type { Queryable } from '../core/control/db.js';
import type { Logger } from '../core/logger.js';
import { RetentionSweep } from '../core/retention-sweep.js';
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

export class StructuralSpanRetention extends RetentionSweep {
  constructor(db: Queryable, logger: Logger, opts: StructuralSpanRetentionOptions) {
    super(logger, {
      ...opts,
      what: 'structural spans',
      deleteBefore: (cutoff, limit) => deleteStructuralSpansReceivedBefore(db, cutoff, limit),
      onDeleted: (count) => otlpStructuralSpansExpired.inc(count),
    });
  }
}
