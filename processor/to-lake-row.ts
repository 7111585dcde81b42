// Pure mapping from what the processor consumed to what the lake stores: a decoded UsageEvent and
// its PricedCost (or the reason it could not be priced, or the fact that it could not be decoded)
// plus its Kafka position become one LakeEventRow. Invariant: every row built here is storable —
// the lake's appender and DECIMAL(38,12) casts accept it — so one bad event can never wedge a
// partition's flush; a value the lake cannot hold turns the event into `failed` with a reason.
import { eventIdFor } from '../core/ids.js';
import {
  eventCostsOf,
  NO_PROVENANCE,
  provenanceOf,
  UNPRICED_COSTS,
  type EventCosts,
  type EventStatus,
  type LakeEventRow,
  type PricingProvenance,
} from '../core/lake/events-schema.js';
import { integerDigits, isDecimalString, MAX_EVENT_COST_DIGITS } from '../core/money.js';
import type { PriceableEvent, PricedCost } from '../pricing/price-event.js';
import { eventTimeInRange, TOKEN_FIELDS, type UsageEvent } from '../schemas/usage-event.js';

/** Where a record sat in Kafka and when the processor priced it. */
export interface RecordPosition {
  partition: number;
  offset: number;
  pricedAt: Date;
}

const COST_FIELDS = [
  'input_cost',
  'output_cost',
  'cache_creation_cost',
  'cache_creation_1h_cost',
  'cache_read_cost',
  'reasoning_cost',
  'unit_cost',
] as const;

/** Whether a decimal string is a cost the lake takes: below 10^15 (core/money.ts says why). */
export function fitsMoneyColumn(value: string): boolean {
  return isDecimalString(value) && integerDigits(value) <= MAX_EVENT_COST_DIGITS;
}

function validDate(d: unknown): d is Date {
  return d instanceof Date && Number.isFinite(d.getTime());
}

/** What in a decoded event the lake cannot hold, or null when everything fits. */
export function unstorableFields(event: UsageEvent): string[] {
  const bad: string[] = [];
  if (!validDate(event.received_at)) bad.push('received_at');
  if (!validDate(event.timestamp)) bad.push('timestamp');
  if (event.started_at !== null && !validDate(event.started_at)) bad.push('started_at');
  for (const f of TOKEN_FIELDS) {
    const v = event[f] ?? null; // fields added in a later schema version may be absent
    if (v !== null && !(Number.isSafeInteger(v) && v >= 0)) bad.push(f);
  }
  if (event.quantity !== null && !Number.isFinite(event.quantity)) bad.push('quantity');
  if (event.cost_override !== null && !fitsMoneyColumn(event.cost_override)) bad.push('cost_override');
  return bad;
}

/**
 * The event times (timestamp, started_at) outside ingest's range [EARLIEST_EVENT_TIME,
 * LATEST_EVENT_TIME), for a record that reached the topic another way. The processor refuses such
 * an event before either lake sees it: the manifest lake cannot file year 0 (DuckDB names its day
 * `0001-01-01 (BC)`) and refused the write, while DuckLake stored it as a year-0000 row that no
 * window reads. Dates that are not dates at all are unstorableFields' (a `failed` row).
 */
export function eventTimesOutOfRange(event: UsageEvent): Array<'timestamp' | 'started_at'> {
  const out: Array<'timestamp' | 'started_at'> = [];
  const outside = (d: Date) => validDate(d) && !eventTimeInRange(d);
  if (outside(event.timestamp)) out.push('timestamp');
  if (event.started_at !== null && outside(event.started_at)) out.push('started_at');
  return out;
}

/** The cost columns of a row as pricing (or failure) decided them; a PricedCost is one. */
type RowCosts = EventCosts & PricingProvenance & Pick<LakeEventRow, 'rate_card_slug'>;

// One object literal with every column, read from the event and the costs as they are: building
// rows by spreading a partial row into another measured about 20k rows/s (V8 falls back to slow
// objects), and even an intermediate costs object spread into this literal cost ~8 µs a row
// (0.03-0.09 µs without it, 2026-11-24).
function rowOf(event: UsageEvent, c: RowCosts, status: EventStatus, statusReason: string | null, at: RecordPosition): LakeEventRow {
  return {
    event_id: event.event_id,
    organization_id: event.organization_id,
    idempotency_key: event.idempotency_key,
    api_key_id: event.api_key_id,
    owner_user_id: event.owner_user_id,
    subscription_id: event.subscription_id,
    received_at: event.received_at,
    event_timestamp: event.timestamp,
    user_id: event.user_id,
    end_user_id: event.end_user_id,
    model: event.model,
    provider: event.provider,
    metric: event.metric,
    unit: event.unit,
    quantity: event.quantity,
    input_tokens: event.input_tokens,
    output_tokens: event.output_tokens,
    cache_creation_input_tokens: event.cache_creation_input_tokens,
    cache_read_input_tokens: event.cache_read_input_tokens,
    reasoning_tokens: event.reasoning_tokens,
    input_cost: c.input_cost,
    output_cost: c.output_cost,
    cache_creation_cost: c.cache_creation_cost,
    cache_read_cost: c.cache_read_cost,
    reasoning_cost: c.reasoning_cost,
    unit_cost: c.unit_cost,
    total_cost: c.total_cost,
    cost_override: event.cost_override,
    status,
    status_reason: statusReason,
    rate_card_slug: c.rate_card_slug,
    session_id: event.session_id,
    span_id: event.span_id,
    parent_span_id: event.parent_span_id,
    span_name: event.span_name,
    span_kind: event.span_kind,
    started_at: event.started_at,
    timestamp_provided: event.timestamp_provided,
    agent_id: event.agent_id,
    workflow_id: event.workflow_id,
    feature: event.feature,
    metadata: event.metadata,
    flag_reason: event.flag_reason,
    kafka_partition: at.partition,
    kafka_offset: at.offset,
    priced_at: at.pricedAt,
    service_tier: event.service_tier ?? null,
    cache_creation_1h_input_tokens: event.cache_creation_1h_input_tokens ?? null,
    cache_creation_1h_cost: c.cache_creation_1h_cost,
    rate_card_id: c.rate_card_id,
    rate_card_effective_from: c.rate_card_effective_from,
    rate_card_service_tier: c.rate_card_service_tier,
    context_tier_above_prompt_tokens: c.context_tier_above_prompt_tokens,
    time_of_day_window: c.time_of_day_window,
    pricing_note: c.pricing_note,
  };
}

/** The lake row of a priced event. The caller has checked unstorableFields(event) is empty. */
export function toLakeRow(event: UsageEvent, cost: PricedCost, at: RecordPosition): LakeEventRow {
  return rowOf(event, cost, cost.status, cost.status === 'completed' ? null : cost.pending_reason, at);
}

/** The costs of a `failed` row: nothing priced, no card. */
const FAILED_COSTS: Readonly<RowCosts> = { ...UNPRICED_COSTS, rate_card_slug: null, ...NO_PROVENANCE };

/**
 * Whether every cost of a priced result fits the lake's money column. Pricing writes its costs
 * with formatMoney (always well-formed), so only their length is checked, per row on the hot path.
 */
export function costFits(cost: PricedCost): boolean {
  if (integerDigits(cost.total_cost) > MAX_EVENT_COST_DIGITS) return false;
  for (const f of COST_FIELDS) {
    const v = cost[f];
    if (v !== null && integerDigits(v) > MAX_EVENT_COST_DIGITS) return false;
  }
  return true;
}

/**
 * The row of an event that decoded but cannot be priced or stored as sent (a bug or invalid data):
 * status `failed`, zero cost, `reason` kept, and every field the lake cannot hold set to null
 * (timestamps the lake needs fall back to the Kafka record's timestamp).
 */
export function failedLakeRow(event: UsageEvent, reason: string, at: RecordPosition, recordTimestamp: Date): LakeEventRow {
  const bad = new Set(unstorableFields(event));
  const clean = { ...event };
  if (bad.has('received_at')) clean.received_at = recordTimestamp;
  if (bad.has('timestamp')) clean.timestamp = clean.received_at;
  if (bad.has('started_at')) clean.started_at = null;
  for (const f of TOKEN_FIELDS) if (bad.has(f)) clean[f] = null;
  if (bad.has('quantity')) clean.quantity = null;
  if (bad.has('cost_override')) clean.cost_override = null;
  return rowOf(clean, FAILED_COSTS, 'failed', reason, at);
}

/**
 * The row standing for a record that goes to the DLQ instead of the lake (`undecodable` bytes, or
 * a record `refused`: by the lake on writing, or by the processor for its event time), so the organization named by the record key sees it in
 * status_counts.failed. Its event_id is derived from the Kafka position: the real one is inside
 * bytes that cannot be read, or belongs to a row that cannot be stored.
 */
export function standInLakeRow(
  kind: 'undecodable' | 'refused',
  organizationId: string,
  reason: string,
  at: RecordPosition,
  recordTimestamp: Date,
): LakeEventRow {
  const idempotencyKey = `${kind}:${at.partition}:${at.offset}`;
  return {
    event_id: eventIdFor(organizationId, idempotencyKey),
    organization_id: organizationId,
    idempotency_key: idempotencyKey,
    api_key_id: '',
    owner_user_id: null,
    subscription_id: null,
    received_at: recordTimestamp,
    event_timestamp: recordTimestamp,
    user_id: null,
    end_user_id: null,
    model: null,
    provider: null,
    metric: null,
    unit: null,
    quantity: null,
    input_tokens: null,
    output_tokens: null,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    reasoning_tokens: null,
    ...UNPRICED_COSTS,
    cost_override: null,
    status: 'failed',
    status_reason: reason,
    rate_card_slug: null,
    session_id: null,
    span_id: null,
    parent_span_id: null,
    span_name: null,
    span_kind: null,
    started_at: null,
    timestamp_provided: false,
    agent_id: null,
    workflow_id: null,
    feature: null,
    metadata: '{}',
    flag_reason: null,
    kafka_partition: at.partition,
    kafka_offset: at.offset,
    priced_at: at.pricedAt,
    service_tier: null,
    cache_creation_1h_input_tokens: null,
    ...NO_PROVENANCE,
  };
}

/** What pricing needs, read back from a stored row (re-pricing). */
export function priceableFromRow(row: LakeEventRow): PriceableEvent {
  return {
    timestamp: row.event_timestamp,
    model: row.model,
    provider: row.provider,
    metric: row.metric,
    unit: row.unit,
    quantity: row.quantity,
    cost_override: row.cost_override,
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    cache_creation_input_tokens: row.cache_creation_input_tokens,
    cache_read_input_tokens: row.cache_read_input_tokens,
    reasoning_tokens: row.reasoning_tokens,
    cache_creation_1h_input_tokens: row.cache_creation_1h_input_tokens,
    service_tier: row.service_tier,
  };
}

/**
 * A stored row re-priced: the replacement when the new cost completes it, else null (the row stays
 * as it is). Only the cost columns, status and priced_at change; identity and offsets never do.
 */
export function repricedLakeRow(row: LakeEventRow, cost: PricedCost, pricedAt: Date): LakeEventRow | null {
  if (cost.status !== 'completed' || !costFits(cost)) return null;
  return rowWithCost(row, cost, pricedAt);
}

/** A stored row with a new pricing result, whatever its status (history re-pricing). */
export function rowWithCost(row: LakeEventRow, cost: PricedCost, pricedAt: Date): LakeEventRow {
  const status: EventStatus = cost.status;
  return {
    ...row,
    ...eventCostsOf(cost),
    status,
    status_reason: status === 'completed' ? null : cost.pending_reason,
    rate_card_slug: cost.rate_card_slug,
    ...provenanceOf(cost),
    priced_at: pricedAt,
  };
}
