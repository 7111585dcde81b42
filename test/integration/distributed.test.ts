// The distributed mode as `npm run distributed` starts it (scripts/distributed/cluster.ts): its own
// Kafka broker and dev registry, 2 ingest, 2 processors and 1 api, each its own OS process, on a
// fresh PostgreSQL database. Signed batches go to both ingest replicas from two clients; midway one
// ingest and one processor are SIGKILLed (a client whose request died retries the same events on
// the other replica) and later restarted. At the end every event answered 202 is counted exactly
// once: completed = events sent, cost = the sum worked out here with big.js from the card's rates,
// credits spent = events sent.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Big } from '../../core/money.js';
import { startDistributed, type DistributedCluster } from '../../scripts/distributed/cluster.js';
import { openFreshControlDb, testPostgresUrl, type FreshControlDb } from '../support/control-db.js';
import { http } from '../support/http.js';
import { signedPost, type Signer } from '../support/ingest-harness.js';

const RATE = { input: '2.5', output: '10' };
const EVENTS = 2_400;
const BATCH = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

describe.skipIf(!testPostgresUrl())('distributed mode: 2 ingest, 2 processors, 1 api on PostgreSQL', () => {
  let control: FreshControlDb;
  let dataDir: string;
  let cluster: DistributedCluster;
  let organizationId: string;
  let writer: Signer;
  let readKey: string;

  beforeAll(async () => {
    control = await openFreshControlDb('postgres');
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-distributed-'));
    cluster = await startDistributed({
      dataDir,
      ingest: 2,
      processors: 2,
      api: 1,
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
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts every 202 exactly once through a SIGKILLed ingest and processor', async () => {
    const ingests = cluster.services.filter((s) => s.role === 'ingest').map((s) => s.url);
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

    const clients = [0, 1].map(async (c) => {
      for (let b = c; b < batches.length; b += 2) await sendBatch(batches[b]!, b);
    });
    const chaos = (async () => {
      while (sentBatches < batches.length / 3) await sleep(20);
      await Promise.all([cluster.kill('ingest-1'), cluster.kill('processor-1')]);
      while (sentBatches < (2 * batches.length) / 3) await sleep(20);
      await Promise.all([cluster.restart('ingest-1'), cluster.restart('processor-1')]);
    })();
    await Promise.all([...clients, chaos]);
    expect(accepted.size).toBe(EVENTS);

    // The lake catches up: nothing pending, every event completed once.
    const deadline = Date.now() + 90_000;
    let counts: { completed: number; pending: number; pending_rate_card: number; failed: number };
    for (;;) {
      const res = await http(cluster.service('api').url, 'GET', '/v1/cost-data/summary', { token: readKey });
      counts = res.body.status_counts;
      if (counts.pending === 0 && counts.completed >= EVENTS) break;
      if (Date.now() > deadline) throw new Error(`lake did not catch up: ${JSON.stringify(counts)}`);
      await sleep(300);
    }
    expect(counts).toEqual({ completed: EVENTS, pending: 0, pending_rate_card: 0, failed: 0 });

    const day = new Date();
    const start = new Date(day.getTime() - 86_400_000).toISOString().slice(0, 10);
    const end = new Date(day.getTime() + 2 * 86_400_000).toISOString().slice(0, 10);
    const byUser = await http(cluster.service('api').url, 'GET', `/v1/cost-data/by-end-user?start_date=${start}&end_date=${end}`, {
      token: readKey,
    });
    expect(byUser.status).toBe(200);
    const expected = batches.flat().reduce((sum, e) => sum.plus(costOf(e)), new Big(0));
    expect(new Big(byUser.body.total_cost).eq(expected), `${byUser.body.total_cost} vs ${expected.toString()}`).toBe(true);
    const events = (byUser.body.end_users as Array<{ event_count: number }>).reduce((n, u) => n + u.event_count, 0);
    expect(events).toBe(EVENTS);

    const credits = await http(cluster.service('api').url, 'GET', `/v1/admin/organizations/${organizationId}/credits`, {
      token: cluster.adminToken,
    });
    expect(Number(credits.body.balance)).toBe(100_000 - EVENTS);
  });
});
