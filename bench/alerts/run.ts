// Alerts benchmark (issue 14): the time from an event's 202 to the webhook it causes, under a
// background load, and the latency of GET /v1/budgets/check. Starts `npm start`'s program (built
// when dist/ is current, else the source through tsx) as a child on free ports with its own broker
// and a temp DATA_DIR, a receiver on 127.0.0.1, one organization with an each-end-user budget of
// $0.000001 (threshold 100%) and an endpoint for every event type. Then, for `--seconds`, sends
// `--rate` events/s in signed batches of 100 (no end user, so they raise nothing) and, every
// 200 ms, one probe event of a new end user: its spend crosses the budget, so exactly one
// budget.threshold_crossed names that user; latency = webhook arrival − the probe's 202. Then asks
// /budgets/check `--checks` times, one at a time (keep-alive), after a warm-up of 200.
// Writes bench/results/alerts.json and alerts.md.
//   npx tsx bench/alerts/run.ts [--seconds 20] [--rate 1000] [--checks 3000] [--no-write]
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../../core/paths.js';
import { findFreePort } from '../../scripts/kafka/broker.js';
import { isBuilt, spawnService, waitUntilServing } from '../../scripts/service-process.js';
import { signedIngestHeaders } from '../signed-ingest-headers.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    rate: { type: 'string', default: '1000' },
    checks: { type: 'string', default: '3000' },
    'no-write': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const RATE = Number(values.rate);
const CHECKS = Number(values.checks);
const BATCH = 100;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-bench-alerts-'));
const [port, kafkaPort, registryPort] = [await findFreePort(), await findFreePort(), await findFreePort()];
const url = `http://127.0.0.1:${port}`;
const adminToken = `mk_admin_bench_${crypto.randomBytes(8).toString('hex')}`;
const built = isBuilt('scripts/start');
const service = spawnService({
  name: 'all-in-one',
  entry: 'scripts/start',
  built,
  logFile: path.join(tmp, 'service.log'),
  env: {
    PORT: String(port),
    KAFKA_PORT: String(kafkaPort),
    SCHEMA_REGISTRY_PORT: String(registryPort),
    DATA_DIR: path.join(tmp, 'data'),
    MARGINAL_ADMIN_TOKEN: adminToken,
    MARGINAL_MASTER_KEY: crypto.randomBytes(32).toString('hex'),
    RATE_LIMIT_INGEST_PER_MINUTE: '1000000000',
    RATE_LIMIT_READ_PER_15_MINUTES: '1000000000',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    LOG_LEVEL: 'warn',
  },
});

// The receiver: arrival time of each budget.threshold_crossed, by end user.
const arrivals = new Map<string, number>();
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = performance.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { user_id?: string } };
    if (body.type === 'budget.threshold_crossed' && body.data.user_id && !arrivals.has(body.data.user_id))
      arrivals.set(body.data.user_id, at);
    res.writeHead(200).end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
function request(
  method: string,
  p: string,
  headers: Record<string, string | number>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${p}`, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
async function adminCall(method: string, p: string, json?: unknown): Promise<any> {
  const body = json === undefined ? undefined : JSON.stringify(json);
  const res = await request(method, `/v1/admin${p}`, { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body);
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${res.body}`);
  return JSON.parse(res.body);
}
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (n: number) => Math.round(n * 100) / 100;

try {
  await waitUntilServing(service, url, 180_000);
  const org = (await adminCall('POST', '/organizations', { name: 'bench-alerts' })).organization_id;
  await adminCall('POST', `/organizations/${org}/credits`, { amount: 100_000_000 });
  await adminCall('POST', `/organizations/${org}/rate-cards`, {
    model_slug: 'bench-model',
    input_cost_per_million: '1',
    output_cost_per_million: '2',
  });
  const writer = await adminCall('POST', `/organizations/${org}/api-keys`, { scopes: ['usage:write'] });
  const reader = await adminCall('POST', `/organizations/${org}/api-keys`, { scopes: ['costs:read'] });
  await adminCall('POST', `/organizations/${org}/budgets`, {
    scope: 'each_end_user',
    period: 'daily',
    amount: '0.000001',
    thresholds: [100],
  });
  await adminCall('POST', `/organizations/${org}/webhook-endpoints`, { url: receiverUrl, enabled_events: ['*'] });

  let seq = 0;
  const event = (userId?: string) => ({
    idempotency_key: `b-${++seq}`,
    model: 'bench-model',
    input_tokens: 1000,
    output_tokens: 100,
    ...(userId ? { user_id: userId } : {}),
  });
  const send = (p: string, payload: unknown) => {
    const body = JSON.stringify(payload);
    return request('POST', p, signedIngestHeaders(writer.api_key, writer.signing_secret, body), body);
  };

  // Background load: a batch of 100 every 100 ms per 1000 events/s, paced on the clock.
  const started = performance.now();
  const endAt = started + SECONDS * 1000;
  let sent = 0;
  let failed = 0;
  const load = (async () => {
    const inflight = new Set<Promise<unknown>>();
    for (let i = 0; performance.now() < endAt; i++) {
      const due = started + (i * BATCH * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const p = send('/v1/usage-events/batch', { events: Array.from({ length: BATCH }, () => event()) }).then((r) => {
        if (r.status === 200) sent += BATCH;
        else failed += BATCH;
      });
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    }
    await Promise.all(inflight);
  })();
  const probes = new Map<string, number>();
  const probing = (async () => {
    for (let i = 0; performance.now() < endAt; i++) {
      const user = `probe-${i}`;
      const res = await send('/v1/usage-events', event(user));
      if (res.status === 202) probes.set(user, performance.now());
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  await Promise.all([load, probing]);
  const achievedRate = sent / ((performance.now() - started) / 1000);
  const deadline = performance.now() + 30_000;
  while ([...probes.keys()].some((u) => !arrivals.has(u)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const latencies = [...probes]
    .filter(([u]) => arrivals.has(u))
    .map(([u, t]) => arrivals.get(u)! - t)
    .sort((a, b) => a - b);
  const missing = probes.size - latencies.length;

  // The check endpoint, warm, one request at a time.
  const checkHeaders = { authorization: `Bearer ${reader.api_key}` };
  const times: number[] = [];
  for (let i = 0; i < CHECKS + 200; i++) {
    const t0 = performance.now();
    const res = await request('GET', `/v1/budgets/check?user_id=probe-${i % Math.max(1, probes.size)}`, checkHeaders);
    const dt = performance.now() - t0;
    if (res.status !== 200) throw new Error(`check answered ${res.status}: ${res.body}`);
    if (i >= 200) times.push(dt);
  }
  times.sort((a, b) => a - b);

  const result = {
    date: new Date().toISOString(),
    program: built ? 'dist/scripts/start.js' : 'scripts/start.ts (tsx)',
    cores: os.cpus().length,
    load_average_1m: round(os.loadavg()[0]!),
    seconds: SECONDS,
    target_rate: RATE,
    achieved_rate: round(achievedRate),
    background_events_accepted: sent,
    background_events_failed: failed,
    probes: probes.size,
    probes_without_webhook: missing,
    webhook_latency_ms: latencies.length
      ? { p50: round(pct(latencies, 50)), p95: round(pct(latencies, 95)), max: round(latencies.at(-1)!) }
      : null,
    check_requests: times.length,
    check_latency_ms: { p50: round(pct(times, 50)), p99: round(pct(times, 99)), max: round(times.at(-1)!) },
  };
  console.log(JSON.stringify(result, null, 2));
  if (!values['no-write']) {
    fs.writeFileSync(fromRoot('bench', 'results', 'alerts.json'), `${JSON.stringify(result, null, 2)}\n`);
    const md = `# Alerts: 202-to-webhook latency and the budget check (bench/alerts)

${result.date}, ${result.program}, ${result.cores} cores, load ${result.load_average_1m} (1 min, at the end).
All-in-one service (own broker, PGlite), one organization with an each-end-user budget of $0.000001
(threshold 100%) and one webhook endpoint on 127.0.0.1. For ${SECONDS} s: ${RATE} events/s in signed
batches of 100 (achieved ${result.achieved_rate}/s, ${sent} accepted, ${failed} failed) and, every 200 ms,
one probe event of a new end user whose spend crosses the budget. Latency = arrival of that user's
\`budget.threshold_crossed\` at the receiver − the probe's 202. Targets: p95 ≤ 5 s; check p99 ≤ 5 ms.

| measure | p50 (ms) | p95 / p99 (ms) | max (ms) |
|---|---|---|---|
| 202 → webhook (${latencies.length} probes, ${missing} without a webhook) | ${result.webhook_latency_ms?.p50} | p95 ${result.webhook_latency_ms?.p95} | ${result.webhook_latency_ms?.max} |
| GET /v1/budgets/check (${times.length} sequential requests after 200 warm-up) | ${result.check_latency_ms.p50} | p99 ${result.check_latency_ms.p99} | ${result.check_latency_ms.max} |
`;
    fs.writeFileSync(fromRoot('bench', 'results', 'alerts.md'), md);
  }
} finally {
  await service.stop();
  receiver.close();
  agent.destroy();
  fs.rmSync(tmp, { recursive: true, force: true });
}
