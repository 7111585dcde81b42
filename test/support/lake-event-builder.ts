// Builds LakeEventRow values for lake tests and benchmarks: each caller states only the fields
// that matter to it; the rest are valid, boring defaults.
import { eventIdFor, endUserIdFor } from '../../core/ids.js';
import { NO_PROVENANCE, type LakeEventRow } from '../../core/lake/events-schema.js';
import { Big } from '../../core/money.js';

export const ORG_A = '0b9a5c1e-6f3d-4a8e-9c2b-1d7e5f4a3b21';
export const ORG_B = '7c4e2a9d-1b3f-4e6a-8d5c-9f2e1a7b6c43';

export function lakeEvent(fields: Partial<LakeEventRow> & Pick<LakeEventRow, 'kafka_offset'>): LakeEventRow {
  const organization_id = fields.organization_id ?? ORG_A;
  const idempotency_key = fields.idempotency_key ?? `key-${fields.kafka_partition ?? 0}-${fields.kafka_offset}`;
  const user_id = fields.user_id === undefined ? 'user-1' : fields.user_id;
  const event_timestamp = fields.event_timestamp ?? new Date('2025-03-10T12:00:00.000Z');
  return {
    event_id: eventIdFor(organization_id, idempotency_key),
    organization_id,
    idempotency_key,
    api_key_id: 'key_1',
    owner_user_id: 'owner-1',
    subscription_id: null,
    received_at: new Date(event_timestamp.getTime() + 1000),
    event_timestamp,
    user_id,
    end_user_id: user_id === null ? null : endUserIdFor(organization_id, user_id),
    model: 'gpt-4o',
    provider: 'openai',
    metric: null,
    unit: null,
    quantity: null,
    input_tokens: 100,
    output_tokens: 50,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    reasoning_tokens: null,
    input_cost: '0.00025',
    output_cost: '0.0005',
    cache_creation_cost: null,
    cache_read_cost: null,
    reasoning_cost: null,
    unit_cost: null,
    total_cost: '0.00075',
    cost_override: null,
    status: 'completed',
    status_reason: null,
    rate_card_slug: 'gpt-4o',
    session_id: null,
    span_id: null,
    parent_span_id: null,
    span_name: null,
    span_kind: null,
    started_at: null,
    timestamp_provided: true,
    agent_id: null,
    workflow_id: null,
    feature: null,
    metadata: '{}',
    flag_reason: null,
    kafka_partition: 0,
    service_tier: null,
    cache_creation_1h_input_tokens: null,
    cache_creation_1h_cost: null,
    ...NO_PROVENANCE,
    priced_at: new Date(event_timestamp.getTime() + 2000),
    ...fields,
  };
}

/**
 * The event at `offset` of a deterministic stream (same offset → same event, same event_id):
 * two organizations, three days, money with all 12 fractional digits in use.
 */
export function numberedEvent(offset: number, partition = 0): LakeEventRow {
  const day = offset % 3;
  const event_timestamp = new Date(Date.UTC(2025, 2, 10 + day, offset % 24, offset % 60));
  const cents = String((offset * 7_919_113) % 1_000_000_000_000).padStart(12, '0');
  return lakeEvent({
    kafka_partition: partition,
    kafka_offset: offset,
    organization_id: offset % 4 === 0 ? ORG_B : ORG_A,
    idempotency_key: `n-${offset}`,
    event_timestamp,
    received_at: new Date(event_timestamp.getTime() + 500),
    user_id: `user-${offset % 5}`,
    input_cost: `0.${cents}`,
    output_cost: '0.000000000001',
    total_cost: new Big(`0.${cents}`).plus('0.000000000001').toFixed(12),
  });
}
