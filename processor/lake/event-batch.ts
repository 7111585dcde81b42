// A batch of lake rows on its way to a flush, kept the way the flush needs it: the rows themselves
// already written into DuckDB data chunks (EventChunks), plus the few fields the flush decides on
// (event id, offset, partition, received time, organization-date group, status) in plain arrays.
// The processor adds each row as it is priced, so a row object lives only for a moment instead of
// until the flush: rows held for hundreds of milliseconds were most of what the garbage collector
// had to copy and promote. The per-group statistics a manifest records come from these arrays,
// which spares the flush a GROUP BY query.
import { EVENT_STATUSES, type EventStatus, type LakeEventRow } from '../../core/lake/events-schema.js';
import { assertSafeOrganizationId } from '../../core/lake/layout.js';
import { EventChunks } from './event-chunks.js';
import { groupKey, type EventsGroupStats } from './lake-files.js';
import { utcDate, DAY_MS } from '../../core/time.js';

const STATUS_INDEX = new Map<string, number>(EVENT_STATUSES.map((s, i) => [s, i]));

interface Group {
  organizationId: string;
  /** UTC day number of event_timestamp, the day DuckDB's event_date holds. */
  day: number;
}

export class EventBatch {
  readonly chunks = new EventChunks();
  readonly eventIds: string[] = [];
  readonly offsets: number[] = [];
  readonly partitions: number[] = [];
  readonly receivedMs: number[] = [];
  /** Per row: its index in `groupList`, and its status's index in EVENT_STATUSES (-1 if none). */
  private readonly groups: number[] = [];
  private readonly statuses: number[] = [];
  private readonly groupList: Group[] = [];
  /** organization → day → index in groupList. */
  private readonly groupIndex = new Map<string, Map<number, number>>();
  /** Whether any row belongs to a session (else the flush has no session_spans to write). */
  hasSessions = false;

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
    this.groups.push(this.groupOf(row.organization_id, Math.floor(row.event_timestamp.getTime() / DAY_MS)));
    this.statuses.push(STATUS_INDEX.get(row.status) ?? -1);
    if (row.session_id !== null) this.hasSessions = true;
  }

  private groupOf(organizationId: string, day: number): number {
    let days = this.groupIndex.get(organizationId);
    if (!days) {
      days = new Map();
      this.groupIndex.set(organizationId, days);
    }
    let index = days.get(day);
    if (index === undefined) {
      index = this.groupList.length;
      this.groupList.push({ organizationId, day });
      days.set(day, index);
    }
    return index;
  }

  /**
   * What the manifest records per (organization, date) group, over the rows not in `skipped`
   * (ascending batch positions), keyed by groupKey: the same figures a GROUP BY over the staged
   * rows would give.
   */
  groupStats(skipped: readonly number[]): Map<string, EventsGroupStats> {
    const acc = this.groupList.map(() => ({
      rows: 0,
      minOffset: Infinity,
      maxOffset: -Infinity,
      maxReceivedMs: -Infinity,
      counts: [0, 0, 0],
    }));
    let next = 0;
    for (let i = 0; i < this.size; i++) {
      if (skipped[next] === i) {
        next++;
        continue;
      }
      const a = acc[this.groups[i]!]!;
      const offset = this.offsets[i]!;
      a.rows++;
      if (offset < a.minOffset) a.minOffset = offset;
      if (offset > a.maxOffset) a.maxOffset = offset;
      if (this.receivedMs[i]! > a.maxReceivedMs) a.maxReceivedMs = this.receivedMs[i]!;
      const status = this.statuses[i]!;
      if (status >= 0) a.counts[status]!++;
    }
    const out = new Map<string, EventsGroupStats>();
    this.groupList.forEach((g, i) => {
      const a = acc[i]!;
      if (a.rows === 0) return;
      const date = utcDate(new Date(g.day * DAY_MS));
      const statusCounts = {} as Record<EventStatus, number>;
      for (const [k, s] of EVENT_STATUSES.entries()) statusCounts[s] = a.counts[k]!;
      out.set(groupKey(g.organizationId, date), {
        organization_id: g.organizationId,
        date,
        rows: a.rows,
        min_offset: a.minOffset,
        max_offset: a.maxOffset,
        max_received_at: new Date(a.maxReceivedMs).toISOString(),
        status_counts: statusCounts,
      });
    });
    return out;
  }
}
