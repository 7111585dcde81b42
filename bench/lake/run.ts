// The open lake's benchmark (issue 24): for each size N, one broker's usage-events topic is filled
// with N events (bench/lake/fill-topic.ts) and drained by the processor into a fresh lake per
// store (bench/lake/stores.ts): DuckLake on local disk and DuckLake on S3Proxy (loopback), each
// with its own throwaway PostgreSQL catalog. The files lake it was measured against is gone (issue
// 24); its figures stay in the committed bench/results/lake.md and lake-5m.md. Per store: priced
// events/s of the drain (from the group assignment until every partition's resume offset reached
// the topic's end), bytes stored per event, and the first request of a fresh api process (cold,
// bench/api's fresh-api.ts, the lake variables passed through) and the warm p50 of bench/api's
// questions. Writes bench/results/lake.md and lake.json.
//   npx tsx bench/lake/run.ts [--events 1000000[,5000000,…]] [--stores local,s3]
//                             [--days 90] [--iterations 10] [--cold-rounds 1] [--cold-every 1]
//                             [--no-reads] [--out bench/results/lake]
// --days spreads the events over that many days from bench/api's first day (its questions' ranges
// follow).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config.js';
import { openControlDb } from '../../core/control/db.js';
import { migrate } from '../../core/control/migrate.js';
import { USAGE_EVENTS_TOPIC, createKafka, ensureTopics } from '../../core/kafka/client.js';
import { createLogger } from '../../core/logger.js';
import { fromRoot } from '../../core/paths.js';
import { createUsageEventCodec } from '../../core/registry/usage-event-codec.js';
import { RateBook } from '../../pricing/rate-book.js';
import { Processor } from '../../processor/consumer.js';
import { DimensionBook } from '../../processor/dimension-book.js';
import { DeadLetterQueue } from '../../processor/dlq.js';
import { DuckLakeWriter } from '../../processor/lake/ducklake-writer.js';
import { findFreePort, startBroker } from '../../scripts/kafka/broker.js';
import { startSchemaRegistry } from '../../scripts/schema-registry/server.js';
import { benchNow } from '../api/bench-lake.js';
import { firstRequests, startFreshApi } from '../api/fresh-api.js';
import { httpCases, pathOf } from '../api/http-cases.js';
import { median, percentile } from '../api/stats.js';
import { createBenchOrganizations, fillTopic } from './fill-topic.js';
import { writeLakeReport, type StoreResult } from './lake-report.js';
import { drainedRecords, parseStore, setUpStore, useLakeEnvironment, type Store } from './stores.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    stores: { type: 'string', default: 'local,s3' },
    orgs: { type: 'string', default: '8' },
    partitions: { type: 'string', default: '4' },
    days: { type: 'string', default: '90' },
    iterations: { type: 'string', default: '10' },
    'cold-rounds': { type: 'string', default: '1' },
    'cold-every': { type: 'string', default: '1' },
    'no-reads': { type: 'boolean', default: false },
    out: { type: 'string', default: 'bench/results/lake' },
  },
});
const SIZES = values.events.split(',').map(Number);
const STORES = values.stores.split(',').map(parseStore);
const PARTITIONS = Number(values.partitions);
const DAYS = Number(values.days);
const ITERATIONS = Number(values.iterations);
const COLD_ROUNDS = Math.max(1, Number(values['cold-rounds']));
/** Cold figures for every K-th question only (a fresh api process each costs seconds on a loaded machine). */
const COLD_EVERY = Math.max(1, Number(values['cold-every']));

const log = (msg: string) => console.log(`[bench-lake] ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loadAverage = () => os.loadavg().map((x) => +x.toFixed(2));
const cleanups: Array<() => Promise<void>> = [];
const masterKey = crypto.randomBytes(32);

async function drain(
  kafka: ReturnType<typeof createKafka>,
  codec: Awaited<ReturnType<typeof createUsageEventCodec>>,
  db: Awaited<ReturnType<typeof openControlDb>>,
  store: Store,
  ends: Map<number, number>,
): Promise<{ eventsPerSecond: number; drainSeconds: number; joinSeconds: number; load: number[] }> {
  const config = loadConfig({ ...process.env, DATA_DIR: os.tmpdir() });
  const dimensions = new DimensionBook(db);
  const lake = await DuckLakeWriter.open(config.lake, { dimensions });
  const dlq = await DeadLetterQueue.open(kafka);
  const total = [...ends.values()].reduce((a, b) => a + b, 0);
  const started = performance.now();
  const processor = await Processor.start({
    kafka,
    codec,
    rateBook: new RateBook(db),
    db,
    lake,
    dlq,
    logger: createLogger('warn', 'bench-lake'),
    groupId: `bench-lake-${store}-${crypto.randomUUID()}`,
    flushMaxRows: 10_000,
  });
  let assignedAt: number | null = null;
  for (;;) {
    if (assignedAt === null && processor.partitions.length > 0) assignedAt = performance.now();
    if ((await drainedRecords(lake, ends)) >= total) break;
    await sleep(assignedAt === null ? 10 : 250);
  }
  const drainSeconds = (performance.now() - started) / 1000;
  const joinSeconds = ((assignedAt ?? started) - started) / 1000;
  const load = loadAverage();
  await processor.stop();
  await dlq.close();
  await lake.close();
  return { eventsPerSecond: Math.round(total / (drainSeconds - joinSeconds)), drainSeconds, joinSeconds, load };
}

/** Cold (first request of a fresh api process, median of --cold-rounds) and warm p50 of every bench/api question. */
async function reads(dataDir: string, apiKey: string): Promise<StoreResult['reads']> {
  const now = benchNow(DAYS).toISOString();
  const cases = httpCases(DAYS);
  // As bench/api: one process asks every question once first (what the api persists, it persists).
  const persist = await startFreshApi({ dataDir, now });
  for (const [, p, q] of cases) await persist.get(pathOf(p, q), apiKey);
  await persist.stop();
  const out: StoreResult['reads'] = [];
  const warm = await startFreshApi({ dataDir, now });
  try {
    for (const [name, p, q] of cases) {
      const times: number[] = [];
      for (let i = 0; i < ITERATIONS + 2; i++) {
        const r = await warm.get(pathOf(p, q), apiKey);
        if (i >= 2) times.push(r.ms);
      }
      times.sort((a, b) => a - b);
      out.push({ name, cold_ms: null, warm_p50_ms: +percentile(times, 0.5).toFixed(1) });
    }
  } finally {
    await warm.stop();
  }
  for (const [i, [name, p, q]] of cases.entries()) {
    if (i % COLD_EVERY !== 0) continue;
    const firsts: number[] = [];
    for (let r = 0; r < COLD_ROUNDS; r++) firsts.push((await firstRequests({ dataDir, now }, pathOf(p, q), apiKey)).firstMs);
    out[i]!.cold_ms = +median(firsts).toFixed(1);
    log(`  ${name.padEnd(76)} cold ${String(out[i]!.cold_ms).padStart(7)} ms  warm p50 ${String(out[i]!.warm_p50_ms).padStart(6)} ms`);
  }
  return out;
}

async function benchSize(events: number, tmp: string): Promise<StoreResult[]> {
  const dir = path.join(tmp, `n${events}`);
  fs.mkdirSync(dir, { recursive: true });
  const broker = await startBroker({ port: await findFreePort(), dataDir: path.join(dir, 'kafka') });
  cleanups.push(broker.stop);
  const registry = await startSchemaRegistry({ host: '127.0.0.1', port: 0, file: path.join(dir, 'registry.json') });
  cleanups.push(registry.stop);
  const kafka = createKafka(broker.brokers, 'bench-lake', { logLevel: 'error' });
  await ensureTopics(kafka, { partitions: PARTITIONS });
  const codec = await createUsageEventCodec(registry.url);
  // One control plane (organizations, read key, dimensions, end users) and one fill per size; each
  // store starts from a copy of that control plane and an empty lake, so it drains the same topic.
  const template = path.join(dir, 'control');
  const seed = await openControlDb({ databaseUrl: null, pgliteDir: template });
  await migrate(seed);
  const orgs = await createBenchOrganizations(seed, masterKey, Number(values.orgs), PARTITIONS);
  await seed.close();
  const fillSeconds = await fillTopic(kafka, codec, orgs.organizations, events, DAYS);
  const ends = await topicEnds(kafka);
  log(
    `${events} events: topic filled in ${fillSeconds.toFixed(1)} s (${[...ends.values()].join(' / ')} per partition); load ${loadAverage().join(' ')}`,
  );
  const results: StoreResult[] = [];
  for (const store of STORES) {
    const storeDir = path.join(dir, store);
    const dataDir = path.join(storeDir, 'data');
    fs.mkdirSync(dataDir, { recursive: true });
    fs.cpSync(template, path.join(dataDir, 'control'), { recursive: true });
    // The api processes decrypt the read key's secret with the master key it was issued under.
    fs.writeFileSync(
      path.join(dataDir, 'instance-secrets.json'),
      JSON.stringify({ adminToken: 'bench-admin', masterKey: masterKey.toString('hex') }),
      { mode: 0o600 },
    );
    const setup = await setUpStore(store, storeDir);
    try {
      useLakeEnvironment(setup.env);
      const db = await openControlDb({ databaseUrl: null, pgliteDir: path.join(dataDir, 'control') });
      const d = await drain(kafka, codec, db, store, ends).finally(() => db.close());
      log(
        `${events} events, ${store}: ${d.eventsPerSecond} priced events/s (drain ${d.drainSeconds.toFixed(1)} s, group join ${d.joinSeconds.toFixed(1)} s); load ${d.load.join(' ')}`,
      );
      const bytes = await setup.bytes();
      log(
        `${events} events, ${store}: ${(bytes.stored / events).toFixed(1)} bytes stored per event` +
          ` (live data files ${(bytes.liveDataFiles / events).toFixed(1)}, catalog database ${bytes.catalog} bytes)`,
      );
      // The api processes open the copied PGlite control plane themselves.
      const readResults = values['no-reads'] ? [] : await reads(dataDir, orgs.readApiKey);
      results.push({
        events,
        store,
        fill_seconds: +fillSeconds.toFixed(1),
        priced_events_per_second: d.eventsPerSecond,
        drain_seconds: +d.drainSeconds.toFixed(1),
        group_join_seconds: +d.joinSeconds.toFixed(1),
        load_average_after_drain: d.load,
        bytes_stored: bytes.stored,
        bytes_per_event: +(bytes.stored / events).toFixed(1),
        live_data_file_bytes: bytes.liveDataFiles,
        catalog_bytes: bytes.catalog,
        reads: readResults,
        load_average_after_reads: loadAverage(),
      });
    } finally {
      await setup.stop();
    }
  }
  await broker.stop();
  await registry.stop();
  cleanups.splice(cleanups.indexOf(broker.stop), 1);
  cleanups.splice(cleanups.indexOf(registry.stop), 1);
  return results;
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

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-bench-lake-'));
// The catalog's PostgreSQL runs as the postgres user when this runs as root: it must reach its folder.
fs.chmodSync(tmp, 0o755);
try {
  log(
    `tmp ${tmp}; ${os.cpus().length} cpus; node ${process.version}; load ${loadAverage().join(' ')}; sizes ${SIZES.join(', ')}; stores ${STORES.join(', ')}`,
  );
  const results: StoreResult[] = [];
  for (const events of SIZES) results.push(...(await benchSize(events, tmp)));
  const command = `npx tsx bench/lake/run.ts ${process.argv.slice(2).join(' ')}`.trim();
  writeLakeReport(path.isAbsolute(values.out) ? values.out : fromRoot(values.out), {
    command,
    date: new Date().toISOString(),
    cpus: os.cpus().length,
    results,
  });
  log(`wrote ${values.out}.md and .json`);
} finally {
  for (const f of cleanups.reverse()) await f().catch((err) => console.error('cleanup failed:', err));
  fs.rmSync(tmp, { recursive: true, force: true });
}
