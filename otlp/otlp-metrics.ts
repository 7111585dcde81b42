// Prometheus counters of the OTLP receiver, on the process registry served at /metrics.
// accepted = mapped + structural; every span received is either accepted or rejected.
import { promClient, registry } from '../core/metrics.js';

export const otlpSpansAccepted = new promClient.Counter({
  name: 'marginal_otlp_spans_accepted_total',
  help: 'OTLP spans taken in: mapped to a usage event or stored as a structural span',
  registers: [registry],
});

export const otlpSpansMapped = new promClient.Counter({
  name: 'marginal_otlp_spans_mapped_total',
  help: 'OTLP spans with model usage, queued as usage events (re-sent spans included; ingest counts them as duplicate)',
  registers: [registry],
});

export const otlpSpansStructural = new promClient.Counter({
  name: 'marginal_otlp_spans_structural_total',
  help: 'OTLP spans without model usage, stored for the session call tree',
  registers: [registry],
});

export const otlpSpansRejected = new promClient.Counter({
  name: 'marginal_otlp_spans_rejected_total',
  help: 'OTLP spans reported in partial_success: mapping (no model, bad counts), validation, or the ingest error code',
  labelNames: ['reason'] as const,
  registers: [registry],
});

export const otlpStructuralSpansExpired = new promClient.Counter({
  name: 'marginal_otlp_structural_spans_expired_total',
  help: 'Structural spans deleted by retention (OTLP_STRUCTURAL_SPANS_RETENTION_DAYS)',
  registers: [registry],
});
