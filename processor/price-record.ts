// One consumed record → what the lake and the DLQ get: decode, price, map. Never throws for a bad
// record: bytes that cannot be decoded go to the DLQ (and, when the record key names an
// organization, a `failed` stand-in row keeps status_counts honest), and so does an event whose
// time is outside ingest's range (either lake would misfile it); an event that decodes but
// cannot be priced or stored as sent becomes a `failed` row with its reason. Only faults that a
// retry can cure (the registry or the control plane unreachable) are thrown.
import { isUuid } from '../core/ids.js';
import type { LakeEventRow } from '../core/lake/events-schema.js';
import { priceEvent, type PricingRates } from '../pricing/price-event.js';
import { UndecodableEventError, type UsageEventCodec } from '../core/registry/usage-event-codec.js';
import { EARLIEST_EVENT_TIME, LATEST_EVENT_TIME } from '../schemas/usage-event.js';
import type { DeadLetter } from './dlq.js';
import {
  costFits,
  eventTimesOutOfRange,
  failedLakeRow,
  standInLakeRow,
  toLakeRow,
  unstorableFields,
  type RecordPosition,
} from './to-lake-row.js';

export interface ConsumedRecord {
  key: Buffer | null;
  value: Buffer | null;
  offset: number;
  /** Kafka record timestamp, epoch ms as a string. */
  timestamp: string;
}

export interface RecordOutcome {
  /** The row to store, or null when nothing can be stored for this record. */
  row: LakeEventRow | null;
  /** Set when the record goes to the DLQ. */
  deadLetter: DeadLetter | null;
}

export interface RecordPricingDeps {
  codec: UsageEventCodec;
  /** The organization's rates (cached by the caller for the batch; a plain value once loaded). */
  ratesFor(organizationId: string): PricingRates | Promise<PricingRates>;
}

// The lake files rows under org=<id>; ingest only ever writes UUIDs there.
function organizationOf(text: string | null): string | null {
  return text !== null && isUuid(text) ? text.toLowerCase() : null;
}

function recordTime(record: ConsumedRecord): Date {
  const ms = Number(record.timestamp);
  return new Date(Number.isFinite(ms) ? ms : 0);
}

function deadLetter(record: ConsumedRecord, topic: string, partition: number, reason: string, detail: string): DeadLetter {
  return {
    key: record.key,
    value: record.value,
    sourceTopic: topic,
    sourcePartition: partition,
    sourceOffset: record.offset,
    sourceTimestamp: record.timestamp,
    reason,
    detail,
  };
}

export async function priceRecord(
  record: ConsumedRecord,
  topic: string,
  partition: number,
  pricedAt: Date,
  deps: RecordPricingDeps,
): Promise<RecordOutcome> {
  const at: RecordPosition = { partition, offset: record.offset, pricedAt };
  let event: Awaited<ReturnType<typeof deps.codec.decode>>;
  try {
    event = await deps.codec.decode(record.value ?? Buffer.alloc(0));
  } catch (e) {
    if (!(e instanceof UndecodableEventError)) throw e; // registry unreachable: retry, never DLQ
    const org = organizationOf(record.key?.toString('utf8') ?? null);
    const reason = `undecodable record (${e.reason}): ${e.message}; copied to usage-events.dlq`;
    return {
      row: org === null ? null : standInLakeRow('undecodable', org, reason, at, recordTime(record)),
      deadLetter: deadLetter(record, topic, partition, e.reason, e.message),
    };
  }

  // A canonical UUID is what the lake and the control plane expect; anything else is a
  // producer bug that no retry or re-pricing can mend.
  if (organizationOf(event.organization_id) !== event.organization_id) {
    return {
      row: null,
      deadLetter: deadLetter(
        record,
        topic,
        partition,
        'invalid_organization_id',
        `organization_id ${JSON.stringify(event.organization_id)} is not a lowercase UUID`,
      ),
    };
  }

  // Ingest's event-time rule, for records that reached the topic another way: the same refusal in
  // either lake format (one files no such day, the other would store it), before the lake.
  const outOfRange = eventTimesOutOfRange(event);
  if (outOfRange.length > 0) {
    const detail = outOfRange
      .map(
        (f) =>
          `${f} ${(event[f] as Date).toISOString()} is outside [${EARLIEST_EVENT_TIME.toISOString()}, ${LATEST_EVENT_TIME.toISOString()})`,
      )
      .join('; ');
    return {
      row: standInLakeRow('refused', event.organization_id, `${detail}; copied to usage-events.dlq`, at, recordTime(record)),
      deadLetter: deadLetter(record, topic, partition, 'event_time_out_of_range', detail),
    };
  }

  const bad = unstorableFields(event);
  if (bad.length > 0) {
    return { row: failedLakeRow(event, `invalid values: ${bad.join(', ')}`, at, recordTime(record)), deadLetter: null };
  }
  const pending = deps.ratesFor(event.organization_id);
  const rates = pending instanceof Promise ? await pending : pending;
  let cost: ReturnType<typeof priceEvent>;
  try {
    cost = priceEvent(event, rates);
  } catch (e) {
    return { row: failedLakeRow(event, `pricing failed: ${(e as Error).message}`, at, recordTime(record)), deadLetter: null };
  }
  if (!costFits(cost)) {
    return {
      row: failedLakeRow(event, `cost ${cost.total_cost} is not below 10^15, the most one event may cost`, at, recordTime(record)),
      deadLetter: null,
    };
  }
  return { row: toLakeRow(event, cost, at), deadLetter: null };
}

/** Why the lake refused a record, as the partition worker concluded it. */
export interface LakeRefusal {
  reason: string;
  /** The stand-in row was refused too: the record leaves nothing in the lake. */
  standInRefused: boolean;
}

/**
 * A record the lake refused to write, alone, after bounded attempts: the DLQ gets it untouched
 * (reason `lake_write_refused`), the lake a `failed` stand-in for the key's organization.
 */
export function refusedRecord(
  record: ConsumedRecord,
  topic: string,
  partition: number,
  pricedAt: Date,
  refusal: LakeRefusal,
): RecordOutcome {
  const org = organizationOf(record.key?.toString('utf8') ?? null);
  const at: RecordPosition = { partition, offset: record.offset, pricedAt };
  const reason = `the lake refused the record (${refusal.reason}); copied to usage-events.dlq`;
  return {
    row: org === null || refusal.standInRefused ? null : standInLakeRow('refused', org, reason, at, recordTime(record)),
    deadLetter: deadLetter(record, topic, partition, 'lake_write_refused', refusal.reason),
  };
}
