// Exactly once through crashes: events go in through ingest (signed POST /v1/usage-events/batch,
// each answered 202-equivalent), the processor runs as its own OS process and is killed with
// SIGKILL at random points several times while events keep arriving, then restarted; at the end
// the lake (read through LakeReader + DuckDB, as the api reads it) holds every event exactly once
// and the total cost equals the sum worked out here with big.js from the hand-written rates of
// the organizations' cards.
// Each organization defines a string and a number dimension first, so every flush also writes the
// dimension rollups: at the end they hold every event exactly once too (cost per team and the
// numeric sum worked out here).
// Real broker and registry (inject), real PostgreSQL (ingest and the processor processes share
// it), real DuckDB/Parquet in a temp lake.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRateCard } from '../../pricing/rate-cards.store.js';
import { createDimension } from '../../core/control/dimensions.js';
import { eventIdFor } from '../../core/ids.js';
import { Big } from '../../core/money.js';
import { startIngest } from '../../ingest/component.js';
import {
  TEST_MASTER_KEY,
  createTestTenant,
  openFreshControlDb,
  testPostgresUrl,
  type FreshControlDb,
  type TestTenant,
} from '../support/control-db.js';
import { startTestHost, type TestHost } from '../support/http.js';
import { signedPost } from '../support/ingest-harness.js';
import { spawnProcessor, type ProcessorChild } from '../support/processor-child.js';
import { lakeDimensionTotals, lakeEventIdCounts, lakeTotals, tempLakeDir, waitUntil } from '../support/processor-fixtures.js';

const brokers = inject('kafkaBrokers');
const registryUrl = inject('schemaRegistryUrl');

// Hand-written USD-per-million rates of each organization's two cards. Token counts are integers,
// so every class cost has at most 8 decimals and the sums below are exact.
const RATES: Record<string, { input: string; output: string }> = {
  'crash-large': { input: '2.5', output: '10' },
  'crash-small': { input: '0.15', output: '0.6' },
};
const ORGS = 6;
const KILLS = 5;

/** One event as sent to ingest, with the organization it was sent for. */
interface SentEvent {
  organizationId: string;
  body: {
    idempotency_key: string;
    user_id: string;
    model: string;
    input_tokens: number;
    output_tokens: number;
    timestamp: string;
    session_id?: string;
    metadata: { team: string; latency_ms: number };
  };
}

function expectedCost(e: SentEvent): Big {
  const slug = e.body.model.startsWith('crash-large') ? 'crash-large' : 'crash-small';
  const r = RATES[slug]!;
  return new Big(e.body.input_tokens).times(r.input).div(1_000_000).plus(new Big(e.body.output_tokens).times(r.output).div(1_000_000));
}

const random = (min: number, max: number) => min + Math.random() * (max - min);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!testPostgresUrl())('processor killed with SIGKILL and restarted', () => {
  let control: FreshControlDb;
  let ingest: TestHost;
  const tenants: TestTenant[] = [];
  const orgs: string[] = [];
  let lakeDir: string;
  let dataDir: string;
  const children: ProcessorChild[] = [];

  const childEnv = () => ({
    KAFKA_BROKERS: brokers,
    SCHEMA_REGISTRY_URL: registryUrl,
    DATABASE_URL: control.url!,
    LAKE_DIR: lakeDir,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    MARGINAL_ADMIN_TOKEN: 'crash-test-admin',
    MARGINAL_MASTER_KEY: TEST_MASTER_KEY.toString('hex'),
    // Small, frequent flushes give the kills many different points to land between.
    PROCESSOR_FLUSH_MAX_ROWS: '200',
    PROCESSOR_FLUSH_MAX_DELAY_MS: '100',
    PROCESSOR_SESSION_TIMEOUT_MS: '6000',
    LOG_LEVEL: 'info',
  });

  const start = () => {
    const child = spawnProcessor(childEnv());
    children.push(child);
    return child;
  };

  const lakeRows = async () => {
    let n = 0;
    for (const org of orgs) n += (await lakeTotals(lakeDir, org)).rows;
    return n;
  };

  beforeAll(async () => {
    control = await openFreshControlDb('postgres');
    ingest = await startTestHost({
      databaseUrl: control.url,
      components: [startIngest],
      infra: { kafkaBrokers: brokers.split(','), schemaRegistryUrl: registryUrl },
      env: { RATE_LIMIT_INGEST_PER_MINUTE: '1000000' },
    });
    for (let i = 0; i < ORGS; i++) {
      const tenant = await createTestTenant(control.db, { name: `crash-${i}`, credits: 1_000_000 });
      for (const [slug, r] of Object.entries(RATES)) {
        await createRateCard(control.db, tenant.organizationId, {
          modelSlug: slug,
          inputCostPerMillion: r.input,
          outputCostPerMillion: r.output,
          cacheCreationCostPerMillion: null,
          cacheReadCostPerMillion: null,
          reasoningCostPerMillion: null,
          effectiveFrom: new Date('2025-01-01T00:00:00Z'),
        });
      }
      await createDimension(control.db, tenant.organizationId, { key: 'team', name: 'Team', valueType: 'string' });
      await createDimension(control.db, tenant.organizationId, { key: 'latency_ms', name: 'Latency', valueType: 'number' });
      tenants.push(tenant);
      orgs.push(tenant.organizationId);
    }
    lakeDir = tempLakeDir('crash-lake');
    dataDir = tempLakeDir('crash-data');
  });

  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    await ingest?.stop();
    await control?.dispose();
    for (const d of [lakeDir, dataDir]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('finds every event exactly once with the exact total cost', async () => {
    const sent: SentEvent[] = [];
    let producing = true;
    const production = (async () => {
      for (let round = 0; producing; round++) {
        // One signed batch per round, for one organization (a key belongs to one organization).
        const tenant = tenants[round % ORGS]!;
        const batch: SentEvent[] = Array.from({ length: 60 }, (_, j) => {
          const n = round * 60 + j;
          return {
            organizationId: tenant.organizationId,
            body: {
              idempotency_key: `crash-${n}`,
              user_id: `user-${n % 7}`,
              model: n % 3 === 0 ? 'crash-large-2025' : 'crash-small',
              input_tokens: 100 + (n % 997),
              output_tokens: 10 + (n % 89),
              timestamp: new Date(Date.now() - 60_000 + (n % 1000)).toISOString(),
              ...(n % 4 === 0 ? { session_id: `s-${n % 50}` } : {}),
              metadata: { team: `team-${n % 3}`, latency_ms: (n % 100) / 4 },
            },
          };
        });
        const res = await signedPost(ingest.url, tenant, '/v1/usage-events/batch', { events: batch.map((e) => e.body) });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        for (const [i, result] of (res.body.results as Array<{ event_id?: string; status?: string }>).entries()) {
          expect(result.status, JSON.stringify(result)).toBe('accepted');
          expect(result.event_id).toBe(eventIdFor(tenant.organizationId, batch[i]!.body.idempotency_key));
        }
        sent.push(...batch);
        await sleep(150);
      }
    })();

    const rowsAtKill: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      const child = start();
      if (k === 0) {
        // Once at a random moment of start-up (manifest load, group join, first seek)...
        await sleep(random(500, 4_000));
      } else {
        // ...and otherwise at a random moment while it consumes and flushes (once it made progress).
        const before = rowsAtKill[k - 1]!;
        await Promise.race([child.assigned, child.exited]);
        await waitUntil('progress after restart', async () => (await lakeRows()) > before, 60_000, 100);
        await sleep(random(0, 1_500));
      }
      child.kill('SIGKILL');
      const exit = await child.exited;
      expect(exit.signal, child.output()).toBe('SIGKILL');
      rowsAtKill.push(await lakeRows());
    }
    producing = false;
    await production;

    // The last run catches up and stops cleanly.
    const last = start();
    await waitUntil(`all ${sent.length} events in the lake`, async () => (await lakeRows()) >= sent.length, 120_000, 500).catch((err) => {
      throw new Error(`${(err as Error).message}\n--- processor output ---\n${last.output()}`);
    });
    last.kill('SIGTERM');
    expect((await last.exited).code, last.output()).toBe(0);

    // The kills landed while work was in progress: the lake grew under every run.
    for (let k = 1; k < KILLS; k++) expect(rowsAtKill[k]!).toBeGreaterThan(rowsAtKill[k - 1]!);

    let allRows = 0;
    let allCost = new Big(0);
    let expectedAll = new Big(0);
    for (const org of orgs) {
      const mine = sent.filter((e) => e.organizationId === org);
      const expected = mine.reduce((s, e) => s.plus(expectedCost(e)), new Big(0));
      const totals = await lakeTotals(lakeDir, org);
      expect(totals.rows).toBe(mine.length);
      expect(totals.distinctEvents).toBe(mine.length);
      expect(totals.byStatus).toEqual({ completed: mine.length });
      expect(new Big(totals.totalCost).eq(expected), `org ${org}: ${totals.totalCost} vs ${expected.toFixed()}`).toBe(true);
      expect(totals.rollupEvents).toBe(mine.length);
      expect(new Big(totals.rollupCost).eq(expected)).toBe(true);
      const dims = await lakeDimensionTotals(lakeDir, org, 'team', 'latency_ms');
      expect(dims.covered).toBe(true);
      for (const team of ['team-0', 'team-1', 'team-2']) {
        const ofTeam = mine.filter((e) => e.body.metadata.team === team);
        const got = dims.costs.get(team);
        expect(got?.events ?? 0, `${org} ${team}`).toBe(ofTeam.length);
        expect(new Big(got?.cost ?? 0).eq(ofTeam.reduce((s, e) => s.plus(expectedCost(e)), new Big(0))), `${org} ${team} cost`).toBe(true);
      }
      expect(dims.costs.size).toBe(new Set(mine.map((e) => e.body.metadata.team)).size);
      expect(dims.numbers.count).toBe(mine.length);
      expect(new Big(dims.numbers.sum).eq(mine.reduce((s, e) => s.plus(e.body.metadata.latency_ms), new Big(0)))).toBe(true);
      const ids = await lakeEventIdCounts(lakeDir, org);
      expect(ids.size).toBe(mine.length);
      for (const e of mine) expect(ids.get(eventIdFor(org, e.body.idempotency_key))).toBe(1);
      allRows += totals.rows;
      allCost = allCost.plus(totals.totalCost);
      expectedAll = expectedAll.plus(expected);
    }
    expect(allRows).toBe(sent.length);
    expect(allCost.eq(expectedAll)).toBe(true);
  });
});
