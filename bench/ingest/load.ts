// The ingest benchmark's load generator, run as its own process by bench/ingest/run.ts so its CPU
// use is visible apart from the server's. `clients` loops each keep one signed request in
// flight over keep-alive connections for `seconds` (after `warmupSeconds` not counted) and
// print one JSON line with the counts and latency percentiles.
//   node --import tsx bench/ingest/load.ts '<json LoadConfig>'
import http from 'node:http';
import { signedIngestHeaders } from '../signed-ingest-headers.js';

export interface LoadConfig {
  url: string;
  apiKey: string;
  signingSecret: string;
  mode: 'single' | 'batch';
  clients: number;
  seconds: number;
  warmupSeconds: number;
  /** Events per request in batch mode. */
  batchSize: number;
  /** Idempotency keys are `${runId}-${client}-${n}`, unique per run. */
  runId: string;
}

export interface LoadResult {
  mode: LoadConfig['mode'];
  clients: number;
  measuredSeconds: number;
  requests: number;
  /** Events answered 202 (single) or `accepted` in a batch result. */
  acceptedEvents: number;
  eventsPerSecond: number;
  requestsPerSecond: number;
  statuses: Record<string, number>;
  rejectedEvents: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  cpuSeconds: { user: number; system: number };
  /** The measured window on the machine's monotonic clock (process.hrtime), in µs, to cut CPU profiles to it. */
  windowUs: { fromUs: number; toUs: number };
}

const MODELS = ['gpt-4o-mini', 'gpt-4o', 'claude-3-5-sonnet-20241022', 'gemini-1.5-flash'];

function event(key: string, n: number): Record<string, unknown> {
  return {
    idempotency_key: key,
    model: MODELS[n % MODELS.length],
    input_tokens: 800 + (n % 400),
    output_tokens: 150 + (n % 90),
    user_id: `customer-${n % 1000}`,
    session_id: `sess-${Math.floor(n / 8)}`,
    span_id: `span-${n % 8}`,
    span_kind: 'llm',
    agent_id: `agent-${n % 5}`,
    metadata: { team: `team-${n % 7}`, env: 'prod', region: 'eu-west-1' },
  };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function runLoad(cfg: LoadConfig): Promise<LoadResult> {
  const target = new URL(cfg.mode === 'single' ? '/v1/usage-events' : '/v1/usage-events/batch', cfg.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: cfg.clients });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let requests = 0;
  let accepted = 0;
  let rejected = 0;
  const start = performance.now();
  const measureFrom = start + cfg.warmupSeconds * 1000;
  const stopAt = measureFrom + cfg.seconds * 1000;
  const cpuStart = process.cpuUsage();
  // performance.now() and process.hrtime run on the same monotonic clock.
  const hrtimeUsAt = (perfMs: number) => Number(process.hrtime.bigint() / 1000n) - (performance.now() - perfMs) * 1000;
  const windowUs = { fromUs: Math.round(hrtimeUsAt(measureFrom)), toUs: Math.round(hrtimeUsAt(stopAt)) };
  let cpuAtMeasure = cpuStart;
  setTimeout(() => (cpuAtMeasure = process.cpuUsage()), cfg.warmupSeconds * 1000);

  const send = (body: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const req = http.request(
        target,
        { method: 'POST', agent, headers: signedIngestHeaders(cfg.apiKey, cfg.signingSecret, body) },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  const client = async (c: number): Promise<void> => {
    let n = 0;
    while (performance.now() < stopAt) {
      let body: string;
      let events = 1;
      if (cfg.mode === 'single') {
        body = JSON.stringify(event(`${cfg.runId}-${c}-${n}`, n));
        n++;
      } else {
        const batch = [];
        for (let i = 0; i < cfg.batchSize; i++, n++) batch.push(event(`${cfg.runId}-${c}-${n}`, n));
        body = JSON.stringify({ events: batch });
        events = cfg.batchSize;
      }
      const t0 = performance.now();
      let status = 0;
      let text = '';
      try {
        ({ status, text } = await send(body));
      } catch {
        status = 0;
      }
      const t1 = performance.now();
      if (t0 < measureFrom || t1 > stopAt) continue;
      requests++;
      latencies.push(t1 - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (cfg.mode === 'single') {
        if (status === 202) accepted++;
        else rejected++;
      } else if (status === 200) {
        const results = (JSON.parse(text) as { results: Array<{ status?: string }> }).results;
        const ok = results.filter((r) => r.status === 'accepted' || r.status === 'accepted_flagged').length;
        accepted += ok;
        rejected += results.length - ok;
      } else {
        rejected += events;
      }
    }
  };

  await Promise.all(Array.from({ length: cfg.clients }, (_, c) => client(c)));
  const cpu = process.cpuUsage(cpuAtMeasure);
  agent.destroy();
  const sorted = Float64Array.from(latencies).sort();
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    mode: cfg.mode,
    clients: cfg.clients,
    measuredSeconds: cfg.seconds,
    requests,
    acceptedEvents: accepted,
    eventsPerSecond: Math.round(accepted / cfg.seconds),
    requestsPerSecond: Math.round(requests / cfg.seconds),
    statuses,
    rejectedEvents: rejected,
    latencyMs: {
      p50: round(percentile(sorted, 50)),
      p90: round(percentile(sorted, 90)),
      p99: round(percentile(sorted, 99)),
      max: round(sorted.length ? sorted[sorted.length - 1]! : 0),
      mean: round(latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length)),
    },
    cpuSeconds: { user: round(cpu.user / 1e6), system: round(cpu.system / 1e6) },
    windowUs,
  };
}

// run.ts imports only this module's types, so running it is always the program.
const result = await runLoad(JSON.parse(process.argv[2]!) as LoadConfig);
process.stdout.write(`${JSON.stringify(result)}\n`);
