// Prometheus metrics of the ingest path (docs/design.md: accepted / flagged / rejected, publish latency),
// registered on the process registry served at /metrics.
import { promClient, registry } from '../core/metrics.js';

export const ingestEvents = new promClient.Counter({
  name: 'marginal_ingest_events_total',
  help: 'Ingested events by outcome: accepted, flagged, duplicate, or the rejection code',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const publishDuration = new promClient.Histogram({
  name: 'marginal_ingest_publish_duration_seconds',
  help: 'Kafka publish latency of one group commit (acks=all)',
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30],
  registers: [registry],
});

export const groupSize = new promClient.Histogram({
  name: 'marginal_ingest_group_events',
  help: 'Events per group commit (one control-plane transaction and one Kafka send)',
  buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000],
  registers: [registry],
});

export const sweptEvents = new promClient.Counter({
  name: 'marginal_ingest_swept_events_total',
  help: 'Stranded reservations re-published by the sweeper',
  registers: [registry],
});
