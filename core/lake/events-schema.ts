// The `events` table of the lake: one row per priced event. The column list lives here and only
// here; the writer, compaction, re-pricing and the api's reader all derive their SQL from it.
// Timestamps are TIMESTAMP (no time zone) holding UTC, millisecond precision (Kafka records carry
// timestamp-millis); money is DECIMAL(38,12); event_date is the UTC date of event_timestamp and
// is derived by the writer, never supplied.
import type { UsageEvent } from '../../schemas/usage-event.js';

export type EventStatus = 'completed' | 'pending_rate_card' | 'failed';
export const EVENT_STATUSES: readonly EventStatus[] = ['completed', 'pending_rate_card', 'failed'];

/** How a column is stored and how it crosses the JS boundary. */
export type LakeValueKind =
  | 'string' // VARCHAR ↔ string
  | 'decimal' // DECIMAL(38,12) ↔ decimal string
  | 'bigint' // BIGINT ↔ number (safe integer)
  | 'integer' // INTEGER ↔ number
  | 'double' // DOUBLE ↔ number
  | 'timestamp' // TIMESTAMP (UTC) ↔ Date
  | 'date' // DATE ↔ 'YYYY-MM-DD'
  | 'boolean'; // BOOLEAN ↔ boolean

export interface LakeColumn {
  readonly name: string;
  readonly kind: LakeValueKind;
  readonly nullable: boolean;
}

export const MONEY_SQL_TYPE = 'DECIMAL(38,12)';

export function sqlTypeOf(kind: LakeValueKind): string {
  switch (kind) {
    case 'string':
      return 'VARCHAR';
    case 'decimal':
      return MONEY_SQL_TYPE;
    case 'bigint':
      return 'BIGINT';
    case 'integer':
      return 'INTEGER';
    case 'double':
      return 'DOUBLE';
    case 'timestamp':
      return 'TIMESTAMP';
    case 'date':
      return 'DATE';
    case 'boolean':
      return 'BOOLEAN';
  }
}

function col<N extends string>(name: N, kind: LakeValueKind, nullable = true) {
  return { name, kind, nullable } as const;
}

/** Column order of every events Parquet file. */
export const EVENTS_COLUMNS = [
  col('event_id', 'string', false),
  col('organization_id', 'string', false),
  col('idempotency_key', 'string', false),
  col('api_key_id', 'string', false),
  col('owner_user_id', 'string'),
  col('subscription_id', 'string'),
  col('received_at', 'timestamp', false),
  col('event_timestamp', 'timestamp', false),
  col('event_date', 'date', false),
  col('user_id', 'string'),
  col('end_user_id', 'string'),
  col('model', 'string'),
  col('provider', 'string'),
  col('metric', 'string'),
  col('unit', 'string'),
  col('quantity', 'double'),
  col('input_tokens', 'bigint'),
  col('output_tokens', 'bigint'),
  col('cache_creation_input_tokens', 'bigint'),
  col('cache_read_input_tokens', 'bigint'),
  col('reasoning_tokens', 'bigint'),
  col('input_cost', 'decimal'),
  col('output_cost', 'decimal'),
  col('cache_creation_cost', 'decimal'),
  col('cache_read_cost', 'decimal'),
  col('reasoning_cost', 'decimal'),
  col('unit_cost', 'decimal'),
  col('total_cost', 'decimal', false),
  col('cost_override', 'decimal'),
  col('status', 'string', false),
  col('status_reason', 'string'),
  col('rate_card_slug', 'string'),
  col('session_id', 'string'),
  col('span_id', 'string'),
  col('parent_span_id', 'string'),
  col('span_name', 'string'),
  col('span_kind', 'string'),
  col('started_at', 'timestamp'),
  col('timestamp_provided', 'boolean', false),
  col('agent_id', 'string'),
  col('workflow_id', 'string'),
  col('feature', 'string'),
  col('metadata', 'string', false),
  col('flag_reason', 'string'),
  col('kafka_partition', 'integer', false),
  col('kafka_offset', 'bigint', false),
  col('priced_at', 'timestamp', false),
  // Added with service tiers, context tiers and one-hour cache writes (issue 15); files written
  // before read them as NULL (union_by_name).
  col('service_tier', 'string'),
  col('cache_creation_1h_input_tokens', 'bigint'),
  col('cache_creation_1h_cost', 'decimal'),
  col('rate_card_id', 'string'),
  col('rate_card_effective_from', 'timestamp'),
  col('rate_card_service_tier', 'string'),
  col('context_tier_above_prompt_tokens', 'bigint'),
  col('pricing_note', 'string'),
  // Added with time-of-day windows (issue 26): the window's name when one priced the event.
  col('time_of_day_window', 'string'),
] as const;

type EventsColumnName = (typeof EVENTS_COLUMNS)[number]['name'];

/** Columns the writer fills from the row (everything but the derived event_date). */
export const EVENTS_INPUT_COLUMNS: readonly LakeColumn[] = EVENTS_COLUMNS.filter((c) => c.name !== 'event_date');

/** An event's cost in USD decimal strings: per token class (null when the class was not reported or the event is unpriced), per unit for metric events, and the total. */
export interface EventCosts {
  input_cost: string | null;
  output_cost: string | null;
  cache_creation_cost: string | null;
  cache_read_cost: string | null;
  reasoning_cost: string | null;
  /** The part of cache_creation_cost from one-hour cache writes (null when the event sent none). */
  cache_creation_1h_cost: string | null;
  /** Metric events only: quantity × cost_per_unit ("0" under cost_override). */
  unit_cost: string | null;
  /** "0" while pending_rate_card or failed. */
  total_cost: string;
}

/** Only the cost fields of a priced cost (which carries more, such as its status). */
export function eventCostsOf(c: EventCosts): EventCosts {
  return {
    input_cost: c.input_cost,
    output_cost: c.output_cost,
    cache_creation_cost: c.cache_creation_cost,
    cache_read_cost: c.cache_read_cost,
    reasoning_cost: c.reasoning_cost,
    cache_creation_1h_cost: c.cache_creation_1h_cost,
    unit_cost: c.unit_cost,
    total_cost: c.total_cost,
  };
}

/** Which price was used: the card (id, effective date, service tier) and context tier or time window that priced an event. */
export interface PricingProvenance {
  rate_card_id: string | null;
  rate_card_effective_from: Date | null;
  rate_card_service_tier: string | null;
  /** The context tier's threshold when the prompt was above one; null at the card's base rates. */
  context_tier_above_prompt_tokens: number | null;
  /** The time-of-day window (its name) whose rates priced the event; null at the card's own rates. */
  time_of_day_window: string | null;
  /** Set when the event was priced otherwise than it asked (a service tier without its own card). */
  pricing_note: string | null;
}

export const NO_PROVENANCE: Readonly<PricingProvenance> = {
  rate_card_id: null,
  rate_card_effective_from: null,
  rate_card_service_tier: null,
  context_tier_above_prompt_tokens: null,
  time_of_day_window: null,
  pricing_note: null,
};

export function provenanceOf(p: PricingProvenance): PricingProvenance {
  return {
    rate_card_id: p.rate_card_id,
    rate_card_effective_from: p.rate_card_effective_from,
    rate_card_service_tier: p.rate_card_service_tier,
    context_tier_above_prompt_tokens: p.context_tier_above_prompt_tokens,
    time_of_day_window: p.time_of_day_window,
    pricing_note: p.pricing_note,
  };
}

/** The costs of an event that was not priced (waiting for a rate card, or failed): nothing, zero in total. */
export const UNPRICED_COSTS: Readonly<EventCosts> = {
  input_cost: null,
  output_cost: null,
  cache_creation_cost: null,
  cache_read_cost: null,
  reasoning_cost: null,
  cache_creation_1h_cost: null,
  unit_cost: null,
  total_cost: '0',
};

/**
 * One priced event as the processor hands it to the lake writer (and as re-pricing sees it): the
 * consumed record (its `timestamp` stored as `event_timestamp`), its costs, how it was priced and
 * where it sat in Kafka. Costs are decimal strings (at most 12 fractional digits; more are
 * rounded half-up by the DECIMAL cast); timestamps are Date in UTC; token counts are safe integers.
 */
export interface LakeEventRow
  extends Omit<UsageEvent, 'timestamp' | 'service_tier' | 'cache_creation_1h_input_tokens'>,
    EventCosts,
    PricingProvenance {
  service_tier: string | null;
  cache_creation_1h_input_tokens: number | null;
  event_timestamp: Date;
  status: EventStatus;
  /** Why the event is pending_rate_card or failed (null when completed). */
  status_reason: string | null;
  rate_card_slug: string | null;
  kafka_partition: number;
  kafka_offset: number;
  priced_at: Date;
}

// Compile-time guard: the row type and the column list name exactly the same fields.
type MissingFromRow = Exclude<Exclude<EventsColumnName, 'event_date'>, keyof LakeEventRow>;
type MissingFromColumns = Exclude<keyof LakeEventRow, EventsColumnName>;
const schemaInSync: [MissingFromRow, MissingFromColumns] extends [never, never] ? true : never = true;
void schemaInSync;
