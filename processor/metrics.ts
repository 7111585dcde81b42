// The processor's Prometheus series, on the process registry that /metrics serves.
import { promClient, registry } from '../core/metrics.js';

export const consumerLag = new promClient.Gauge({
  name: 'marginal_processor_consumer_lag',
  help: 'Records in the partition not yet durable in the lake (high watermark minus manifest next offset)',
  labelNames: ['partition'] as const,
  registers: [registry],
});

export const assignedPartitions = new promClient.Gauge({
  name: 'marginal_processor_assigned_partitions',
  help: 'usage-events partitions this processor owns',
  registers: [registry],
});

export const flushDuration = new promClient.Histogram({
  name: 'marginal_processor_flush_duration_seconds',
  help: 'Time to write one batch to the lake (files, rollups, manifest)',
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const flushedRows = new promClient.Counter({
  name: 'marginal_processor_flushed_rows_total',
  help: 'Rows made durable in the lake',
  registers: [registry],
});

export const duplicateRows = new promClient.Counter({
  name: 'marginal_processor_duplicate_rows_total',
  help: 'Rows dropped by the lake because their event_id was already written',
  registers: [registry],
});

export const pricedEvents = new promClient.Counter({
  name: 'marginal_processor_events_total',
  help: 'Records consumed, by the status they were stored with',
  labelNames: ['status'] as const,
  registers: [registry],
});

export const deadLetters = new promClient.Counter({
  name: 'marginal_processor_dead_letters_total',
  help: 'Records sent to usage-events.dlq, by reason',
  labelNames: ['reason'] as const,
  registers: [registry],
});

export const partitionResets = new promClient.Counter({
  name: 'marginal_processor_partition_resets_total',
  help: 'Partitions reloaded from their manifest after a failed or fenced lake write',
  labelNames: ['cause'] as const,
  registers: [registry],
});

export const compactionDuration = new promClient.Histogram({
  name: 'marginal_processor_compaction_duration_seconds',
  help: 'Time to compact one partition and collect its garbage',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const repricedEvents = new promClient.Counter({
  name: 'marginal_processor_repriced_events_total',
  help: 'pending_rate_card events re-priced to completed',
  registers: [registry],
});

export const repricingDuration = new promClient.Histogram({
  name: 'marginal_processor_repricing_duration_seconds',
  help: 'Time of one re-pricing pass over one organization in one partition',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});
