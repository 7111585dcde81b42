// SDK benchmark (TypeScript): starts the all-in-one service (child process, free ports, temp
// data), then measures from one Node process
//   1. the time `track` adds to a caller: each call timed alone with process.hrtime.bigint()
//      (the timer's own cost, measured the same way around nothing, subtracted), median and p99,
//      while the background sender delivers the events (the caller yields between bursts, as an
//      application serving requests does);
//   2. events/s through `track` into the service: N events tracked by a producer that respects
//      the queue bound, until flush() has every one accepted.
// Prints the figures and writes bench/results/sdk-typescript.json and .md.
//   cd sdks/typescript && npm run bench -- [--events 100000] [--samples 100000] [--no-write]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Marginal } from '../../../sdks/typescript/src/client.js';
import type { EventResult } from '../../../sdks/typescript/src/events.js';
import { REPO_ROOT, startService } from '../../../sdks/typescript/test/support/service.js';
import { createTenant, type Tenant } from '../../../sdks/typescript/test/support/tenant.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '100000' },
    samples: { type: 'string', default: '100000' },
    'no-write': { type: 'boolean', default: false },
  },
});
const EVENTS = Number(values.events);
const SAMPLES = Number(values.samples);
const BURST = 200;

const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

/**
 * Between bursts: let the sender run, and wait while the queue is 90% full, so that every event
 * is delivered (the timed calls measure the queueing path, never the drop path).
 */
async function backpressure(marginal: Marginal): Promise<void> {
  await yieldToLoop();
  const highWater = Math.floor(marginal.config.maxQueueSize * 0.9);
  while (marginal.stats().queued > highWater) await new Promise((r) => setTimeout(r, 1));
}

function quantile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function event(i: number) {
  return {
    model: 'gpt-4o-mini',
    input_tokens: 1000 + (i % 100),
    output_tokens: 200,
    user_id: `user-${i % 500}`,
    metadata: { feature: 'bench' },
  };
}

function client(
  tenant: Tenant,
  results: { accepted: number; other: number },
  extra: Partial<ConstructorParameters<typeof Marginal>[0]> = {},
) {
  return new Marginal({
    apiKey: tenant.apiKey,
    signingSecret: tenant.signingSecret,
    baseUrl: tenant.url,
    flushOnExit: false,
    onResult: (r: EventResult) => (r.status === 'accepted' ? results.accepted++ : results.other++),
    ...extra,
  });
}

/** Median and p99 of the time one track() call takes, in µs, net of the timer's own cost. */
async function measureTrack(tenant: Tenant) {
  const results = { accepted: 0, other: 0 };
  const marginal = client(tenant, results);
  // Warm-up (JIT), not measured.
  for (let i = 0; i < 20_000; i++) {
    marginal.track(event(i));
    if (i % BURST === 0) await backpressure(marginal);
  }
  await marginal.flush();
  const timer = new Float64Array(SAMPLES);
  const track = new Float64Array(SAMPLES);
  for (let i = 0; i < SAMPLES; i++) {
    const e = event(i);
    const t0 = process.hrtime.bigint();
    const t1 = process.hrtime.bigint();
    marginal.track(e);
    const t2 = process.hrtime.bigint();
    timer[i] = Number(t1 - t0) / 1000;
    track[i] = Number(t2 - t1) / 1000;
    if (i % BURST === BURST - 1) await backpressure(marginal);
  }
  await marginal.shutdown();
  timer.sort();
  track.sort();
  const overhead = quantile(timer, 0.5);
  return {
    calls: SAMPLES,
    median_us: round(quantile(track, 0.5) - overhead, 3),
    p90_us: round(quantile(track, 0.9) - overhead, 3),
    p99_us: round(quantile(track, 0.99) - overhead, 3),
    timer_overhead_us: round(overhead, 3),
    accepted: results.accepted - 20_000,
    not_accepted: results.other,
  };
}

/** Events/s from the first track() to the flush() that has all of them answered. */
async function measureThroughput(tenant: Tenant, label: string, extra: Partial<ConstructorParameters<typeof Marginal>[0]>) {
  const results = { accepted: 0, other: 0 };
  const marginal = client(tenant, results, extra);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < EVENTS; i++) {
    marginal.track(event(i));
    if (i % BURST === BURST - 1) await backpressure(marginal);
  }
  await marginal.flush();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await marginal.shutdown();
  return {
    run: label,
    batch_size: marginal.config.batchSize,
    concurrent_requests: marginal.config.maxConcurrentRequests,
    events: EVENTS,
    seconds: round(seconds, 2),
    events_per_second: Math.round(EVENTS / seconds),
    client_cpu_us_per_event: round((cpu.user + cpu.system) / EVENTS, 2),
    accepted: results.accepted,
    not_accepted: results.other,
  };
}

const round = (x: number, d: number) => Number(x.toFixed(d));

async function main() {
  const started = new Date().toISOString();
  const load0 = os.loadavg();
  const service = await startService();
  try {
    const tenant = await createTenant({ credits: EVENTS * 4 + SAMPLES + 100_000 }, service);
    const track = await measureTrack(tenant);
    console.log(
      `track(): median ${track.median_us} µs, p90 ${track.p90_us} µs, p99 ${track.p99_us} µs per call (${track.calls} calls; timer ${track.timer_overhead_us} µs subtracted)`,
    );
    const runs = [];
    for (const [label, extra] of [
      ['defaults (batches of 500, 2 requests in flight)', {}],
      ['batches of 1000, 4 requests in flight', { batchSize: 1000, maxConcurrentRequests: 4 }],
    ] as const) {
      const r = await measureThroughput(tenant, label, extra);
      console.log(
        `${label}: ${r.events_per_second} events/s (${r.events} in ${r.seconds} s; ${r.accepted} accepted, ${r.not_accepted} not)`,
      );
      runs.push(r);
    }
    const result = {
      bench: 'sdk-typescript',
      started,
      machine: {
        cores: os.cpus().length,
        cpu: os.cpus()[0]?.model,
        memory_gib: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
      },
      load_average: { start: load0.map((x) => round(x, 2)), end: os.loadavg().map((x) => round(x, 2)) },
      setup:
        'all-in-one service (scripts/start.ts: Kafka, dev schema registry, PGlite, ingest, processor, api) as a child process on 127.0.0.1; the SDK client in the bench process; RATE_LIMIT_INGEST_PER_MINUTE raised',
      track,
      throughput: runs,
      target: { track_median_us: 5, met: track.median_us <= 5 },
    };
    if (!values['no-write']) write(result);
  } finally {
    await service.stop();
  }
}

function write(result: Record<string, any>): void {
  const dir = path.join(REPO_ROOT, 'bench/results');
  fs.writeFileSync(path.join(dir, 'sdk-typescript.json'), `${JSON.stringify(result, null, 2)}\n`);
  const t = result.track;
  const md = [
    '# SDK benchmark (TypeScript, `@marginal/sdk`)',
    '',
    `Written by \`cd sdks/typescript && npm run bench\` (bench/sdk/typescript/run.ts); the same data is in \`sdk-typescript.json\`. Run ${result.started}.`,
    '',
    `Machine: ${result.machine.cores} cores (${result.machine.cpu}), ${result.machine.memory_gib} GiB, Node ${result.machine.node}. Load average (1/5/15 min) ${result.load_average.start.join(' ')} at start, ${result.load_average.end.join(' ')} at end; the cores are shared by the service, its Kafka JVM, the bench process and other work on the machine.`,
    '',
    `Setup: ${result.setup}.`,
    '',
    '## Time `track` adds to the caller',
    '',
    `Each of ${t.calls} calls timed alone with \`process.hrtime.bigint()\` (the timer's own median cost, ${t.timer_overhead_us} µs, subtracted), the caller yielding to the event loop every ${BURST} calls (and waiting while the queue is 90% full) so the background sender delivers every event as it goes.`,
    '',
    '| median µs | p90 µs | p99 µs | events accepted | not accepted | target |',
    '|---|---|---|---|---|---|',
    `| ${t.median_us} | ${t.p90_us} | ${t.p99_us} | ${t.accepted} | ${t.not_accepted} | ≤ 5 µs at the median: ${result.target.met ? 'met' : 'not met'} |`,
    '',
    '## Events/s through `track` into the service',
    '',
    'One process tracks N events (waiting whenever the queue is 90% full, as a producer that respects the bound), until `flush()` has every event accepted by the service.',
    '',
    '| Run | Events | Seconds | Events/s | Client CPU µs/event | Accepted | Not accepted |',
    '|---|---|---|---|---|---|---|',
    ...result.throughput.map(
      (r: any) =>
        `| ${r.run} | ${r.events} | ${r.seconds} | ${r.events_per_second} | ${r.client_cpu_us_per_event} | ${r.accepted} | ${r.not_accepted} |`,
    ),
    '',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'sdk-typescript.md'), md);
  console.log('wrote bench/results/sdk-typescript.json and .md');
}

await main();
