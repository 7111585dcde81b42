// Webhook delivery metrics on /metrics: attempts by outcome, and (read from the outbox when
// scraped) how many deliveries wait and how old the oldest one is.
import { promClient, registry } from '../../core/metrics.js';

export const deliveryAttempts = new promClient.Counter({
  name: 'marginal_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome (delivered, http_error, timeout, network_error, refused)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const deliveriesAbandoned = new promClient.Counter({
  name: 'marginal_webhook_deliveries_abandoned_total',
  help: 'Deliveries given up after the 3-day retry window',
  registers: [registry],
});

export interface OutboxStats {
  pending: number;
  oldestPendingSeconds: number;
}

/** Registers the two outbox gauges, reading `stats` at scrape time; returns the unregister function. */
export function registerOutboxGauges(stats: () => Promise<OutboxStats>): () => void {
  let last: Promise<OutboxStats> | null = null;
  const read = () => (last ??= stats().catch(() => ({ pending: Number.NaN, oldestPendingSeconds: Number.NaN })).finally(() => setImmediate(() => (last = null))));
  const depth = new promClient.Gauge({
    name: 'marginal_webhook_queue_depth',
    help: 'Webhook deliveries waiting to be delivered (pending)',
    registers: [registry],
    async collect() {
      this.set((await read()).pending);
    },
  });
  const oldest = new promClient.Gauge({
    name: 'marginal_webhook_oldest_undelivered_seconds',
    help: 'Age of the oldest pending webhook delivery, 0 when none waits',
    registers: [registry],
    async collect() {
      this.set((await read()).oldestPendingSeconds);
    },
  });
  return () => {
    registry.removeSingleMetric('marginal_webhook_queue_depth');
    registry.removeSingleMetric('marginal_webhook_oldest_undelivered_seconds');
  };
}
