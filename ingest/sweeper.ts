// The sweeper: re-publishes ledger rows left `reserved` (their publish failed after the 503 path
// could not release them, or their process died between reservation and publish) from the payload
// they hold, then marks them published. A row may already be in Kafka; the processor drops the
// repeat by event_id, so re-publishing is always safe and a 202 is never lost.
import type { ControlDb } from '../core/control/db.js';
import { listStrandedReservations, markPublished } from '../core/control/ingest-ledger.js';
import type { Logger } from '../core/logger.js';
import type { EventPublisher } from './event-publisher.js';
import { sweptEvents } from './ingest-metrics.js';

export interface SweeperOptions {
  /** How often to look. */
  intervalMs: number;
  /** Rows reserved longer ago than this are stranded (a live publish takes milliseconds). */
  strandedAfterMs: number;
  /** Most rows per pass. */
  batchSize: number;
}

export const DEFAULT_SWEEPER: SweeperOptions = { intervalMs: 5_000, strandedAfterMs: 10_000, batchSize: 1_000 };

export class Sweeper {
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<number> | null = null;

  constructor(
    private readonly db: ControlDb,
    private readonly publisher: EventPublisher,
    /** Keys a request of this process is still handling: not stranded, whatever their age. */
    private readonly isInFlight: (organizationId: string, idempotencyKey: string) => boolean,
    private readonly logger: Logger,
    private readonly opts: SweeperOptions = DEFAULT_SWEEPER,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.current) return;
      this.current = this.sweepOnce()
        .catch((err) => {
          this.logger.warn({ err }, 'sweep failed; retrying next interval');
          return 0;
        })
        .finally(() => (this.current = null));
    }, this.opts.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.current;
  }

  /** One pass; returns how many rows it published. */
  async sweepOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = (await listStrandedReservations(this.db, new Date(Date.now() - this.opts.strandedAfterMs), this.opts.batchSize)).filter(
        (r) => !this.isInFlight(r.organizationId, r.idempotencyKey),
      );
      if (rows.length === 0) return total;
      await this.publisher.publish(rows.map((r) => ({ key: r.organizationId, value: r.payload })));
      await markPublished(
        this.db,
        rows.map((r) => ({ organizationId: r.organizationId, idempotencyKey: r.idempotencyKey })),
      );
      sweptEvents.inc(rows.length);
      total += rows.length;
      this.logger.info({ events: rows.length, oldest: rows[0]!.createdAt }, 'sweeper re-published stranded reservations');
      if (rows.length < this.opts.batchSize) return total;
    }
  }
}
