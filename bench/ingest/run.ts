// Ingest benchmark: starts the local Kafka broker, the dev schema registry and the all-in-one
// services (PGlite control plane) in this process on loopback, creates an organization with
// plenty of credits and a usage:write key, then drives signed requests from a separate load
// process: single events from 64 concurrent clients, then 1000-event batches. Prints and records
// events/s, p50/p99 latency and peak memory, and Kafka's own ProducerPerformance ceiling against
// the same broker for comparison. Writes bench/results/ingest.json and ingest.md.
// Run it as `npm run bench:ingest -- [options]`: that generates the routes (build output) and runs
// node with the V8 flag `npm start` uses (--max-semi-space-size=32), so it measures the same server.
//   npm run bench:ingest -- [--seconds 25] [--clients 64] [--batch-clients 4] [--batch-size 1000]
//                               [--batch-seconds 20] [--services all|ingest] [--only single|batch]
//                               [--database-url postgres://…] [--no-perf] [--no-write]
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startApi } from '../../api/component.js';
import { issueApiKey } from '../../core/control/api-keys.js';
import { getCreditBalance, grantCredits } from '../../core/control/credits.js';
import { createOrganization } from '../../core/control/organizations.js';
import { loadConfig } from '../../core/config.js';
import { loadInstanceSecrets } from '../../core/instance-secrets.js';
import { createLogger } from '../../core/logger.js';
import { fromRoot, projectRoot } from '../../core/paths.js';
import { hostComponents, type Host } from '../../core/process-host.js';
import { startIngest } from '../../ingest/component.js';
import { allInOneComponents } from '../../scripts/all-in-one-components.js';
import { findFreePort, kafkaVersion, startBroker } from '../../scripts/kafka/broker.js';
import { runProducerPerf } from '../../scripts/kafka/perf.js';
import { startSchemaRegistry } from '../../scripts/schema-registry/server.js';
import type { LoadConfig, LoadResult } from './load.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '25' },
    clients: { type: 'string', default: '64' },
    'batch-clients': { type: 'string', default: '4' },
    'batch-size': { type: 'string', default: '1000' },
    'batch-seconds': { type: 'string', default: '20' },
    services: { type: 'string', default: 'all' },
    'no-perf': { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
    only: { type: 'string' },
    'database-url': { type: 'string' },
  },
});
const SECONDS = Number(values.seconds);
const CLIENTS = Number(values.clients);
const BATCH_CLIENTS = Number(values['batch-clients']);
const BATCH_SIZE = Number(values['batch-size']);
const BATCH_SECONDS = Number(values['batch-seconds']);
const SERVICES = values.services === 'ingest' ? [startIngest, startApi] : allInOneComponents;
const SERVICE_NAMES = values.services === 'ingest' ? 'ingest + api' : 'all-in-one (scripts/all-in-one-components.ts)';
// The bench measures throughput, not the per-key limit (100/min by default).
const RATE_LIMIT = '1000000000';
const CREDITS = 50_000_000;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-bench-ingest-'));
const cleanups: Array<() => Promise<void>> = [];
const log = (msg: string) => console.log(`[bench] ${msg}`);

function loadAverage(): string {
  return os.loadavg().map((x) => x.toFixed(2)).join(' ');
}

/** Peak resident memory (VmHWM) of a process, in MiB; null when /proc is not there. */
function peakRssMiB(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** Samples this process's RSS while `fn` runs, and the CPU time it used. */
async function withRssSampling<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; peakRssMiB: number; serverCpuSeconds: number; eventLoopUtilization: number }> {
  let peak = process.memoryUsage().rss;
  const cpu = process.cpuUsage();
  const elu = performance.eventLoopUtilization();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  try {
    const result = await fn();
    const used = process.cpuUsage(cpu);
    return {
      result,
      peakRssMiB: Math.round(Math.max(peak, process.memoryUsage().rss) / 1024 / 1024),
      serverCpuSeconds: Math.round((used.user + used.system) / 1e4) / 100,
      // Share of the time the server's event loop (HTTP, pipeline, PGlite) was busy.
      eventLoopUtilization: Math.round(performance.eventLoopUtilization(elu).utilization * 100) / 100,
    };
  } finally {
    clearInterval(timer);
  }
}

function runLoadProcess(cfg: LoadConfig): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fromRoot('bench', 'ingest', 'load.ts'), JSON.stringify(cfg)], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`load generator exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!) as LoadResult);
    });
  });
}

/** Group-commit shape from /metrics: events per group and Kafka publish time per group. */
async function groupStats(url: string): Promise<{ groups: number; events: number; publishSeconds: number; publishes: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    groups: metric('marginal_ingest_group_events_count'),
    events: metric('marginal_ingest_group_events_sum'),
    publishes: metric('marginal_ingest_publish_duration_seconds_count'),
    publishSeconds: metric('marginal_ingest_publish_duration_seconds_sum'),
  };
}

function groupShape(before: Awaited<ReturnType<typeof groupStats>>, after: Awaited<ReturnType<typeof groupStats>>) {
  const groups = after.groups - before.groups;
  const publishes = after.publishes - before.publishes;
  return {
    groups,
    meanEventsPerGroup: groups ? Math.round(((after.events - before.events) / groups) * 10) / 10 : 0,
    meanPublishMs: publishes ? Math.round(((after.publishSeconds - before.publishSeconds) / publishes) * 10000) / 10 : 0,
  };
}

function cpuModel(): string {
  return os.cpus()[0]?.model ?? 'unknown';
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadAtStart = loadAverage();
  log(`data under ${tmp}; load average ${loadAtStart}`);
  const broker = await startBroker({ port: await findFreePort(), dataDir: path.join(tmp, 'kafka') });
  cleanups.push(broker.stop);
  const registry = await startSchemaRegistry({ host: '127.0.0.1', port: 0, file: path.join(tmp, 'registry.json') });
  cleanups.push(registry.stop);

  const config = loadConfig({
    PORT: '0',
    DATA_DIR: tmp,
    LOG_LEVEL: 'warn',
    MARGINAL_ADMIN_TOKEN: `mk_admin_${crypto.randomBytes(12).toString('hex')}`,
    MARGINAL_MASTER_KEY: crypto.randomBytes(32).toString('hex'),
    RATE_LIMIT_INGEST_PER_MINUTE: RATE_LIMIT,
    // The processor's settings (PROCESSOR_THREAD_NICE, flush sizes) as the caller set them.
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('PROCESSOR_'))),
    ...(values['database-url'] ? { DATABASE_URL: values['database-url'] } : {}),
  });
  const logger = createLogger('warn', 'bench');
  const host: Host = await hostComponents({
    config,
    secrets: loadInstanceSecrets(config),
    logger,
    infra: { kafkaBrokers: broker.brokers, schemaRegistryUrl: registry.url },
    components: SERVICES,
  });
  cleanups.unshift(host.stop);
  log(`services (${SERVICE_NAMES}) at ${host.url}; broker ${broker.brokers.join(',')}`);

  const org = await createOrganization(host.ctx.db, { name: 'Bench' });
  await grantCredits(host.ctx.db, org.id, CREDITS);
  const key = await issueApiKey(host.ctx.db, host.ctx.masterKey, org.id, { scopes: ['usage:write', 'costs:read'] });
  const base = { url: host.url, apiKey: key.apiKey, signingSecret: key.signingSecret, batchSize: BATCH_SIZE };

  const skipped = { skipped: true } as const;
  let single: { result: LoadResult; peakRssMiB: number; serverCpuSeconds: number; eventLoopUtilization: number; groups: ReturnType<typeof groupShape> } | typeof skipped = skipped;
  if (values.only !== 'batch') {
    log(`single events: ${CLIENTS} clients, 3 s warm-up + ${SECONDS} s`);
    const before = await groupStats(host.url);
    const run = await withRssSampling(() =>
      runLoadProcess({ ...base, mode: 'single', clients: CLIENTS, seconds: SECONDS, warmupSeconds: 3, runId: 's' }),
    );
    single = { ...run, groups: groupShape(before, await groupStats(host.url)) };
    log(`single: ${JSON.stringify(single)}`);
  }

  let batch: { result: LoadResult; peakRssMiB: number; serverCpuSeconds: number; eventLoopUtilization: number; groups: ReturnType<typeof groupShape> } | typeof skipped = skipped;
  if (values.only !== 'single') {
    log(`batches: ${BATCH_CLIENTS} clients × ${BATCH_SIZE} events, 3 s warm-up + ${BATCH_SECONDS} s`);
    const before = await groupStats(host.url);
    const run = await withRssSampling(() =>
      runLoadProcess({ ...base, mode: 'batch', clients: BATCH_CLIENTS, seconds: BATCH_SECONDS, warmupSeconds: 3, runId: 'b' }),
    );
    batch = { ...run, groups: groupShape(before, await groupStats(host.url)) };
    log(`batch: ${JSON.stringify(batch)}`);
  }

  // With the processor in this process: how long after the last batch the lake held every
  // accepted event (status_counts.pending 0), i.e. how far pricing lagged behind the burst.
  let lakeCatchUp: { seconds: number | null; pendingAtEnd: number } | null = null;
  if (SERVICES === allInOneComponents) {
    const t0 = Date.now();
    let pending = -1;
    while (Date.now() - t0 < 120_000) {
      const res = await fetch(`${host.url}/v1/cost-data/summary`, { headers: { authorization: `Bearer ${key.apiKey}` } });
      pending = ((await res.json()) as { status_counts: { pending: number } }).status_counts.pending;
      if (pending === 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    lakeCatchUp = { seconds: pending === 0 ? Math.round((Date.now() - t0) / 100) / 10 : null, pendingAtEnd: pending };
    log(`lake caught up: ${JSON.stringify(lakeCatchUp)}`);
  }

  // Every accepted event spent one credit and has one published ledger row.
  const balance = (await getCreditBalance(host.ctx.db, org.id))!;
  const [ledger] = await host.ctx.db.query<{ published: string; reserved: string }>(
    `SELECT count(*) FILTER (WHERE state = 'published') AS published, count(*) FILTER (WHERE state = 'reserved') AS reserved
       FROM ingest_ledger_states WHERE organization_id = $1`,
    [org.id],
  );
  const check = {
    creditsSpent: CREDITS - balance,
    ledgerPublished: Number(ledger!.published),
    ledgerReserved: Number(ledger!.reserved),
  };
  log(`consistency: ${JSON.stringify(check)}`);
  const serverPeakRss = peakRssMiB(process.pid);
  const brokerPeakRss = peakRssMiB(broker.pid);
  await host.stop();
  cleanups.shift();

  let perf: { command: string; summary: string; recordsPerSec: number } | null = null;
  if (!values['no-perf']) {
    log('Kafka ProducerPerformance (acks=all, 300-byte records, 4 partitions) against the same broker, services stopped');
    const p = await runProducerPerf({ brokers: broker.brokers, records: 500_000, recordSize: 300, partitions: 4, acks: 'all' });
    perf = {
      command: `npm run kafka -- perf --brokers ${broker.brokers.join(',')} --records 500000 --record-size 300 --partitions 4 --acks all`,
      summary: p.summary,
      recordsPerSec: Math.round(p.recordsPerSec),
    };
    log(p.summary);
  }

  const results = {
    date: startedAt.toISOString(),
    command: `npm run bench:ingest -- ${process.argv.slice(2).join(' ')}`.trim(),
    nodeFlags: process.execArgv.filter((a) => a.startsWith('--max-')),
    machine: {
      cpus: os.cpus().length,
      cpuModel: cpuModel(),
      memoryGiB: Math.round(os.totalmem() / 1024 ** 3),
      node: process.version,
      kafka: kafkaVersion(),
      // `java -version` writes to stderr.
      java: spawnSync('java', ['-version'], { encoding: 'utf8' }).stderr?.split('\n')[0] || 'java',
      loadAverageAtStart: loadAtStart,
      loadAverageAtEnd: loadAverage(),
      note: 'The 2 cores are shared by the server process (ingest, api, PGlite), the Kafka JVM, the load generator process and other work on the machine.',
    },
    setup: {
      services: SERVICE_NAMES,
      controlPlane: values['database-url'] ? 'PostgreSQL (DATABASE_URL, pg pool)' : 'PGlite (embedded, on disk)',
      rateLimitIngestPerMinute: Number(RATE_LIMIT),
      rateLimitNote: 'RATE_LIMIT_INGEST_PER_MINUTE raised for the bench so it measures throughput, not the per-key limit (default 100/min).',
      loadGenerator: 'separate Node process, node:http keep-alive agent, one request in flight per client, HMAC-signed',
    },
    single:
      'skipped' in single
        ? single
        : { ...single.result, serverPeakRssMiB: single.peakRssMiB, serverCpuSecondsWholeRun: single.serverCpuSeconds, serverEventLoopUtilization: single.eventLoopUtilization, groupCommit: single.groups, target: { eventsPerSecond: 2000, p99Ms: 50 } },
    batch:
      'skipped' in batch
        ? batch
        : { ...batch.result, batchSize: BATCH_SIZE, serverPeakRssMiB: batch.peakRssMiB, serverCpuSecondsWholeRun: batch.serverCpuSeconds, serverEventLoopUtilization: batch.eventLoopUtilization, groupCommit: batch.groups, target: { eventsPerSecond: 20000 } },
    peakRssMiB: { server: serverPeakRss, kafkaBroker: brokerPeakRss },
    consistency: check,
    lakeCatchUp,
    processorSettings: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('PROCESSOR_'))),
    kafkaProducerPerformance: perf,
  };
  console.log(JSON.stringify(results, null, 2));
  if (!values['no-write']) {
    // One file for every configuration run: a run replaces the earlier one with the same label.
    const label = `${values.services === 'ingest' ? 'ingest+api' : 'all-in-one'}, ${values['database-url'] ? 'PostgreSQL' : 'PGlite'}`;
    const file = fromRoot('bench', 'results', 'ingest.json');
    const all: { runs: Record<string, unknown> } = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { runs: {} };
    all.runs[label] = results;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
    fs.writeFileSync(fromRoot('bench', 'results', 'ingest.md'), markdown(all.runs));
    log(`wrote run "${label}" to bench/results/ingest.json and ingest.md`);
  }
}

const met = (v: boolean) => (v ? 'met' : '**not met**');

function row(name: string, x: any, target: string): string {
  if (!x || x.skipped) return `| ${name} | not run | | | | | | | | | |`;
  const loadCpu = (x.cpuSeconds.user + x.cpuSeconds.system).toFixed(1);
  return `| ${name} | ${x.eventsPerSecond} | ${x.requestsPerSecond} | ${x.latencyMs.p50} | ${x.latencyMs.p99} | ${x.latencyMs.max} | ${x.rejectedEvents} | ${x.serverPeakRssMiB} | ${x.serverEventLoopUtilization} | ${x.groupCommit.meanEventsPerGroup} | ${loadCpu} | ${target} |`;
}

function markdown(runs: Record<string, any>): string {
  const out = ['# Ingest benchmark', '', 'Written by `npm run bench:ingest` (see bench/ingest/run.ts for options); the same data is in `ingest.json`.', ''];
  for (const [label, r] of Object.entries(runs)) {
    const s = r.single;
    const b = r.batch;
    out.push(
      `## ${label}`,
      '',
      `\`${r.command}\` — ${r.date}`,
      '',
      `Machine: ${r.machine.cpus} cores (${r.machine.cpuModel}), ${r.machine.memoryGiB} GiB, Node ${r.machine.node}, Kafka ${r.machine.kafka}, ${r.machine.java}. Load average (1/5/15 min) ${r.machine.loadAverageAtStart} at start, ${r.machine.loadAverageAtEnd} at end. ${r.machine.note}`,
      '',
      `Setup: ${r.setup.services} in one process on 127.0.0.1; control plane ${r.setup.controlPlane}; local single-node Kafka (acks=all, idempotent producer); dev schema registry. ${r.setup.rateLimitNote} Load generator: ${r.setup.loadGenerator}. Server node flags: ${(r.nodeFlags ?? []).join(' ') || 'none'}.`,
      '',
      '| Run | Events/s | Requests/s | p50 ms | p99 ms | max ms | Rejected | Server peak RSS MiB | Server event-loop busy | Events per group commit | Load generator CPU s | Target |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
      row(
        `Single events, ${s.clients ?? 64} clients, ${s.measuredSeconds ?? '–'} s`,
        s,
        s.skipped ? '' : `≥ 2,000/s at p99 ≤ 50 ms: ${met(s.eventsPerSecond >= 2000 && s.latencyMs.p99 <= 50)}`,
      ),
      row(
        `Batches of ${b.batchSize ?? 1000}, ${b.clients ?? 4} clients, ${b.measuredSeconds ?? '–'} s`,
        b,
        b.skipped ? '' : `≥ 20,000/s: ${met(b.eventsPerSecond >= 20000)}`,
      ),
      '',
      `Peak RSS over the whole run (VmHWM): server process ${r.peakRssMiB.server} MiB, Kafka broker JVM ${r.peakRssMiB.kafkaBroker} MiB. After the runs: ${r.consistency.creditsSpent} credits spent, ${r.consistency.ledgerPublished} ledger rows published, ${r.consistency.ledgerReserved} left reserved.${
        r.lakeCatchUp
          ? ` The processor (same process${Object.keys(r.processorSettings ?? {}).length ? `, ${Object.entries(r.processorSettings).map(([k, v]) => `${k}=${v}`).join(', ')}` : ''}) had every accepted event in the lake ${r.lakeCatchUp.seconds === null ? `**not within 120 s** (${r.lakeCatchUp.pendingAtEnd} pending)` : `${r.lakeCatchUp.seconds} s after the last response`}.`
          : ''
      }`,
      '',
      r.kafkaProducerPerformance
        ? `Bare broker ceiling, Kafka's own ProducerPerformance from the same jars against the same broker with the services stopped: **${r.kafkaProducerPerformance.recordsPerSec} records/s** (\`${r.kafkaProducerPerformance.command}\`).\n\n> ${r.kafkaProducerPerformance.summary}`
        : 'Kafka ProducerPerformance: not run in this configuration (--no-perf).',
      '',
    );
  }
  return out.join('\n');
}

try {
  await main();
} finally {
  for (const f of cleanups) await f().catch(() => undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.exit(0);
