// Rules of /usage: how a stored event reads as a usage event item (type, metric name, quantity,
// metadata with mapped keys) and the page parameters. Pure.
import { ValidationError } from '../../core/errors.js';
import type { UsageEventItem } from './usage.types.js';

const EVENT_TYPE = 'ai.inference';
export const TOKENS_METRIC = 'tokens';
export const MAX_EVENTS_RANGE_DAYS = 90;
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/** The stored columns an item is made of. */
export interface StoredUsageEvent {
  event_id: string;
  metric: string | null;
  quantity: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  event_timestamp: Date;
  metadata: string;
  provider: string | null;
  feature: string | null;
  agent_id: string | null;
  workflow_id: string | null;
  unit: string | null;
}

export function metricNameOf(metric: string | null): string {
  return metric === null || metric === '' ? TOKENS_METRIC : metric.toLowerCase();
}

/** Metadata as a string map: strings as sent, other JSON values as JSON text, nulls left out. */
export function metadataMap(metadataJson: string, mapped: Record<string, string | null>): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(metadataJson);
  } catch {
    parsed = {};
  }
  const out: Record<string, string> = {};
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
      if (v === null || v === undefined) continue;
      out[k] = typeof v === 'string' ? v : JSON.stringify(v);
    }
  }
  // The typed fields are what the event was attributed to, so they win over supplied keys.
  for (const [k, v] of Object.entries(mapped)) if (v !== null) out[k] = v;
  return out;
}

export function usageEventItem(e: StoredUsageEvent): UsageEventItem {
  const isMetric = e.metric !== null && e.metric !== '';
  const metadata = metadataMap(e.metadata, {
    provider: e.provider,
    feature: e.feature,
    agent_id: e.agent_id,
    workflow_id: e.workflow_id,
    units: e.unit,
  });
  return {
    id: e.event_id,
    event_type: EVENT_TYPE,
    metric_name: metricNameOf(e.metric),
    quantity: isMetric ? (e.quantity ?? 0) : (e.input_tokens ?? 0) + (e.output_tokens ?? 0),
    event_timestamp: e.event_timestamp.toISOString(),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

/** The spec's int32 offset: also what DuckDB's OFFSET and a JSON number echo back exactly. */
const MAX_OFFSET = 2_147_483_647;

/** The one paging rule of every paged endpoint: limit integer 1–1000 (default 100); offset integer 0–2^31-1 (default 0). */
export function pageParams(limit: number | undefined, offset: number | undefined): { limit: number; offset: number } {
  const l = limit ?? DEFAULT_LIMIT;
  const o = offset ?? 0;
  if (!Number.isInteger(l) || l < 1 || l > MAX_LIMIT) throw new ValidationError('limit', `must be an integer from 1 to ${MAX_LIMIT}`);
  if (!Number.isInteger(o) || o < 0 || o > MAX_OFFSET) throw new ValidationError('offset', `must be an integer from 0 to ${MAX_OFFSET}`);
  return { limit: l, offset: o };
}
