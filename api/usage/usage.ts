// Rules of /usage: how a stored event reads as a usage event item (type, metric name, quantity,
// metadata with mapped keys). Pure. (Paging is core/http/paging.ts, shared by every paged endpoint.)
import type { UsageEventItem } from './usage.types.js';

const EVENT_TYPE = 'ai.inference';
export const TOKENS_METRIC = 'tokens';
export const MAX_EVENTS_RANGE_DAYS = 90;

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
