// The OTLP export service: decoded spans of one export request in, what was rejected (and why)
// out. Usage spans take the path of POST /v1/usage-events: ingest's validateEvent, then
// IngestService.ingest (credits, idempotency ledger, group commit, Kafka); structural spans go
// to the control plane (structural-spans.store.ts) and spend nothing. A 503 of any usage event
// (queue unreachable) makes the whole export answer 503: the exporter retries it, and every span
// is idempotent (ledger key from trace + span id; structural rows keyed the same way).
import type { AuthContext } from '../core/auth/scopes.js';
import type { Queryable } from '../core/control/db.js';
import { AppError, ValidationError } from '../core/errors.js';
import type { IngestService } from '../ingest/ingest.js';
import { validateEvent, type DimensionRule, type ValidatedEvent } from '../ingest/validate-event.js';
import type { OtlpSpan } from './otlp-codec.js';
import { otlpSpansAccepted, otlpSpansMapped, otlpSpansRejected, otlpSpansStructural } from './otlp-metrics.js';
import { mapSpan, type MetadataMapping, type StructuralSpan } from './span-mapping.js';
import { storeStructuralSpans } from './structural-spans.store.js';
import { metadataMappingOf } from './attribute-mappings.store.js';

export interface RejectedSpan {
  spanId: string;
  reason: string;
}

/** At most this many reasons are spelled out in partial_success.error_message. */
const REASONS_IN_MESSAGE = 5;

interface ClassifiedSpans {
  structural: StructuralSpan[];
  /** Valid usage events, with the span each came from at the same index. */
  events: ValidatedEvent[];
  eventSpanIds: string[];
  rejected: RejectedSpan[];
}

/** Plan: maps every span and validates each usage event as POST /v1/usage-events would. */
function classifySpans(spans: readonly OtlpSpan[], mapping: MetadataMapping, dimensions: DimensionRule[]): ClassifiedSpans {
  const out: ClassifiedSpans = { structural: [], events: [], eventSpanIds: [], rejected: [] };
  for (const span of spans) {
    const mapped = mapSpan(span, mapping);
    if (mapped.type === 'structural') out.structural.push(mapped.span);
    else if (mapped.type === 'rejected') reject(out.rejected, mapped.spanId, mapped.reason, 'mapping');
    else {
      try {
        out.events.push(validateEvent(mapped.event, dimensions));
        out.eventSpanIds.push(mapped.spanId);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        reject(out.rejected, mapped.spanId, err.message, 'VALIDATION_ERROR');
      }
    }
  }
  return out;
}

/** Takes the spans of one export; returns the rejected ones (empty when all were accepted). */
export async function exportSpans(
  deps: { db: Queryable; ingest: IngestService },
  auth: AuthContext,
  spans: readonly OtlpSpan[],
  receivedAt: Date,
): Promise<RejectedSpan[]> {
  const [dimensions, mapping] = await Promise.all([
    deps.ingest.dimensionsFor(auth.organizationId),
    metadataMappingOf(deps.db, auth.organizationId),
  ]);
  const { structural, events, eventSpanIds, rejected } = classifySpans(spans, mapping, dimensions);
  // Write: structural rows and usage events are independent, so both go at once.
  const [, outcomes] = await Promise.all([
    storeStructuralSpans(deps.db, auth.organizationId, structural),
    events.length > 0 ? deps.ingest.ingest(auth, events, receivedAt) : Promise.resolve([]),
  ]);
  otlpSpansStructural.inc(structural.length);
  otlpSpansAccepted.inc(structural.length);
  const unavailable = outcomes.find((o): o is Extract<typeof o, { ok: false }> => !o.ok && o.error.status === 503);
  if (unavailable) throw unavailable.error;
  let mapped = 0;
  outcomes.forEach((o, i) => {
    if (o.ok) mapped++;
    else reject(rejected, eventSpanIds[i]!, o.error.message, o.error.code);
  });
  otlpSpansMapped.inc(mapped);
  otlpSpansAccepted.inc(mapped);
  return rejected;
}

function reject(into: RejectedSpan[], spanId: string, reason: string, label: string): void {
  into.push({ spanId, reason });
  otlpSpansRejected.inc({ reason: label });
}

/** partial_success.error_message: how many, and the first few spans with their reasons. */
export function rejectionMessage(rejected: readonly RejectedSpan[], total: number): string {
  const shown = rejected.slice(0, REASONS_IN_MESSAGE).map((r) => `span ${r.spanId || '(no id)'}: ${r.reason}`);
  const more = rejected.length > REASONS_IN_MESSAGE ? `; and ${rejected.length - REASONS_IN_MESSAGE} more` : '';
  return `${rejected.length} of ${total} spans rejected: ${shown.join('; ')}${more}`;
}

/** A whole-request fault of the OTLP receiver that is not an AppError of its own. */
export class OtlpPayloadError extends AppError {
  constructor(message: string) {
    super(400, 'VALIDATION_ERROR', message, { field: 'body' });
  }
}
