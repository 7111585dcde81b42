// Prometheus metrics (prom-client), one registry per thread, served at /metrics. A thread that
// runs a service (the all-in-one processor) reports its own series to the host through a metrics
// source, so /metrics still shows the whole process.
import client from 'prom-client';

export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

export const httpRequests = new client.Counter({
  name: 'marginal_http_requests_total',
  help: 'HTTP requests by route and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new client.Histogram({
  name: 'marginal_http_request_duration_seconds',
  help: 'HTTP request latency by route',
  labelNames: ['method', 'route'] as const,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

/** What core registers in every thread (process defaults, HTTP); a thread's host reports these itself. */
const everyThread = new Set(registry.getMetricsAsArray().map((m) => m.name));

/** This thread's series minus the ones every thread has: what a worker thread adds to its host's /metrics. */
export async function threadOwnMetrics(): Promise<string> {
  const own = registry.getMetricsAsArray().filter((m) => !everyThread.has(m.name));
  return (await Promise.all(own.map((m) => registry.getSingleMetricAsString(m.name)))).join('\n\n');
}

const sources = new Set<() => Promise<string>>();

/** Adds another thread's exposition text to /metrics; returns the function that removes it. */
export function addMetricsSource(source: () => Promise<string>): () => void {
  sources.add(source);
  return () => sources.delete(source);
}

/** The /metrics body: this registry and every source. A family a source reports replaces this
 * registry's own of the same name (it is the one doing the work; here it may only be imported). */
export async function metricsText(): Promise<string> {
  const extra = (await Promise.all([...sources].map((s) => s().catch(() => '')))).filter((t) => t.trim() !== '');
  if (extra.length === 0) return registry.metrics();
  const reported = new Set(extra.flatMap((t) => [...t.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]!)));
  const mine = registry.getMetricsAsArray().filter((m) => !reported.has(m.name));
  const texts = await Promise.all(mine.map((m) => registry.getSingleMetricAsString(m.name)));
  return `${[...texts, ...extra].join('\n\n')}\n`;
}

export { client as promClient };
