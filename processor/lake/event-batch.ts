// A batch of lake rows on its way to a flush, kept the way the flush needs it: the rows themselves
// already written into DuckDB data chunks (EventChunks), plus the few fields the flush decides on
// (event id, offset, partition, received time) in plain arrays. The processor adds each row as it
// is priced, so a row object lives only for a moment instead of until the flush: rows held for
// hundreds of milliseconds were most of what the garbage collector had to copy and promote.
import { assertSafeOrganizationId } from '../../core/lake/layout.js';
import type { LakeEventRow } from '../../core/lake/events-schema.js';
import { EventChunks } from './event-chunks.js';

export class EventBatch {
  readonly chunks = new EventChunks();
  readonly eventIds: string[] = [];
  readonly offsets: number[] = [];
  readonly partitions: number[] = [];
  readonly receivedMs: number[] = [];

  /** The batch of these rows (tests and re-pricing hand the lake plain rows). */
  static of(rows: readonly LakeEventRow[]): EventBatch {
    const batch = new EventBatch();
    for (const row of rows) batch.add(row);
    return batch;
  }

  get size(): number {
    return this.offsets.length;
  }

  /** Adds a row; throws (adding nothing) when the lake cannot hold one of its values. */
  add(row: LakeEventRow): void {
    assertSafeOrganizationId(row.organization_id);
    this.chunks.add(row);
    this.eventIds.push(row.event_id);
    this.offsets.push(row.kafka_offset);
    this.partitions.push(row.kafka_partition);
    this.receivedMs.push(row.received_at.getTime());
  }
}
