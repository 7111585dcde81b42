// The freshness benchmark's load generator, its own process so the server's CPU is not shared
// with it: signed single-event POST /v1/usage-events at a steady rate over keep-alive
// connections, each event's idempotency key and the wall-clock time (epoch ms) its 202 arrived
// written to a JSON file for bench/processor/run.ts to match against lake visibility.
//   node --import tsx bench/processor/paced-load.ts '<json PacedLoadConfig>'
import fs from 'node:fs';
import http from 'node:http';
import { signedIngestHeaders } from '../signed-ingest-headers.js';

export interface PacedLoadConfig {
  url: string;
  apiKey: string;
  signingSecret: string;
  rate: number;
  seconds: number;
  /** Idempotency keys are `${prefix}${n}`. */
  prefix: string;
  out: string;
}

export interface PacedLoadResult {
  sent: number;
  seconds: number;
  statuses: Record<string, number>;
  /** [idempotency key, epoch ms of the 202] */
  acks: Array<[string, number]>;
}

const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4', 'gpt-4.1-mini', 'gemini-2.5-flash'];

async function run(cfg: PacedLoadConfig): Promise<PacedLoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const target = new URL('/v1/usage-events', cfg.url);
  const statuses: Record<string, number> = {};
  const acks: Array<[string, number]> = [];
  const post = (n: number) =>
    new Promise<void>((resolve) => {
      const key = `${cfg.prefix}${n}`;
      const body = JSON.stringify({
        idempotency_key: key,
        user_id: `user-${n % 100}`,
        model: MODELS[n % MODELS.length],
        input_tokens: 500 + (n % 1000),
        output_tokens: 50 + (n % 200),
      });
      const req = http.request(
        target,
        { method: 'POST', agent, headers: signedIngestHeaders(cfg.apiKey, cfg.signingSecret, body) },
        (res) => {
          res.resume();
          res.on('end', () => {
            const status = String(res.statusCode);
            statuses[status] = (statuses[status] ?? 0) + 1;
            if (res.statusCode === 202) acks.push([key, Date.now()]);
            resolve();
          });
        },
      );
      req.on('error', () => {
        statuses.error = (statuses.error ?? 0) + 1;
        resolve();
      });
      req.end(body);
    });

  const total = cfg.rate * cfg.seconds;
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (let n = 0; n < total; n++) {
    const wait = started + (n * 1000) / cfg.rate - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const p = post(n).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  agent.destroy();
  return { sent: total, seconds: (performance.now() - started) / 1000, statuses, acks };
}

const cfg = JSON.parse(process.argv[2]!) as PacedLoadConfig;
const result = await run(cfg);
fs.writeFileSync(cfg.out, JSON.stringify(result));
