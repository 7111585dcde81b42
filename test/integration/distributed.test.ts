// The distributed mode as `npm run distributed` starts it (scripts/distributed/cluster.ts): its own
// Kafka broker and dev registry, 2 ingest and 2 processors, each its own OS process, on a fresh
// PostgreSQL database: the open lake on an S3 server (S3Proxy on loopback) with its catalog in the
// control-plane PostgreSQL, 2 apis, each process on its own DATA_DIR and no common folder
// (decision 0149). Midway, the processor that owns the organization's partition is SIGKILLed the
// moment a lake data file of a flush appears (before that flush commits), with an ingest (a client
// whose request died retries the same events on the other replica) and an api while both apis
// answer reads; the api restarts on an emptied DATA_DIR (a fresh host with nothing local), and
// everything killed is restarted.
// At the end every event answered 202 is counted exactly once, on every api: completed = events
// sent, cost = the sum worked out here with big.js from the card's rates, credits spent = events sent.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LakeQuery } from '../../api/lake/lake-query.js';
import { loadConfig } from '../../core/config.js';
import { Big } from '../../core/money.js';
import { ensureDuckDBExtensions } from '../../scripts/duckdb-extensions/provision.js';
import { startDistributed, type DistributedCluster, type ObjectStoreLake } from '../../scripts/distributed/cluster.js';
import { openFreshControlDb, testPostgresUrl, type FreshControlDb } from '../support/control-db.js';
import { http } from '../support/http.js';
import { signedPost, type Signer } from '../support/ingest-harness.js';

const RATE = { input: '2.5', output: '10' };
const EVENTS = 2_400;
const BATCH = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const provisioned = await ensureDuckDBExtensions().catch((e: Error) => {
  console.warn(`[distributed] the DuckLake case is SKIPPED: the lake's DuckDB extensions cannot be provisioned: ${e.message}`);
  return null;
});

interface Setup {
  name: string;
  api: number;
  objectStore?: ObjectStoreLake;
  /**
   * SIGKILLed once a third of the batches are in, with the processor that owns the organization's
   * partition (killed as it writes a data file), and restarted at two thirds.
   */
  alsoKilled: string[];
  /** Of those, the ones whose DATA_DIR is emptied before the restart (a fresh host with nothing local). */
  freshRestart: string[];
  skip: boolean;
}

const SETUPS: Setup[] = [
  {
    name: 'DuckLake on S3 with a PostgreSQL catalog, 2 apis, no shared folder',
    api: 2,
    objectStore: 'local',
    alsoKilled: ['ingest-1', 'api-2'],
    freshRestart: ['api-2'],
    skip: !provisioned,
  },
];

interface SentEvent {
  idempotency_key: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  user_id: string;
}

function eventAt(i: number): SentEvent {
  return {
    idempotency_key: `dist-${i}`,
    model: 'dist-model-v1',
    input_tokens: 100 + (i % 50),
    output_tokens: 10 + (i % 7),
    user_id: `u-${i % 10}`,
  };
}

/** USD per event from the card: tokens × rate / 1e6 (exact). */
function costOf(e: SentEvent): Big {
  return new Big(e.input_tokens).times(RATE.input).plus(new Big(e.output_tokens).times(RATE.output)).div(1_000_000);
}

/** A counter or histogram series of a Prometheus text page, summed over labels. */

/** A counter or histogram series of a Prometheus text page, summed over labels. */
function metric(page: string, name: string): number {
  let sum = 0;
  for (const line of page.split('\n'))
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.split(' ').at(-1));
  return sum;
}

describe.skipIf(!testPostgresUrl()).each(SETUPS)('distributed mode: 2 ingest, 2 processors on PostgreSQL, $name', (setup) => {
  let control: FreshControlDb;
  let dataDir: string;
  let cluster: DistributedCluster;
  let organizationId: string;
  let writer: Signer;
  let readKey: string;

  beforeAll(async () => {
    if (setup.skip) return;
    control = await openFreshControlDb('postgres');
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-distributed-'));
    cluster = await startDistributed({
      dataDir,
      ingest: 2,
      processors: 2,
      api: setup.api,
      objectStore: setup.objectStore,
      databaseUrl: control.url!,
      partitions: 4,
      built: false,
      env: {
        RATE_LIMIT_INGEST_PER_MINUTE: '100000',
        RATE_LIMIT_READ_PER_15_MINUTES: '100000',
        PROCESSOR_FLUSH_MAX_DELAY_MS: '200',
        PROCESSOR_SESSION_TIMEOUT_MS: '6000',
        LOG_LEVEL: 'warn',
      },
    });
    const api = cluster.service('api').url;
    const token = cluster.adminToken;
    const org = await http(api, 'POST', '/v1/admin/organizations', { token, json: { name: 'distributed' } });
    organizationId = org.body.organization_id;
    const base = `/v1/admin/organizations/${organizationId}`;
    const w = await http(api, 'POST', `${base}/api-keys`, { token, json: { scopes: ['usage:write'] } });
    writer = { apiKey: w.body.api_key, signingSecret: w.body.signing_secret };
    readKey = (await http(api, 'POST', `${base}/api-keys`, { token, json: { scopes: ['costs:read'] } })).body.api_key;
    expect((await http(api, 'POST', `${base}/credits`, { token, json: { amount: 100_000 } })).status).toBe(201);
    const card = await http(api, 'POST', `${base}/rate-cards`, {
      token,
      json: {
        model_slug: 'dist-model',
        input_cost_per_million: RATE.input,
        output_cost_per_million: RATE.output,
        effective_from: '2020-01-01T00:00:00Z',
      },
    });
    expect(card.status).toBeLessThan(300);
  });
  afterAll(async () => {
    await cluster?.stop();
    await control?.dispose();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it.skipIf(setup.skip)(
    `counts every 202 exactly once on every api through a processor SIGKILLed mid-flush and ${setup.alsoKilled.join(', ')}`,
    async () => {
      const ingests = cluster.services.filter((s) => s.role === 'ingest').map((s) => s.url);
      const apis = cluster.services.filter((s) => s.role === 'api').map((s) => s.url);
      const batches = Array.from({ length: EVENTS / BATCH }, (_, b) => Array.from({ length: BATCH }, (_, j) => eventAt(b * BATCH + j)));
      const accepted = new Map<string, string>();
      let sentBatches = 0;

      /** Sends one batch until every event in it is answered 202, moving to the other replica on a failure. */
      const sendBatch = async (events: SentEvent[], first: number) => {
        let pending = events;
        for (let attempt = 0; pending.length > 0; attempt++) {
          if (attempt > 200) throw new Error(`batch not accepted after ${attempt} attempts`);
          const url = ingests[(first + attempt) % ingests.length]!;
          try {
            const res = await signedPost(url, writer, '/v1/usage-events/batch', { events: pending });
            if (res.status === 200) {
              const results = res.body.results as Array<{ event_id?: string }>;
              for (const [i, r] of results.entries()) if (r.event_id) accepted.set(pending[i]!.idempotency_key, r.event_id);
              pending = pending.filter((_, i) => !results[i]!.event_id);
            }
          } catch {
            // The replica died under the request: the same events go to the other one.
          }
          if (pending.length > 0) await sleep(100);
        }
        sentBatches++;
      };

      // Reads on every api while events arrive: the api killed is under load, the others keep answering.
      let sending = true;
      const readStatuses = new Map<number, number>();
      const readers = apis.map(async (url) => {
        while (sending) {
          const status = await http(url, 'GET', '/v1/cost-data/summary', { token: readKey }).then(
            (r) => r.status,
            () => 0, // the api was killed under the request
          );
          readStatuses.set(status, (readStatuses.get(status) ?? 0) + 1);
          await sleep(50);
        }
      });
      const metricsOf = (url: string) => fetch(`${url}/metrics`).then((r) => r.text());
      /** The processor flushing the organization's partition (one organization: one partition, one owner). */
      const busyProcessor = async (): Promise<string> => {
        for (;;) {
          for (const p of cluster.services.filter((s) => s.role === 'processor')) {
            if (metric(await metricsOf(p.url), 'marginal_processor_flushed_rows_total') > 0) return p.name;
          }
          await sleep(50);
        }
      };
      /** SIGKILLs the processor as soon as a lake data file is being written (after its first PUT, before its commit). */
      const killMidFlush = async (name: string): Promise<void> => {
        const page = await metricsOf(cluster.service(name).url);
        const written = new Promise<void>((resolve) => {
          const watcher = fs.watch(cluster.lakeFilesDir!, { recursive: true }, (_, file) => {
            if (!String(file).includes('.parquet')) return;
            cluster.service(name).process().kill('SIGKILL');
            watcher.close();
            resolve();
          });
        });
        await written;
        await cluster.service(name).process().exited;
        console.log(
          `[distributed figure] ${name} killed writing a data file (when the watch began it had flushed ${metric(page, 'marginal_processor_flushed_rows_total')} rows in ${metric(page, 'marginal_processor_flush_duration_seconds_count')} flushes)`,
        );
      };
      const clients = [0, 1].map(async (c) => {
        for (let b = c; b < batches.length; b += 2) await sendBatch(batches[b]!, b);
      });
      const chaos = (async () => {
        while (sentBatches < batches.length / 3) await sleep(20);
        const killedProcessor = await busyProcessor();
        await Promise.all([killMidFlush(killedProcessor), ...setup.alsoKilled.map((name) => cluster.kill(name))]);
        while (sentBatches < (2 * batches.length) / 3) await sleep(20);
        for (const name of setup.freshRestart) fs.rmSync(path.join(dataDir, name), { recursive: true, force: true });
        await Promise.all([cluster.restart(killedProcessor), ...setup.alsoKilled.map((name) => cluster.restart(name))]);
      })();
      await Promise.all([...clients, chaos]);
      sending = false;
      await Promise.all(readers);
      expect(accepted.size).toBe(EVENTS);
      // Reads answered 200 throughout (or died with the killed api), never a 5xx.
      expect(
        [...readStatuses.keys()].filter((s) => s !== 200 && s !== 0),
        JSON.stringify([...readStatuses]),
      ).toEqual([]);

      const expected = batches.flat().reduce((sum, e) => sum.plus(costOf(e)), new Big(0));
      for (const api of apis) await expectEveryEventOnce(api, expected);
      // What an api host with nothing local prepares at start: the organizations, from the catalog.
      const config = loadConfig({ DATA_DIR: path.join(dataDir, 'fresh-host'), DATABASE_URL: control.url!, ...cluster.lakeEnv });
      const fresh = await LakeQuery.open(config.lakeDir, { duckLake: config.lake, derivedDir: false });
      try {
        expect(await fresh.duckLakeOrganizations()).toEqual([organizationId]);
      } finally {
        fresh.close();
      }
    },
  );

  /** The api's answers once the lake caught up: nothing pending, every event completed once, the exact total cost and credits. */
  async function expectEveryEventOnce(api: string, expected: Big): Promise<void> {
    const deadline = Date.now() + 90_000;
    let counts: { completed: number; pending: number; pending_rate_card: number; failed: number };
    for (;;) {
      const res = await http(api, 'GET', '/v1/cost-data/summary', { token: readKey });
      counts = res.body.status_counts;
      if (counts && counts.pending === 0 && counts.completed >= EVENTS) break;
      if (Date.now() > deadline) throw new Error(`${api}: lake did not catch up: ${res.status} ${JSON.stringify(res.body)}`);
      await sleep(300);
    }
    expect(counts, api).toEqual({ completed: EVENTS, pending: 0, pending_rate_card: 0, failed: 0 });

    const day = new Date();
    const start = new Date(day.getTime() - 86_400_000).toISOString().slice(0, 10);
    const end = new Date(day.getTime() + 2 * 86_400_000).toISOString().slice(0, 10);
    const byUser = await http(api, 'GET', `/v1/cost-data/by-end-user?start_date=${start}&end_date=${end}`, { token: readKey });
    expect(byUser.status).toBe(200);
    expect(new Big(byUser.body.total_cost).eq(expected), `${api}: ${byUser.body.total_cost} vs ${expected.toString()}`).toBe(true);
    const events = (byUser.body.end_users as Array<{ event_count: number }>).reduce((n, u) => n + u.event_count, 0);
    expect(events).toBe(EVENTS);

    const credits = await http(api, 'GET', `/v1/admin/organizations/${organizationId}/credits`, { token: cluster.adminToken });
    expect(Number(credits.body.balance)).toBe(100_000 - EVENTS);
  }
});
