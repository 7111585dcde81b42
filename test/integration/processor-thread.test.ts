// The all-in-one services with the processor on its worker thread: events sent through the real
// signed ingest are priced in the lake (costs worked out by hand below), /metrics shows the
// worker's processor series once, PROCESSOR_THREAD_NICE reaches the worker's OS thread, a worker
// that dies is replaced and the pipeline goes on, and stop() ends every thread the worker started
// in bounded time. A processor that cannot start fails the host's start. Real broker and registry
// (globalSetup), PGlite on the host, a DuckLake in a temp folder, its catalog in a fresh PostgreSQL
// database.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RunningComponent, StartComponent } from '../../core/process-host.js';
import { processorThread, startProcessorThread, type HostMessage, type ProcessorThreadComponent } from '../../processor/thread-host.js';
import { allInOneComponents } from '../../scripts/all-in-one-components.js';
import { openFreshControlDb } from '../support/control-db.js';
import { startTestHost } from '../support/http.js';
import { createTenant, ingest, llmEvent, metricEvent, waitForLake, type Pipeline, type Tenant } from '../support/pipeline.js';
import { lakeEventRows, tempLakeDir } from '../support/processor-fixtures.js';

const infra = { kafkaBrokers: inject('kafkaBrokers').split(','), schemaRegistryUrl: inject('schemaRegistryUrl') };
const NICE = 7;

/** Nice value of each thread of this process (field 19 of /proc/self/task/<tid>/stat), by tid. */
function threadNiceValues(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after "(comm)" start at field 3, so nice (19) is the 17th of them.
      out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      /* the thread ended meanwhile */
    }
  }
  return out;
}

const threadsAtNice = (nice = NICE) => [...threadNiceValues().values()].filter((n) => n === nice).length;

interface PricedRow {
  idempotency_key: string;
  status: string;
  input_cost: string | null;
  output_cost: string | null;
  unit_cost: string | null;
  total_cost: string;
}

async function pricedRows(lakeDir: string, org: string): Promise<Map<string, PricedRow>> {
  const rows = (await lakeEventRows(
    lakeDir,
    org,
    `idempotency_key, status, CAST(input_cost AS VARCHAR) AS input_cost, CAST(output_cost AS VARCHAR) AS output_cost,
     CAST(unit_cost AS VARCHAR) AS unit_cost, CAST(total_cost AS VARCHAR) AS total_cost`,
  )) as unknown as PricedRow[];
  return new Map(rows.map((r) => [r.idempotency_key, r]));
}

/**
 * The host's lake: a DuckLake in a temp folder with its catalog in a fresh PostgreSQL database. The processor thread
 * reads the open lake's settings from the process environment (processor/thread.ts: in production
 * host and thread share it; here the host's env is given to loadConfig), so they go there too,
 * until `restore`.
 */
async function hostLake(): Promise<{ env: Record<string, string>; lakeDir: string; restore(): void }> {
  const catalog = await openFreshControlDb('postgres', { migrate: false });
  await catalog.db.close();
  const lakeDir = tempLakeDir('processor-thread');
  const env = { LAKE_DIR: lakeDir, LAKE_URL: lakeDir, LAKE_CATALOG_URL: catalog.url! };
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  return {
    env,
    lakeDir,
    restore() {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      fs.rmSync(lakeDir, { recursive: true, force: true });
    },
  };
}

async function metricsText(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

/** The value of an unlabelled series in exposition text. */
function seriesValue(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`${name} not in /metrics`);
  return Number(line.slice(name.length + 1));
}

describe('the all-in-one processor on a worker thread', () => {
  let pipeline: Pipeline;
  let tenant: Tenant;
  let processor: ProcessorThreadComponent;
  let niceBefore: number;
  let lake: Awaited<ReturnType<typeof hostLake>> | null = null;

  beforeAll(async () => {
    niceBefore = threadsAtNice();
    // The all-in-one list, its processor entry swapped for the same thread host with a short
    // restart delay, kept so the test can reach the worker.
    expect(allInOneComponents).toContain(startProcessorThread);
    const capture: StartComponent = async (ctx, inf) => {
      processor = (await processorThread({ restartDelayMs: 200 })(ctx, inf)) as ProcessorThreadComponent;
      return processor satisfies RunningComponent;
    };
    lake = await hostLake();
    const host = await startTestHost({
      components: allInOneComponents.map((s) => (s === startProcessorThread ? capture : s)),
      infra,
      env: {
        RATE_LIMIT_INGEST_PER_MINUTE: '100000',
        RATE_LIMIT_READ_PER_15_MINUTES: '100000',
        PROCESSOR_FLUSH_MAX_DELAY_MS: '200',
        // A replaced worker rejoins as its dead member; were that to fail, the session bounds the wait.
        PROCESSOR_SESSION_TIMEOUT_MS: '6000',
        PROCESSOR_THREAD_NICE: String(NICE),
        ...lake.env,
      },
    });
    pipeline = { host, url: host.url, lakeDir: lake.lakeDir, stop: () => host.stop() };
    tenant = await createTenant(pipeline, {
      rateCards: [{ model_slug: 'thread-model', input_cost_per_million: '3', output_cost_per_million: '15' }],
      unitRates: [{ provider: 'imagegen', metric: 'image_generation', unit: 'image', cost_per_unit: '0.04' }],
    });
  });
  afterAll(async () => {
    await pipeline?.stop();
    lake?.restore();
  });

  it('prices events sent through ingest into the lake', async () => {
    await ingest(pipeline, tenant, [
      llmEvent('t-1', { model: 'thread-model', input_tokens: 1000, output_tokens: 200 }),
      llmEvent('t-2', { model: 'thread-model-mini', input_tokens: 12345, output_tokens: 678 }),
      metricEvent('t-3', { quantity: 3 }),
    ]);
    await waitForLake(pipeline, tenant.organizationId, 3);
    const rows = await pricedRows(pipeline.lakeDir, tenant.organizationId);
    // t-1: 1000 × 3 / 1e6 = 0.003 input, 200 × 15 / 1e6 = 0.003 output, 0.006 in all.
    expect(rows.get('t-1')).toMatchObject({
      status: 'completed',
      input_cost: '0.003000000000',
      output_cost: '0.003000000000',
      total_cost: '0.006000000000',
    });
    // t-2 (the card's slug prefixes the model): 12345 × 3 / 1e6 = 0.037035; 678 × 15 / 1e6 = 0.01017; 0.047205.
    expect(rows.get('t-2')).toMatchObject({
      status: 'completed',
      input_cost: '0.037035000000',
      output_cost: '0.010170000000',
      total_cost: '0.047205000000',
    });
    // t-3: 3 images × 0.04 = 0.12.
    expect(rows.get('t-3')).toMatchObject({ status: 'completed', total_cost: '0.120000000000' });
  });

  it("serves the worker's processor series on the host's /metrics, once each", async () => {
    const text = await metricsText(pipeline.url);
    // Every flushed row of the lake went through the worker (other files' records included), so at least ours.
    expect(seriesValue(text, 'marginal_processor_flushed_rows_total')).toBeGreaterThanOrEqual(3);
    expect(seriesValue(text, 'marginal_processor_assigned_partitions')).toBeGreaterThan(0);
    expect(text.match(/^# TYPE marginal_processor_flushed_rows_total /gm)).toHaveLength(1);
    // The host's own series are still there, also once.
    expect(text.match(/^# TYPE marginal_http_requests_total /gm)).toHaveLength(1);
    expect(text.match(/^# TYPE process_cpu_user_seconds_total /gm)).toHaveLength(1);
  });

  it("runs the worker's thread at PROCESSOR_THREAD_NICE, the host thread at its own", () => {
    expect(threadNiceValues().get(process.pid)).toBe(0);
    // The worker's own thread. (DuckDB's scheduler thread is started from libuv's pool, where
    // node-api opens the database, so it does not inherit the value.)
    expect(threadsAtNice() - niceBefore).toBeGreaterThanOrEqual(1);
  });

  it('replaces a worker that dies, and the pipeline goes on', async () => {
    const first = processor.worker()!;
    expect(processor.starts()).toBe(1);
    // An uncaught error in the worker, as a bug would throw. (Not terminate(): tearing a thread
    // down under in-flight node-api DuckDB work aborts the process.)
    const exited = new Promise<number>((resolve) => first.once('exit', resolve));
    first.postMessage({ type: 'crash' } satisfies HostMessage);
    expect(await exited).toBe(1);
    const deadline = Date.now() + 30_000;
    while (processor.starts() < 2 || !processor.worker() || processor.worker() === first) {
      if (Date.now() > deadline) throw new Error('no new processor thread after 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    await ingest(pipeline, tenant, [llmEvent('t-4', { model: 'thread-model', input_tokens: 2000, output_tokens: 0 })]);
    await waitForLake(pipeline, tenant.organizationId, 4);
    // t-4: 2000 × 3 / 1e6 = 0.006. Nothing stored twice across the restart.
    const rows = await pricedRows(pipeline.lakeDir, tenant.organizationId);
    expect(rows.get('t-4')).toMatchObject({ status: 'completed', total_cost: '0.006000000000' });
    expect(rows.size).toBe(4);
  });

  it('stop() ends the worker and every thread it started, in bounded time', async () => {
    const worker = processor.worker()!;
    expect(worker.threadId).toBeGreaterThan(0);
    const began = Date.now();
    await processor.stop();
    expect(Date.now() - began).toBeLessThan(30_000);
    expect(worker.threadId).toBe(-1);
    expect(processor.worker()).toBeNull();
    expect(threadsAtNice()).toBe(niceBefore);
    // Stopping again is the same stop.
    await processor.stop();
  });
});

describe('a processor thread that cannot start', () => {
  it("fails the host's start with the worker's error and leaves no thread behind", async () => {
    // A nice value nothing else here uses marks the worker's thread while it lives.
    const marker = 11;
    expect(threadsAtNice(marker)).toBe(0);
    // No Kafka configured: the processor in the worker refuses to start.
    const started = startTestHost({
      components: [startProcessorThread],
      infra: { kafkaBrokers: null, schemaRegistryUrl: null },
      env: { PROCESSOR_THREAD_NICE: String(marker) },
    });
    await expect(started).rejects.toThrow('the processor needs Kafka: set KAFKA_BROKERS');
    expect(threadsAtNice(marker)).toBe(0);
  });
});
