// Builds UsageEvent values (the usage-events record) for tests and benchmarks: every nullable
// field is null unless the caller states it, so each caller names only the fields that matter.
// Unless given, event_id follows the organization and idempotency key (as ingest derives it) and
// received_at is the event timestamp.
import { eventIdFor } from '../../core/ids.js';
import type { UsageEvent } from '../../schemas/usage-event.js';

const DEFAULT_EVENT_ORG = '3f1c9a52-8e47-4d0b-9a6e-2c5d7b1e4f80';
const DEFAULT_EVENT_TIME = new Date('2025-06-02T10:00:00.000Z');

export function usageEvent(overrides: Partial<UsageEvent> = {}): UsageEvent {
  const organization_id = overrides.organization_id ?? DEFAULT_EVENT_ORG;
  const idempotency_key = overrides.idempotency_key ?? 'req-1';
  const timestamp = overrides.timestamp ?? DEFAULT_EVENT_TIME;
  return {
    event_id: overrides.event_id ?? eventIdFor(organization_id, idempotency_key),
    organization_id,
    idempotency_key,
    api_key_id: 'key-test',
    owner_user_id: null,
    subscription_id: null,
    received_at: timestamp,
    timestamp,
    timestamp_provided: true,
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
    cost_override: null,
    session_id: null,
    span_id: null,
    parent_span_id: null,
    span_name: null,
    span_kind: null,
    started_at: null,
    agent_id: null,
    workflow_id: null,
    feature: null,
    metadata: '{}',
    flag_reason: null,
    service_tier: null,
    cache_creation_1h_input_tokens: null,
    ...overrides,
  };
}
