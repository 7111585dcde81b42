// Load of the noisy-neighbour bench, run as its own process so client CPU is not the service's:
//   victim   — `clients` concurrent loops sending valid signed single events of one organization;
//              counts answers by status and latency.
//   attacker — ONE client of another organization sending every bad input of issue 16 in a loop,
//              one request at a time, at most `ratePerSecond` (0: as fast as answers come);
//              counts answers by status (every one must be 4xx).
// Prints one JSON line with the counts when `seconds` have passed.
import { agent, namedBadInputs, send, validEvent } from './requests.js';

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
      const requests =
        cfg.role === 'attacker'
          ? namedBadInputs(cfg, `${cfg.runId}-${i}`).map(([, r]) => r)
          : [validEvent(cfg, `v-${cfg.runId}-${c}-${i}`)];
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
