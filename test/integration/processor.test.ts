// The processor end to end on one partition set: each kind of record lands in the lake with the
// status and cost worked out by hand — a token event priced by the organization's card, a metric
// event priced per unit, a cost_override, a model without a card (pending_rate_card), an event
// with values the lake cannot hold (failed, with its reason), bytes that are not Avro (DLQ and a
// failed row for the key's organization), an organization id that is not a UUID (DLQ only) — a
// re-published event is stored once, and a restarted processor continues where the lake ends.
// Real broker and registry (inject), PGlite control plane, real DuckDB/Parquet in a temp lake;
// records go to a private topic so the malformed ones reach no other test's consumer.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createKafka } from '../../core/kafka/client.js';
import type { ControlDb } from '../../core/control/db.js';
import { createOrganization } from '../../core/control/organizations.js';
import { createUnitRate } from '../../pricing/rate-cards.store.js';
import { registry } from '../../core/metrics.js';
import { Big } from '../../core/money.js';
import {
  UsageEventProducer,
  openTestControlDb,
  createInputOutputCard,
  createPrivateTopic,
  lakeEventRows,
  lakeTotals,
  startInProcessProcessor,
  tempLakeDir,
  usageEvent,
  waitUntil,
  type RunningProcessor,
} from '../support/processor-fixtures.js';
import { deadLettersOf } from '../support/dead-letters.js';

const brokers = inject('kafkaBrokers').split(',');
const registryUrl = inject('schemaRegistryUrl');

interface StoredRow {
  idempotency_key: string;
  status: string;
  status_reason: string | null;
  total_cost: string;
}

async function storedRows(lakeDir: string, org: string): Promise<Map<string, StoredRow>> {
  const rows = (await lakeEventRows(
    lakeDir,
    org,
    'idempotency_key, status, status_reason, CAST(total_cost AS VARCHAR) AS total_cost',
  )) as unknown as StoredRow[];
  return new Map(rows.map((r) => [r.idempotency_key, r]));
}

describe('processor', () => {
  let db: ControlDb;
  let org: string;
  let topic: string;
  let lakeDir: string;
  let producer: UsageEventProducer;
  let running: RunningProcessor | null = null;
  const groupId = `processor-${randomUUID()}`;

  const start = async () => {
    running = await startInProcessProcessor({ brokers, registryUrl, db, lakeDir, options: { topic, groupId, flushMaxDelayMs: 150 } });
    return running;
  };

  beforeAll(async () => {
    db = await openTestControlDb();
    org = (await createOrganization(db, { name: 'processor' })).id;
    await createInputOutputCard(db, org, 'basic-model', { input: '2', output: '8' });
    await createUnitRate(db, org, { provider: 'acme-tts', metric: 'characters', unit: 'char', costPerUnit: '0.00002' });
    lakeDir = tempLakeDir('processor');
    const kafka = createKafka(brokers, 'processor-test-producer', { logLevel: 'error' });
    topic = await createPrivateTopic(kafka, 2);
    producer = await UsageEventProducer.open(kafka, registryUrl, topic);
    await start();
  });

  afterAll(async () => {
    await running?.stop();
    await producer?.close();
    await db?.close();
    if (lakeDir) fs.rmSync(lakeDir, { recursive: true, force: true });
  });

  it('stores each kind of record with its status and hand-computed cost; bad records go to the DLQ', async () => {
    const token = usageEvent(org, 'tok-1', { model: 'basic-model-v2', input_tokens: 1000, output_tokens: 500 });
    const metric = usageEvent(org, 'unit-1', {
      model: null,
      provider: 'acme-tts',
      metric: 'characters',
      unit: 'char',
      quantity: 12345,
      input_tokens: null,
      output_tokens: null,
    });
    const override = usageEvent(org, 'ovr-1', { model: 'nobody-model', cost_override: '0.75' });
    const pending = usageEvent(org, 'pend-1', { model: 'nobody-model' });
    const invalid = usageEvent(org, 'bad-1', { model: 'basic-model', input_tokens: -5 });
    const notUuid = { ...usageEvent(org, 'x-1'), organization_id: 'not-a-uuid' };
    await producer.send([token, metric, override, pending, invalid, notUuid]);
    await producer.send([token]); // a re-publish (ingest's sweeper): same event_id
    await producer.sendRaw([
      { key: org, value: Buffer.from('definitely not avro') },
      { key: 'garbage-key', value: Buffer.from([0, 0, 0, 0]) },
    ]);

    await waitUntil('six rows of the organization', async () => (await lakeTotals(lakeDir, org)).rows >= 6, 30_000);
    await new Promise((r) => setTimeout(r, 500)); // a duplicate would have landed by now

    const totals = await lakeTotals(lakeDir, org);
    // 1000 × 2/1e6 + 500 × 8/1e6 = 0.006; 12345 × 0.00002 = 0.2469; override 0.75
    expect(new Big(totals.totalCost).eq('1.0029')).toBe(true);
    expect(totals.rows).toBe(6);
    expect(totals.distinctEvents).toBe(6);
    expect(totals.byStatus).toEqual({ completed: 3, pending_rate_card: 1, failed: 2 });
    expect(totals.rollupEvents).toBe(6);
    expect(new Big(totals.rollupCost).eq('1.0029')).toBe(true);

    const rows = await storedRows(lakeDir, org);
    expect(rows.get('tok-1')).toMatchObject({ status: 'completed', status_reason: null, total_cost: '0.006000000000' });
    expect(rows.get('unit-1')).toMatchObject({ status: 'completed', total_cost: '0.246900000000' });
    expect(rows.get('ovr-1')).toMatchObject({ status: 'completed', total_cost: '0.750000000000' });
    expect(rows.get('pend-1')).toMatchObject({ status: 'pending_rate_card', total_cost: '0.000000000000' });
    expect(rows.get('pend-1')!.status_reason).toContain('no rate card for model "nobody-model"');
    expect(rows.get('bad-1')).toMatchObject({
      status: 'failed',
      status_reason: 'invalid values: input_tokens',
      total_cost: '0.000000000000',
    });
    const undecodable = [...rows.values()].find((r) => r.idempotency_key.startsWith('undecodable:'))!;
    expect(undecodable.status).toBe('failed');
    expect(undecodable.status_reason).toContain('bad_magic_byte');

    // The DLQ holds the three records no event could be made of, untouched, with their origin.
    const letters = await deadLettersOf(brokers, topic, 3);
    expect(letters.map((l) => `${l.key}:${l.reason}`).sort()).toEqual(
      [`${org}:bad_magic_byte`, 'garbage-key:too_short', 'not-a-uuid:invalid_organization_id'].sort(),
    );
    expect(letters.find((l) => l.key === org)!.value!.toString()).toBe('definitely not avro');

    const metrics = await registry.getMetricsAsJSON();
    const flushes = metrics.find((m) => m.name === 'marginal_processor_flush_duration_seconds')!;
    const count = flushes.values.find(
      (v) => (v as { metricName?: string }).metricName === 'marginal_processor_flush_duration_seconds_count',
    );
    expect(count!.value).toBeGreaterThan(0);
    const lag = metrics.find((m) => m.name === 'marginal_processor_consumer_lag')!;
    expect(lag.values.length).toBeGreaterThan(0);
    expect(lag.values.every((v) => v.value === 0)).toBe(true);
  });

  it('a restarted processor continues where the lake ends', async () => {
    await running!.stop();
    running = null;
    const after = usageEvent(org, 'after-restart', { model: 'basic-model', input_tokens: 250, output_tokens: 125 });
    await producer.send([after]);
    await start();
    await waitUntil('the new event', async () => (await lakeTotals(lakeDir, org)).rows >= 7, 30_000);
    await new Promise((r) => setTimeout(r, 500));
    const totals = await lakeTotals(lakeDir, org);
    expect(totals.rows).toBe(7);
    expect(totals.distinctEvents).toBe(7);
    // + 250 × 2/1e6 + 125 × 8/1e6 = 0.0005 + 0.001
    expect(new Big(totals.totalCost).eq('1.0044')).toBe(true);
  });
});
