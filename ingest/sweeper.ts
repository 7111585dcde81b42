// The sweeper: re-publishes ingest groups left unpublished (their publish failed after the 503
// path could not release them, their mark failed, or their process died between reservation and
// publish) from the records their blob holds, then marks them published. Only rows still naming
// the group are sent: rows released, discarded or moved into another group are not. A record may
// already be in Kafka; the processor drops the repeat by event_id, so re-publishing is always safe
// and a 202 is never lost.
import type { ControlDb } from '../core/control/db.js';
import { listGroupRecords, listStrandedGroups, markGroupsPublished, type StrandedReservation } from './ingest-ledger.store.js';
import type { Logger } from '../core/logger.js';
import type { EventPublisher } from './event-publisher.js';
import { sweptEvents } from './ingest-metrics.js';

export interface SweeperOptions {
  /** How often to look. */
  intervalMs: number;
  /** Groups reserved longer ago than this are stranded (a live publish takes milliseconds). */
  strandedAfterMs: number;
  /** Most records per Kafka send (and groups per look). */
  batchSize: number;
  /**
   * This process is the only ingest (the all-in-one): every group reserved before it started
   * belongs to a dead process, so one pass at start re-publishes them at once instead of after
   * strandedAfterMs (the lake catches up seconds after a crash).
   */
  soleIngest?: boolean;
}

export const DEFAULT_SWEEPER: SweeperOptions = { intervalMs: 5_000, strandedAfterMs: 10_000, batchSize: 1_000 };

export class Sweeper {
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<number> | null = null;

  constructor(
    private readonly db: ControlDb,
    private readonly publisher: EventPublisher,
    /** Groups a request of this process is still handling: not stranded, whatever their age. */
    private readonly inFlightGroups: () => Iterable<string>,
    private readonly logger: Logger,
    private readonly opts: SweeperOptions = DEFAULT_SWEEPER,
  ) {}

  start(): void {
    if (this.timer) return;
    const pass = (olderThan?: Date) => {
      if (this.current) return;
      this.current = this.sweepOnce(olderThan)
        .catch((err) => {
          this.logger.warn({ err }, 'sweep failed; retrying next interval');
          return 0;
        })
        .finally(() => (this.current = null));
    };
    if (this.opts.soleIngest) pass(new Date());
    this.timer = setInterval(() => pass(), this.opts.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.current;
  }

  /** One pass over groups reserved before `olderThan` (default: strandedAfterMs ago); returns how many records it published. */
  async sweepOnce(olderThan?: Date): Promise<number> {
    const { batchSize } = this.opts;
    let total = 0;
    for (;;) {
      const cutoff = olderThan ?? new Date(Date.now() - this.opts.strandedAfterMs);
      const groups = await listStrandedGroups(this.db, cutoff, batchSize, this.inFlightGroups());
      if (groups.length === 0) return total;
      // Groups are published whole (a group is marked once all its records are sent); small ones
      // share a send until it holds batchSize records.
      let records: StrandedReservation[] = [];
      let ids: string[] = [];
      for (const g of groups) {
        records.push(...(await listGroupRecords(this.db, [g.id])));
        ids.push(g.id);
        if (records.length >= batchSize) {
          total += await this.publishAndMark(ids, records);
          records = [];
          ids = [];
        }
      }
      if (ids.length > 0) total += await this.publishAndMark(ids, records);
      if (groups.length < batchSize) return total;
    }
  }

  private async publishAndMark(groupIds: string[], records: StrandedReservation[]): Promise<number> {
    for (let i = 0; i < records.length; i += this.opts.batchSize) {
      const chunk = records.slice(i, i + this.opts.batchSize);
      await this.publisher.publish(chunk.map((r) => ({ key: r.organizationId, value: r.payload })));
    }
    await markGroupsPublished(this.db, groupIds);
    sweptEvents.inc(records.length);
    if (records.length > 0) {
      this.logger.info(
        { events: records.length, groups: groupIds.length, oldest: records[0]!.createdAt },
        'sweeper re-published stranded reservations',
      );
    }
    return records.length;
  }
}
