// TypeScript view of schemas/usage-event.avsc, the value of every usage-events record.
// Timestamps are Date (avsc's timestamp-millis logical type decodes to Date).
import fs from 'node:fs';
import { fromRoot } from '../core/paths.js';

export const USAGE_EVENT_SUBJECT = 'usage-events-value';

export interface UsageEvent {
  event_id: string;
  organization_id: string;
  idempotency_key: string;
  api_key_id: string;
  owner_user_id: string | null;
  subscription_id: string | null;
  received_at: Date;
  timestamp: Date;
  timestamp_provided: boolean;
  user_id: string | null;
  end_user_id: string | null;
  model: string | null;
  provider: string | null;
  metric: string | null;
  unit: string | null;
  quantity: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
  reasoning_tokens: number | null;
  cost_override: string | null;
  session_id: string | null;
  span_id: string | null;
  parent_span_id: string | null;
  span_name: string | null;
  span_kind: string | null;
  started_at: Date | null;
  agent_id: string | null;
  workflow_id: string | null;
  feature: string | null;
  /** JSON text of the metadata object. */
  metadata: string;
  flag_reason: string | null;
  /** Added in schema version 2 (optional here so producers of version 1 still type-check); null = standard. */
  service_tier?: string | null;
  /** The part of cache_creation_input_tokens written with a one-hour TTL (schema version 2). */
  cache_creation_1h_input_tokens?: number | null;
}

/** The token-count fields of an event: disjoint classes, each priced at its own rate. */
export const TOKEN_FIELDS = [
  'input_tokens',
  'output_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'reasoning_tokens',
  'cache_creation_1h_input_tokens',
] as const;

/**
 * Event times (timestamp, started_at) are accepted in [EARLIEST_EVENT_TIME, LATEST_EVENT_TIME)
 * UTC: outside it the lake cannot file an event (year 0 has no date partition), so no stored
 * event lies outside it.
 */
export const EARLIEST_EVENT_TIME = new Date('2000-01-01T00:00:00Z');
export const LATEST_EVENT_TIME = new Date('2100-01-01T00:00:00Z');

/** Whether an event time lies in [EARLIEST_EVENT_TIME, LATEST_EVENT_TIME): ingest's rule, which the processor applies again. */
export function eventTimeInRange(d: Date): boolean {
  return d >= EARLIEST_EVENT_TIME && d < LATEST_EVENT_TIME;
}

export function usageEventSchemaText(): string {
  return fs.readFileSync(fromRoot('schemas', 'usage-event.avsc'), 'utf8');
}
