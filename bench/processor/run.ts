// Processor benchmark, two phases on one machine (broker, registry and Node share its cores):
//  1. Throughput: pre-fill usage-events with N events (a few organizations, standard-card models,
//     Confluent-framed Avro), then start the processor and time how fast it drains the topic
//     into the lake (DuckLake, bench/lake/stores.ts: local disk or S3Proxy, a throwaway PostgreSQL
//     catalog) — priced events/s, from the first assignment until every partition's resume offset
//     in the lake has reached the end of the topic.
//  2. Freshness: the all-in-one start (scripts/start.ts) in its own process over the same data and
//     lake (the store's lake variables passed on); a separate load process sends signed single
//     POST /v1/usage-events at a steady rate; for each event, the time from its 202 to the moment
//     it is visible in the lake's events table (a poller here, on a read-only attach of the lake,
//     reads the organization's rows past the last offset it saw).
// Writes bench/results/processor.json.
//   npx tsx bench/processor/run.ts [--events 1000000] [--orgs 8] [--partitions 4] [--store local|s3]
//                                  [--rate 1000] [--seconds 30] [--no-write] [--throughput-only]
//                                  [--profile DIR] [--flush-rows 10000]
// --flush-rows sets the processor's flushMaxRows for the drain (smaller flushes, as the all-in-one
// makes at 250 ms under load, show the per-flush cost).
// --profile writes a V8 CPU profile of the drain alone (not the pre-fill) to DIR/drain.cpuprofile.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { SCOPES } from '../../core/auth/scopes.js';
import { issueApiKey } from '../../core/control/api-keys.js';
import { grantCredits } from '../../core/control/credits.js';
import { openControlDb } from '../../core/control/db.js';
import { migrate } from '../../core/control/migrate.js';
import { loadConfig } from '../../core/config.js';
import { USAGE_EVENTS_TOPIC, createKafka, ensureTopics, partitionCounts } from '../../core/kafka/client.js';
import { openLake } from '../../core/lake/lake-catalog.js';
import type { LakeSettings } from '../../core/lake/lake-settings.js';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import { createLogger } from '../../core/logger.js';
import { registry as metricsRegistry } from '../../core/metrics.js';
import { fromRoot } from '../../core/paths.js';
import { RateBook } from '../../pricing/rate-book.js';
import { benchUsageEvent, spreadOrganizations } from './bench-event.js';
import { createUsageEventCodec } from '../../core/registry/usage-event-codec.js';
import { Processor } from '../../processor/consumer.js';
import { DeadLetterQueue } from '../../processor/dlq.js';
import { DuckLakeWriter } from '../../processor/lake/ducklake-writer.js';
import type { UsageEvent } from '../../schemas/usage-event.js';
import type { PacedLoadConfig, PacedLoadResult } from './paced-load.js';
import { findFreePort, startBroker } from '../../scripts/kafka/broker.js';
import { startSchemaRegistry } from '../../scripts/schema-registry/server.js';
import { drainedRecords, parseStore, setUpStore, useLakeEnvironment } from '../lake/stores.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    orgs: { type: 'string', default: '8' },
    partitions: { type: 'string', default: '4' },
    store: { type: 'string', default: 'local' },
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '30' },
    'no-write': { type: 'boolean', default: false },
    'throughput-only': { type: 'boolean', default: false },
    profile: { type: 'string' },
    'flush-rows': { type: 'string', default: '10000' },
  },
});
const EVENTS = Number(values.events);
const ORGS = Number(values.orgs);
const PARTITIONS = Number(values.partitions);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const STORE = parseStore(values.store);

const log = (msg: string) => console.log(`[bench] ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loadAverage = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-bench-processor-'));
// The catalog's PostgreSQL runs as the postgres user when this runs as root: it must reach its folder.
fs.chmodSync(tmp, 0o755);
const dataDir = path.join(tmp, 'data');
const masterKey = crypto.randomBytes(32);
const cleanups: Array<() => Promise<void>> = [];

async function main() {
  log(`tmp ${tmp}; ${os.cpus().length} cpus; node ${process.version}; load average ${loadAverage()}`);
  let brokers = process.env.KAFKA_BROKERS?.split(',') ?? null;
  let brokerPid: number | null = null;
  if (!brokers) {
    const broker = await startBroker({ port: await findFreePort(), dataDir: path.join(tmp, 'kafka') });
    cleanups.push(broker.stop);
    brokers = broker.brokers;
    brokerPid = broker.pid;
  }
  const store = await setUpStore(STORE, path.join(tmp, 'lake'));
  cleanups.push(store.stop);
  useLakeEnvironment(store.env);
  const registry = await startSchemaRegistry({ host: '127.0.0.1', port: 0, file: path.join(tmp, 'registry.json') });
  cleanups.push(registry.stop);
  const kafka = createKafka(brokers, 'bench-processor', { logLevel: 'error' });
  await ensureTopics(kafka, { partitions: PARTITIONS });
  log(
    `broker ${brokers.join(',')}, registry ${registry.url}, usage-events partitions ${(await partitionCounts(kafka, [USAGE_EVENTS_TOPIC]))[USAGE_EVENTS_TOPIC]}`,
  );

  // Control plane: organizations (standard cards price every model used) and one key for phase 2.
  fs.mkdirSync(dataDir, { recursive: true });
  const db = await openControlDb({ databaseUrl: null, pgliteDir: path.join(dataDir, 'control') });
  await migrate(db);
  const orgs = await spreadOrganizations(db, ORGS, PARTITIONS, 'bench');
  const key = await issueApiKey(db, masterKey, orgs[0]!, { scopes: [...SCOPES] });
  await grantCredits(db, orgs[0]!, 10_000_000, 'bench');

  // ---- phase 1: pre-fill, then drain -----------------------------------------------------------
  const codec = await createUsageEventCodec(registry.url);
  const producer = kafka.producer();
  await producer.connect();
  const now = Date.now();
  const prefillStart = performance.now();
  const CHUNK = 5_000;
  for (let i = 0; i < EVENTS; i += CHUNK) {
    const messages = await Promise.all(
      Array.from({ length: Math.min(CHUNK, EVENTS - i) }, async (_, j) => {
        const e = benchEvent(orgs[(i + j) % ORGS]!, i + j, now);
        return { key: e.organization_id, value: await codec.encode(e) };
      }),
    );
    await producer.send({ topic: USAGE_EVENTS_TOPIC, acks: -1, messages });
  }
  await producer.disconnect();
  const prefillSeconds = (performance.now() - prefillStart) / 1000;
  const ends = await topicEnds(kafka);
  const totalRecords = [...ends.values()].reduce((a, b) => a + b, 0);
  log(
    `pre-filled ${EVENTS} events in ${prefillSeconds.toFixed(1)} s; topic holds ${totalRecords} records (${[...ends.values()].join(' / ')} per partition)`,
  );

  const logger = createLogger('warn', 'bench-processor');
  const lakeSettings = loadConfig({ ...process.env, DATA_DIR: dataDir }).lake;
  const lake = await DuckLakeWriter.open(lakeSettings);
  const dlq = await DeadLetterQueue.open(kafka);
  const profiler = values.profile ? await startProfiler() : null;
  const cpuBefore = process.cpuUsage();
  const mainThreadBefore = procCpuSeconds(process.pid, `/proc/self/task/${process.pid}/stat`)!;
  const brokerCpuBefore = procCpuSeconds(brokerPid);
  const drainStart = performance.now();
  const processor = await Processor.start({
    kafka,
    codec,
    rateBook: new RateBook(db),
    db,
    lake,
    dlq,
    logger,
    flushMaxRows: Number(values['flush-rows']),
  });
  let firstRowsAt: number | null = null;
  let assignedAt: number | null = null;
  for (;;) {
    if (assignedAt === null && processor.partitions.length > 0) assignedAt = performance.now();
    const done = await drainedRecords(lake, ends);
    if (done > 0 && firstRowsAt === null) firstRowsAt = performance.now();
    if (done >= totalRecords) break;
    await sleep(assignedAt === null ? 10 : 100);
  }
  const drainSeconds = (performance.now() - drainStart) / 1000;
  if (profiler) {
    const file = path.join(values.profile!, 'drain.cpuprofile');
    fs.mkdirSync(values.profile!, { recursive: true });
    fs.writeFileSync(file, JSON.stringify(await profiler.stop()));
    log(`wrote ${file}`);
  }
  const drainLoad = os.loadavg()[0];
  const cpu = process.cpuUsage(cpuBefore);
  const nodeCpu = (cpu.user + cpu.system) / 1e6;
  // The JavaScript thread (decode, price, map, append) is one core at most, whatever the cores.
  const mainThreadCpu = procCpuSeconds(process.pid, `/proc/self/task/${process.pid}/stat`)! - mainThreadBefore;
  const brokerCpu = brokerPid === null ? null : procCpuSeconds(brokerPid)! - brokerCpuBefore!;
  // What two otherwise idle cores would sustain, from the CPU the drain used (Node + broker).
  const cpuBoundRate =
    brokerCpu === null ? null : Math.round(Math.min((2 * totalRecords) / (nodeCpu + brokerCpu), totalRecords / mainThreadCpu));
  const lakeRows = await countLakeRows(lakeSettings);
  // Joining the group is not the processor's throughput: count from the assignment.
  const joinSeconds = ((assignedAt ?? drainStart) - drainStart) / 1000;
  const eventsPerSecond = Math.round(totalRecords / (drainSeconds - joinSeconds));
  log(
    `drained ${totalRecords} records into the lake in ${drainSeconds.toFixed(1)} s (group join ${joinSeconds.toFixed(1)} s, first rows after ${(((firstRowsAt ?? drainStart) - drainStart) / 1000).toFixed(1)} s): ` +
      `${eventsPerSecond} priced events/s after the join; lake holds ${lakeRows} rows; CPU: Node ${nodeCpu.toFixed(1)} s (JS thread ${mainThreadCpu.toFixed(1)} s), broker ${brokerCpu?.toFixed(1) ?? '?'} s ` +
      `(${cpuBoundRate ?? '?'} events/s if those two had both cores to themselves); load average ${loadAverage()}`,
  );
  // Per event, what the processor costs: the other threads run DuckDB's queries (node-api runs
  // them on libuv's pool) and V8's parallel GC.
  const perEvent = (seconds: number) => ((seconds / totalRecords) * 1e6).toFixed(1);
  log(
    `CPU per event: ${perEvent(nodeCpu)} µs (JS thread ${perEvent(mainThreadCpu)} µs, other threads ${perEvent(nodeCpu - mainThreadCpu)} µs)`,
  );
  const phases = await metricSums();
  log(
    `flushes ${phases.flushes} (${phases.flushSeconds.toFixed(1)} s in all, mean ${((phases.flushSeconds / Math.max(1, phases.flushes)) * 1000).toFixed(0)} ms), ` +
      `compactions ${phases.compactions} (${phases.compactionSeconds.toFixed(1)} s); bytes stored per event ${((await store.bytes()).stored / totalRecords).toFixed(1)}`,
  );
  await processor.stop();
  await dlq.close();
  await lake.close();
  await db.close();
  if (values['throughput-only']) return;

  // ---- phase 2: the all-in-one start (ingest + processor + api in one process), freshness ----------
  // Run as `npm start` runs it (scripts/start.ts), in its own process, so the load generator and
  // the visibility poller below do not share its event loop.
  const port = await findFreePort();
  const server = spawn(process.execPath, ['--import', 'tsx', fromRoot('scripts', 'start.ts')], {
    cwd: fromRoot(),
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      // The store's lake (LAKE_FORMAT, LAKE_URL, LAKE_CATALOG_URL, AWS_*) comes with process.env.
      KAFKA_BROKERS: brokers.join(','),
      SCHEMA_REGISTRY_URL: registry.url,
      MARGINAL_ADMIN_TOKEN: 'bench-admin',
      MARGINAL_MASTER_KEY: masterKey.toString('hex'),
      RATE_LIMIT_INGEST_PER_MINUTE: '1000000000',
      KAFKA_TOPIC_PARTITIONS: String(PARTITIONS),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const serverExited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  cleanups.unshift(async () => {
    server.kill('SIGTERM');
    await serverExited;
  });
  await new Promise<void>((resolve, reject) => {
    server.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Marginal is ready')) resolve();
    });
    server.once('exit', (code) => reject(new Error(`all-in-one server exited with ${code}`)));
  });
  const serverUrl = `http://127.0.0.1:${port}`;

  log(`all-in-one server (scripts/start.ts, pid ${server.pid}) at ${serverUrl}; sending ${RATE} events/s for ${SECONDS} s`);

  const visible = new Map<string, number>();
  const poller = await startVisibilityPoller(lakeSettings, orgs[0]!, visible);
  await sleep(3_000); // the processor joins the group and loads its partitions
  const outFile = path.join(tmp, 'paced-load.json');
  const runLoad = (rate: number, seconds: number, prefix: string) =>
    new Promise<PacedLoadResult>((resolve, reject) => {
      const pacing: PacedLoadConfig = {
        url: serverUrl,
        apiKey: key.apiKey,
        signingSecret: key.signingSecret,
        rate,
        seconds,
        prefix,
        out: outFile,
      };
      const child = spawn(process.execPath, ['--import', 'tsx', fromRoot('bench', 'processor', 'paced-load.ts'), JSON.stringify(pacing)], {
        cwd: fromRoot(),
        stdio: 'inherit',
      });
      child.once('exit', (code) =>
        code === 0
          ? resolve(JSON.parse(fs.readFileSync(outFile, 'utf8')) as PacedLoadResult)
          : reject(new Error(`load generator exited with ${code}`)),
      );
    });
  // Warm-up, not measured: the processor has joined the group and loaded its partitions, and the
  // server's code paths are compiled, once these events are visible.
  const warm = await runLoad(100, 3, 'warm-');
  const warmDeadline = performance.now() + 60_000;
  while (warm.acks.some(([k]) => !visible.has(k)) && performance.now() < warmDeadline) await sleep(100);
  log(`warm-up: ${warm.acks.length} events visible`);
  const serverCpuBefore = procCpuSeconds(server.pid!)!;
  const serverMainBefore = procCpuSeconds(server.pid!, `/proc/${server.pid}/task/${server.pid}/stat`)!;
  const metricsBefore = await scrapeFlushMetrics(serverUrl);
  const load = await runLoad(RATE, SECONDS, 'fresh-');
  const acked = new Map(load.acks);
  log(
    `sent ${load.sent} events in ${load.seconds.toFixed(1)} s (${Math.round(load.sent / load.seconds)}/s); statuses ${JSON.stringify(load.statuses)}`,
  );
  const deadline = performance.now() + 60_000;
  while ([...acked.keys()].some((k) => !visible.has(k)) && performance.now() < deadline) await sleep(200);
  await poller.stop();

  const metricsAfter = await scrapeFlushMetrics(serverUrl);
  const serverMetrics = {
    flushes: metricsAfter.flushes - metricsBefore.flushes,
    flushSeconds: metricsAfter.flushSeconds - metricsBefore.flushSeconds,
    compactions: metricsAfter.compactions - metricsBefore.compactions,
    compactionSeconds: metricsAfter.compactionSeconds - metricsBefore.compactionSeconds,
  };
  log(
    `server flushes ${serverMetrics.flushes} (mean ${((serverMetrics.flushSeconds / Math.max(1, serverMetrics.flushes)) * 1000).toFixed(0)} ms), ` +
      `compactions ${serverMetrics.compactions} (${serverMetrics.compactionSeconds.toFixed(1)} s in all)`,
  );
  const serverCpu = procCpuSeconds(server.pid!)! - serverCpuBefore;
  const serverMain = procCpuSeconds(server.pid!, `/proc/${server.pid}/task/${server.pid}/stat`)! - serverMainBefore;
  log(
    `server CPU during the load: ${serverCpu.toFixed(1)} s (JS thread ${serverMain.toFixed(1)} s) over ${load.seconds.toFixed(0)} s; load average ${loadAverage()}`,
  );
  const latencies: number[] = [];
  // p95 per 5 s of sending, to tell steady latency from spikes (compaction, GC, other load).
  const firstAck = Math.min(...acked.values());
  const windows = new Map<number, number[]>();
  for (const [k, at] of acked) {
    const seen = visible.get(k);
    if (seen === undefined) continue;
    latencies.push(Math.max(0, seen - at));
    const w = Math.floor((at - firstAck) / 5_000);
    windows.set(w, [...(windows.get(w) ?? []), Math.max(0, seen - at)]);
  }
  const p95ByWindow = [...windows.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, v]) =>
      Math.round(
        percentile(
          v.sort((a, b) => a - b),
          95,
        ),
      ),
    );
  log(`p95 per 5 s window: ${p95ByWindow.join(' ')} ms`);
  latencies.sort((a, b) => a - b);
  const fresh = {
    p50: Math.round(percentile(latencies, 50)),
    p95: Math.round(percentile(latencies, 95)),
    p99: Math.round(percentile(latencies, 99)),
    max: Math.round(latencies[latencies.length - 1]!),
  };
  log(
    `freshness 202 → visible in the lake over ${latencies.length} events: p50 ${fresh.p50} ms, p95 ${fresh.p95} ms, p99 ${fresh.p99} ms, max ${fresh.max} ms (${acked.size - latencies.length} never seen)`,
  );

  const results = {
    benchmark: 'processor',
    date: new Date().toISOString(),
    store: STORE === 'local' ? 'DuckLake on local disk, PostgreSQL catalog' : 'DuckLake on S3Proxy (loopback), PostgreSQL catalog',
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, loadAverageAtEnd: os.loadavg() },
    notes:
      "One 2-core VM runs the Kafka broker (JVM), the dev schema registry and the Node process; other engineers' builds shared the machine. " +
      `Throughput: processor alone (flushMaxRows ${values['flush-rows']}, flushMaxDelayMs 250, DuckLake maintenance at most every 60 s) draining a pre-filled topic into the store's lake (one DuckLake commit per flush). ` +
      "Freshness: the all-in-one start (scripts/start.ts: ingest + processor + api in one process, PGlite control plane, the store's lake and catalog) in its own process; a separate load process sends single signed POSTs paced at the rate; this process polls a read-only attach of the lake every 50 ms for the organization's events past the last offset seen; latency = first seen - 202 received (wall clock).",
    throughput: {
      events: totalRecords,
      organizations: ORGS,
      partitions: PARTITIONS,
      prefillSeconds: Number(prefillSeconds.toFixed(1)),
      drainSeconds: Number(drainSeconds.toFixed(1)),
      groupJoinSeconds: Number(joinSeconds.toFixed(1)),
      pricedEventsPerSecond: eventsPerSecond,
      lakeRows,
      nodeCpuSeconds: Number(nodeCpu.toFixed(1)),
      jsThreadCpuSeconds: Number(mainThreadCpu.toFixed(1)),
      nodeCpuMicrosecondsPerEvent: Number(perEvent(nodeCpu)),
      jsThreadCpuMicrosecondsPerEvent: Number(perEvent(mainThreadCpu)),
      brokerCpuSeconds: brokerCpu === null ? null : Number(brokerCpu.toFixed(1)),
      eventsPerSecondAtTwoIdleCores: cpuBoundRate,
      loadAverageDuringDrain: drainLoad,
      flushes: phases.flushes,
      flushSecondsTotal: Number(phases.flushSeconds.toFixed(1)),
      compactions: phases.compactions,
      compactionSecondsTotal: Number(phases.compactionSeconds.toFixed(1)),
      target: 30_000,
    },
    freshness: {
      rate: RATE,
      seconds: SECONDS,
      sent: load.sent,
      sendSeconds: Number(load.seconds.toFixed(1)),
      statuses: load.statuses,
      accepted: acked.size,
      seen: latencies.length,
      latencyMs: fresh,
      p95ByFiveSecondWindowMs: p95ByWindow,
      serverCpuSeconds: Number(serverCpu.toFixed(1)),
      serverJsThreadCpuSeconds: Number(serverMain.toFixed(1)),
      loadAverageAtEnd: os.loadavg()[0],
      serverFlushes: serverMetrics.flushes,
      serverMeanFlushMs: Math.round((serverMetrics.flushSeconds / Math.max(1, serverMetrics.flushes)) * 1000),
      serverCompactions: serverMetrics.compactions,
      serverCompactionSecondsTotal: Number(serverMetrics.compactionSeconds.toFixed(1)),
      targetP95Ms: 2_000,
    },
  };
  console.log(JSON.stringify(results, null, 2));
  if (!values['no-write']) {
    fs.mkdirSync(fromRoot('bench', 'results'), { recursive: true });
    fs.writeFileSync(fromRoot('bench', 'results', 'processor.json'), `${JSON.stringify(results, null, 2)}\n`);
    log('wrote bench/results/processor.json');
  }
}

function benchEvent(org: string, n: number, now: number): UsageEvent {
  return benchUsageEvent(org, n, { timestamp: new Date(now - (n % 3_600_000)), user: `user-${n % 500}`, metadata: `{"team":"t${n % 5}"}` });
}

/** A V8 CPU profiler on this process's JavaScript thread. */
async function startProfiler(): Promise<{ stop(): Promise<unknown> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      return profile;
    },
  };
}

/** The same sums read from a running server's /metrics (Prometheus text). */
async function scrapeFlushMetrics(
  url: string,
): Promise<{ flushes: number; flushSeconds: number; compactions: number; compactionSeconds: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    flushes: value('marginal_processor_flush_duration_seconds_count'),
    flushSeconds: value('marginal_processor_flush_duration_seconds_sum'),
    compactions: value('marginal_processor_compaction_duration_seconds_count'),
    compactionSeconds: value('marginal_processor_compaction_duration_seconds_sum'),
  };
}

/** user + system CPU seconds of a process from /proc (null when unknown). */
function procCpuSeconds(pid: number | null, file = `/proc/${pid}/stat`): number | null {
  if (pid === null) return null;
  try {
    const stat = fs.readFileSync(file, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[11] = utime, fields[12] = stime, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Count and total seconds of the processor's flush and compaction histograms so far. */
async function metricSums(): Promise<{ flushes: number; flushSeconds: number; compactions: number; compactionSeconds: number }> {
  const json = await metricsRegistry.getMetricsAsJSON();
  const value = (metric: string, suffix: string) =>
    json.find((m) => m.name === metric)?.values.find((v) => (v as { metricName?: string }).metricName === `${metric}${suffix}`)?.value ?? 0;
  return {
    flushes: value('marginal_processor_flush_duration_seconds', '_count'),
    flushSeconds: value('marginal_processor_flush_duration_seconds', '_sum'),
    compactions: value('marginal_processor_compaction_duration_seconds', '_count'),
    compactionSeconds: value('marginal_processor_compaction_duration_seconds', '_sum'),
  };
}

async function topicEnds(kafka: ReturnType<typeof createKafka>): Promise<Map<number, number>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(USAGE_EVENTS_TOPIC);
    return new Map(offsets.map((o) => [o.partition, Number(o.high)]));
  } finally {
    await admin.disconnect();
  }
}

/** Events in the lake, through a read-only attach (the latest snapshot). */
async function countLakeRows(settings: LakeSettings): Promise<number> {
  const lake = await openLake(settings, { readOnly: true, threads: 2 });
  try {
    return Number((await lake.conn.runAndReadAll('SELECT count(*) FROM lake.events')).getRows()[0]![0]);
  } finally {
    lake.close();
  }
}

/**
 * Records when each idempotency key of `org` first appears in the lake's events (a read-only
 * attach; each poll reads the latest snapshot). The organization's events share one Kafka
 * partition, committed in offset order: a poll reads only today's rows past the last offset seen.
 */
async function startVisibilityPoller(
  settings: LakeSettings,
  org: string,
  visible: Map<string, number>,
): Promise<{ stop(): Promise<void> }> {
  const lake = await openLake(settings, { readOnly: true, threads: 1 });
  const today = new Date().toISOString().slice(0, 10);
  let stopped = false;
  const done = (async () => {
    let lastOffset = -1;
    try {
      while (!stopped) {
        const rows = (
          await lake.conn.runAndReadAll(
            `SELECT idempotency_key, kafka_offset FROM lake.events
             WHERE organization_id = ${sqlStringLiteral(org)} AND event_date >= DATE '${today}' AND kafka_offset > ${lastOffset}`,
          )
        ).getRows();
        const seenAt = Date.now(); // epoch ms, comparable with the load process's 202 times
        for (const [k, offset] of rows) {
          lastOffset = Math.max(lastOffset, Number(offset));
          if (!(k as string).startsWith('bench-') && !visible.has(k as string)) visible.set(k as string, seenAt);
        }
        await sleep(50);
      }
    } finally {
      lake.close();
    }
  })();
  return {
    async stop() {
      stopped = true;
      await done;
    },
  };
}

try {
  await main();
} finally {
  for (const f of cleanups) await f().catch((err) => console.error('cleanup failed:', err));
  fs.rmSync(tmp, { recursive: true, force: true });
}
