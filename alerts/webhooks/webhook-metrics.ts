// Webhook delivery metrics on /metrics: attempts by outcome, and (read from the outbox when
// scraped) how many deliveries wait and how old the oldest one is. The gauges exist once per
// thread; each running delivery worker adds its outbox as a source (tests run several hosts in
// one process): depths are summed, the oldest age is the maximum.
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

const sources = new Set<() => Promise<OutboxStats>>();

/** Reads every source once per scrape (both gauges share the reading). */
let reading: Promise<OutboxStats> | null = null;
function readAll(): Promise<OutboxStats> {
  reading ??= Promise.all([...sources].map((s) => s().catch(() => ({ pending: Number.NaN, oldestPendingSeconds: Number.NaN }))))
    .then((all) => ({
      pending: all.reduce((n, s) => n + s.pending, 0),
      oldestPendingSeconds: all.reduce((m, s) => Math.max(m, s.oldestPendingSeconds), 0),
    }))
    .finally(() => setImmediate(() => (reading = null)));
  return reading;
}

new promClient.Gauge({
  name: 'marginal_webhook_queue_depth',
  help: 'Webhook deliveries waiting to be delivered (pending)',
  registers: [registry],
  async collect() {
    this.set((await readAll()).pending);
  },
});

new promClient.Gauge({
  name: 'marginal_webhook_oldest_undelivered_seconds',
  help: 'Age of the oldest pending webhook delivery, 0 when none waits',
  registers: [registry],
  async collect() {
    this.set((await readAll()).oldestPendingSeconds);
  },
});

/** Adds an outbox to the gauges; returns the function that removes it. */
export function registerOutboxGauges(stats: () => Promise<OutboxStats>): () => void {
  sources.add(stats);
  return () => sources.delete(stats);
}
