// Ingest benchmark: starts the local Kafka broker, the dev schema registry and the all-in-one
// services (PGlite control plane) in this process on loopback, creates an organization with
// plenty of credits and a usage:write key, then drives signed requests from a separate load
// process: single events from 64 concurrent clients, then 1000-event batches. Prints and records
// events/s, p50/p99 latency and peak memory, and Kafka's own ProducerPerformance ceiling against
// the same broker for comparison, and the bare-HTTP ceiling: the same load generator against a
// plain node:http server doing only the key lookup, HMAC check and JSON parse (bare-server.ts).
// Writes bench/results/ingest.json and ingest.md (report.ts).
// Run it as `npm run bench:ingest -- [options]`: that generates the routes (build output) and runs
// node with the V8 flag `npm start` uses (--max-semi-space-size=32), so it measures the same server.
//   npm run bench:ingest -- [--seconds 25] [--clients 64] [--batch-clients 4] [--batch-size 1000]
//                               [--batch-seconds 20] [--services all|ingest] [--only single|batch]
//                               [--database-url postgres://…] [--no-perf] [--no-bare] [--no-write]
//                               [--profile]
// --profile runs the single-event load (with --only batch: the batch load) once more in a child
// started with `node --cpu-prof`, and writes the CPU per event of each layer of the path
// (cpu-profile.ts) beside the figures.
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
import { summarizeProfiles } from './cpu-profile.js';
import type { LoadConfig, LoadResult } from './load.js';
import { ingestMarkdown } from './report.js';

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
    'no-bare': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    // Internal: the profiled child writes its results here instead of to bench/results.
    'results-file': { type: 'string' },
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
/** Issue #18's targets on the all-in-one service with 64 clients. */
const TARGETS = { single: { eventsPerSecond: 15_000, p99Ms: 20 }, batch: { eventsPerSecond: 100_000 } };
const CREDITS = 50_000_000;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-bench-ingest-'));
const cleanups: Array<() => Promise<void>> = [];
const log = (msg: string) => console.log(`[bench] ${msg}`);

function loadAverage(): string {
  return os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
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

/** CPU seconds (user + system) a process has used so far, from /proc; null when /proc is not there. */
function processCpuSeconds(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime), in clock ticks of 1/100 s on Linux.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

const hrtimeUs = () => Number(process.hrtime.bigint() / 1000n);

/** CPU seconds of `pid` inside [fromUs, toUs], from samples [hrtime µs, CPU s] taken every 100 ms. */
function cpuInWindow(samples: Array<[number, number]>, window: { fromUs: number; toUs: number }): number | null {
  const first = samples.find(([t]) => t >= window.fromUs);
  const last = [...samples].reverse().find(([t]) => t <= window.toUs);
  return first && last ? Math.round((last[1] - first[1]) * 100) / 100 : null;
}

interface Sampled<T> {
  result: T;
  peakRssMiB: number;
  serverCpuSeconds: number;
  eventLoopUtilization: number;
  /** The Kafka broker JVM's CPU seconds over the load's measured window. */
  brokerCpuSeconds: number | null;
}

/** Samples this process's RSS and the broker's CPU while the load runs, and the CPU time this process used. */
async function withRssSampling(fn: () => Promise<LoadResult>, brokerPid: number): Promise<Sampled<LoadResult>> {
  let peak = process.memoryUsage().rss;
  const cpu = process.cpuUsage();
  const elu = performance.eventLoopUtilization();
  const broker: Array<[number, number]> = [];
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
    const s = processCpuSeconds(brokerPid);
    if (s !== null) broker.push([hrtimeUs(), s]);
  }, 100);
  try {
    const result = await fn();
    const used = process.cpuUsage(cpu);
    return {
      result,
      brokerCpuSeconds: cpuInWindow(broker, result.windowUs),
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

/** Starts bench/ingest/bare-server.ts as its own process; resolves with its URL and a stop function. */
function startBareServer(apiKey: string, signingSecret: string): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...process.execArgv.filter((a) => a.startsWith('--max-')),
        '--import',
        'tsx',
        fromRoot('bench', 'ingest', 'bare-server.ts'),
        JSON.stringify({ apiKey, signingSecret }),
      ],
      { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.once('error', reject);
    child.stdout.once('data', (d: Buffer) =>
      resolve({
        url: d.toString().trim(),
        pid: child.pid!,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      }),
    );
  });
}

/** The same loads against the bare server: the most any signed ingest could reach here. */
async function runBare(base: Omit<LoadConfig, 'mode' | 'clients' | 'seconds' | 'warmupSeconds' | 'runId' | 'url'>) {
  const bare = await startBareServer(base.apiKey, base.signingSecret);
  const cpuOf = async (load: LoadConfig) => {
    const before = processCpuSeconds(bare.pid) ?? 0;
    const result = await runLoadProcess(load);
    return { ...result, serverCpuSecondsWholeRun: Math.round(((processCpuSeconds(bare.pid) ?? 0) - before) * 100) / 100 };
  };
  try {
    const out: { single: unknown; batch: unknown } = { single: { skipped: true }, batch: { skipped: true } };
    if (values.only !== 'batch') {
      log(`bare node:http ceiling, single events: ${CLIENTS} clients, 3 s warm-up + ${SECONDS} s`);
      out.single = await cpuOf({
        ...base,
        url: bare.url,
        mode: 'single',
        clients: CLIENTS,
        seconds: SECONDS,
        warmupSeconds: 3,
        runId: 'bare-s',
      });
      log(`bare single: ${JSON.stringify(out.single)}`);
    }
    if (values.only !== 'single') {
      log(`bare node:http ceiling, batches: ${BATCH_CLIENTS} clients × ${BATCH_SIZE} events`);
      out.batch = {
        ...(await cpuOf({
          ...base,
          url: bare.url,
          mode: 'batch',
          clients: BATCH_CLIENTS,
          seconds: BATCH_SECONDS,
          warmupSeconds: 3,
          runId: 'bare-b',
        })),
        batchSize: BATCH_SIZE,
      };
      log(`bare batch: ${JSON.stringify(out.batch)}`);
    }
    return out;
  } finally {
    await bare.stop();
  }
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
  let single: (Sampled<LoadResult> & { groups: ReturnType<typeof groupShape> }) | typeof skipped = skipped;
  if (values.only !== 'batch') {
    log(`single events: ${CLIENTS} clients, 3 s warm-up + ${SECONDS} s`);
    const before = await groupStats(host.url);
    const run = await withRssSampling(
      () => runLoadProcess({ ...base, mode: 'single', clients: CLIENTS, seconds: SECONDS, warmupSeconds: 3, runId: 's' }),
      broker.pid,
    );
    single = { ...run, groups: groupShape(before, await groupStats(host.url)) };
    log(`single: ${JSON.stringify(single)}`);
  }

  let batch: (Sampled<LoadResult> & { groups: ReturnType<typeof groupShape> }) | typeof skipped = skipped;
  if (values.only !== 'single') {
    log(`batches: ${BATCH_CLIENTS} clients × ${BATCH_SIZE} events, 3 s warm-up + ${BATCH_SECONDS} s`);
    const before = await groupStats(host.url);
    const run = await withRssSampling(
      () => runLoadProcess({ ...base, mode: 'batch', clients: BATCH_CLIENTS, seconds: BATCH_SECONDS, warmupSeconds: 3, runId: 'b' }),
      broker.pid,
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

  const bare = values['no-bare'] ? null : await runBare({ apiKey: key.apiKey, signingSecret: key.signingSecret, batchSize: BATCH_SIZE });

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
      rateLimitNote:
        'RATE_LIMIT_INGEST_PER_MINUTE raised for the bench so it measures throughput, not the per-key limit (default 100/min).',
      loadGenerator: 'separate Node process, node:http keep-alive agent, one request in flight per client, HMAC-signed',
    },
    single:
      'skipped' in single
        ? single
        : {
            ...single.result,
            serverPeakRssMiB: single.peakRssMiB,
            serverCpuSecondsWholeRun: single.serverCpuSeconds,
            serverEventLoopUtilization: single.eventLoopUtilization,
            brokerCpuSecondsMeasured: single.brokerCpuSeconds,
            groupCommit: single.groups,
            target: TARGETS.single,
          },
    batch:
      'skipped' in batch
        ? batch
        : {
            ...batch.result,
            batchSize: BATCH_SIZE,
            serverPeakRssMiB: batch.peakRssMiB,
            serverCpuSecondsWholeRun: batch.serverCpuSeconds,
            serverEventLoopUtilization: batch.eventLoopUtilization,
            brokerCpuSecondsMeasured: batch.brokerCpuSeconds,
            groupCommit: batch.groups,
            target: TARGETS.batch,
          },
    bare,
    peakRssMiB: { server: serverPeakRss, kafkaBroker: brokerPeakRss },
    consistency: check,
    lakeCatchUp,
    processorSettings: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('PROCESSOR_'))),
    kafkaProducerPerformance: perf,
  };
  console.log(JSON.stringify(results, null, 2));
  if (values['results-file']) fs.writeFileSync(values['results-file'], JSON.stringify(results));
  if (!values['no-write']) {
    const earlier = (run: unknown) => (run ?? {}) as { profile?: unknown; profileBatch?: unknown };
    writeResults((run) => ({ ...results, profile: earlier(run).profile, profileBatch: earlier(run).profileBatch }));
  }
}

/** One file for every configuration: a run replaces the earlier one with the same label. */
function writeResults(update: (earlier: unknown) => unknown): void {
  const label = `${values.services === 'ingest' ? 'ingest+api' : 'all-in-one'}, ${values['database-url'] ? 'PostgreSQL' : 'PGlite'}`;
  const file = fromRoot('bench', 'results', 'ingest.json');
  const all: { runs: Record<string, unknown> } = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { runs: {} };
  all.runs[label] = update(all.runs[label]);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
  const analysis = fromRoot('bench', 'ingest', 'analysis.md');
  fs.writeFileSync(
    fromRoot('bench', 'results', 'ingest.md'),
    ingestMarkdown(all.runs, fs.existsSync(analysis) ? fs.readFileSync(analysis, 'utf8') : ''),
  );
  log(`wrote run "${label}" to bench/results/ingest.json and ingest.md`);
}

/**
 * --profile: the single-event load once more, in a child started with `node --cpu-prof` (the
 * profile of the process and of each worker thread is written when it exits), cut to the load's
 * measured window and charged to the layers of the path; the Kafka JVM and the load generator
 * are added from their measured CPU time. Kept beside the label's figures, which it leaves alone.
 */
async function profileRun(): Promise<void> {
  const dir = path.join(tmp, 'cpu-profiles');
  const resultsFile = path.join(tmp, 'profiled-run.json');
  const mode = values.only === 'batch' ? 'batch' : 'single';
  const args = process.argv.slice(2).filter((a, i, all) => a !== '--profile' && a !== '--only' && all[i - 1] !== '--only');
  const flags = [...process.execArgv.filter((a) => a.startsWith('--max-')), '--cpu-prof', `--cpu-prof-dir=${dir}`, '--import', 'tsx'];
  log(`profiling: node ${flags.join(' ')} bench/ingest/run.ts --only ${mode}`);
  const child = spawn(
    process.execPath,
    [...flags, process.argv[1]!, ...args, '--only', mode, '--no-perf', '--no-bare', '--no-write', '--results-file', resultsFile],
    { cwd: projectRoot, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`profiled run exited with ${code}`);
  const run = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  const single = run[mode] as LoadResult & { brokerCpuSecondsMeasured: number | null; batchSize?: number };
  const extra: Record<string, number> = {
    'load generator process (HTTP client, signing)': (single.cpuSeconds.user + single.cpuSeconds.system) * 1000,
  };
  if (single.brokerCpuSecondsMeasured !== null) extra['Kafka broker JVM'] = single.brokerCpuSecondsMeasured * 1000;
  const summary = summarizeProfiles(dir, single.windowUs, single.acceptedEvents, extra);
  const profile = {
    date: run.date,
    command: `npm run bench:ingest -- ${process.argv.slice(2).join(' ')}`.trim(),
    loadAverageAtStart: run.machine.loadAverageAtStart,
    loadAverageAtEnd: run.machine.loadAverageAtEnd,
    eventsPerSecond: single.eventsPerSecond,
    latencyMs: single.latencyMs,
    clients: single.clients,
    mode,
    batchSize: single.batchSize,
    ...summary,
  };
  console.log(JSON.stringify(profile, null, 2));
  if (!values['no-write'])
    writeResults((earlier) => ({ ...(earlier as object), [mode === 'batch' ? 'profileBatch' : 'profile']: profile }));
}

try {
  await (values.profile ? profileRun() : main());
} finally {
  for (const f of cleanups) await f().catch(() => undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.exit(0);
