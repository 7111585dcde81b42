// Load of the noisy-neighbour bench, run as its own process so client CPU is not the service's:
//   victim   — `clients` concurrent loops sending valid signed single events of one organization;
//              counts answers by status and latency.
//   attacker — ONE client of another organization sending every bad input of issue 16 in a loop,
//              one request at a time, at most `ratePerSecond` (0: as fast as answers come);
//              counts answers by status (every one must be 4xx).
// Prints one JSON line with the counts when `seconds` have passed.
import http from 'node:http';
import zlib from 'node:zlib';
import { signedIngestHeaders } from '../signed-ingest-headers.js';

export interface ClientsConfig {
  role: 'victim' | 'attacker';
  url: string;
  apiKey: string;
  signingSecret: string;
  seconds: number;
  clients: number;
  /** Makes idempotency keys unique across runs of the same organization. */
  runId: string;
  /** Attacker only: requests per second at most (0 = unpaced). */
  ratePerSecond?: number;
}

export interface ClientsResult {
  role: string;
  requests: number;
  byStatus: Record<string, number>;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

interface Req {
  method: string;
  path: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/**
 * The answer's status; a batch answers 200 with one result per event, so its label is the
 * status of its first event's error code ("200:VALIDATION_ERROR") when it has one.
 */
function send(base: URL, r: Req): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: base.hostname, port: base.port, method: r.method, path: r.path, headers: r.headers, agent },
      (res) => {
        const batch = r.path.endsWith('/batch') && res.statusCode === 200;
        let body = '';
        if (batch) res.on('data', (d: Buffer) => (body += d.toString()));
        else res.resume();
        res.on('end', () => {
          const code = batch ? (JSON.parse(body) as { results: Array<{ error?: { code: string } }> }).results[0]?.error?.code : undefined;
          resolve(code ? `${res.statusCode}:${code}` : String(res.statusCode ?? 0));
        });
      },
    );
    req.on('error', reject);
    if (r.body !== undefined) req.write(r.body);
    req.end();
  });
}

function signed(cfg: ClientsConfig, path: string, body: string, extra: Record<string, string> = {}): Req {
  return { method: 'POST', path, headers: { ...signedIngestHeaders(cfg.apiKey, cfg.signingSecret, body), ...extra }, body };
}

const llm = (key: string, fields: Record<string, unknown> = {}) => ({ idempotency_key: key, model: 'gpt-4o', input_tokens: 120, output_tokens: 30, ...fields });

/** Every bad input of issue 16, built fresh each round (signatures carry the time). */
function badInputs(cfg: ClientsConfig, round: number): Req[] {
  const k = `${cfg.runId}-${round}`;
  const raw = (body: string) => signed(cfg, '/v1/usage-events', body);
  const get = (path: string): Req => ({ method: 'GET', path, headers: { authorization: `Bearer ${cfg.apiKey}` } });
  const range = 'start_date=2026-01-01&end_date=2026-01-31';
  const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
  const notGzip = JSON.stringify(llm(`gz-${k}`));
  return [
    raw(JSON.stringify(llm(`y0-${k}`, { timestamp: '0000-01-01T00:00:00Z' }))),
    raw(JSON.stringify(llm(`y1-${k}`, { timestamp: '0001-01-01T00:00:00+01:00' }))),
    raw(JSON.stringify(llm(`s0-${k}`, { started_at: '0000-01-01T00:00:00Z' }))),
    raw(`{"idempotency_key":"k\\udfff${k}","model":"gpt-4o","input_tokens":1,"output_tokens":1}`),
    raw(`{"idempotency_key":"m-${k}","model":"gpt\\ud800","input_tokens":1,"output_tokens":1}`),
    raw(`{"idempotency_key":"p-${k}","metric":"tts\\udc00","unit":"char\\ud800","quantity":1,"provider":"acme\\udfff"}`),
    raw(`{"idempotency_key":"d-${k}","model":"gpt-4o","input_tokens":1,"output_tokens":1,"metadata":${deep}}`),
    raw(JSON.stringify(llm(`t-${k}`, { input_tokens: 2 ** 53 - 1 }))),
    signed(cfg, '/v1/usage-events/batch', `{"events":[{"idempotency_key":"b\\udfff${k}","model":"gpt-4o","input_tokens":1,"output_tokens":1}]}`),
    { method: 'POST', path: '/v1/usage-events', headers: { authorization: `Bearer ${cfg.apiKey}`, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: notGzip },
    { method: 'POST', path: '/v1/usage-events', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: zlib.gzipSync(notGzip) },
    get(`/v1/dimension-data/cost-trend?${range}&dimension_key=%00`),
    get(`/v1/end-user-costs/%00/summary?${range}`),
    get('/v1/attribution-data/sessions/%E0%A4%A/tree'),
    get('/v1/attribution-data/sessions/%25/tree'),
    get(`/v1/attribution-data/sessions?${range}&offset=9223372036854775808`),
    get(`/v1/usage/events?${range}&offset=1e26`),
  ];
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function run(cfg: ClientsConfig): Promise<ClientsResult> {
  const base = new URL(cfg.url);
  const byStatus: Record<string, number> = {};
  const latencies: number[] = [];
  const until = performance.now() + cfg.seconds * 1000;
  const count = (status: string, ms: number) => {
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    latencies.push(ms);
  };
  const gapMs = cfg.role === 'attacker' && cfg.ratePerSecond ? 1000 / cfg.ratePerSecond : 0;
  let nextAt = performance.now();
  const loops = Array.from({ length: cfg.role === 'attacker' ? 1 : cfg.clients }, async (_, c) => {
    for (let i = 0; performance.now() < until; i++) {
      const requests = cfg.role === 'attacker' ? badInputs(cfg, i) : [signed(cfg, '/v1/usage-events', JSON.stringify(llm(`v-${cfg.runId}-${c}-${i}`)))];
      for (const r of requests) {
        if (gapMs > 0) {
          nextAt += gapMs;
          const wait = nextAt - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        }
        if (performance.now() >= until) break;
        const t = performance.now();
        count(await send(base, r).catch(() => 'network-error'), performance.now() - t);
      }
    }
  });
  const started = performance.now();
  await Promise.all(loops);
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const requests = latencies.length;
  return {
    role: cfg.role,
    requests,
    byStatus,
    perSecond: Math.round((requests / elapsed) * 10) / 10,
    p50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
    p99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
  };
}

const cfg = JSON.parse(process.argv[2]!) as ClientsConfig;
console.log(JSON.stringify(await run(cfg)));
agent.destroy();
