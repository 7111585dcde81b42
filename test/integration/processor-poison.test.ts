// A record the lake writer refuses must not stall its partition (issue 16). An event timestamped
// in year 0 decodes and prices, but no lake write of it succeeds (DuckDB files it under
// date=0001-01-01 (BC)); ingest now refuses such a timestamp, so the record is put on the topic
// directly, between valid events of two organizations sharing the partition. After a bounded
// number of attempts the processor narrows the refused batch down to that record, copies it to
// usage-events.dlq with reason `lake_write_refused`, stores a `failed` stand-in row for its
// organization, counts it in marginal_processor_dead_letters_total, and every other event of the
// partition reaches the lake exactly once, priced by hand below.
// Real broker and registry (inject), PGlite control plane, real DuckDB/Parquet in a temp lake,
// a private one-partition topic.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DLQ_TOPIC, createKafka } from '../../core/kafka/client.js';
import { openControlDb, type ControlDb } from '../../core/control/db.js';
import { migrate } from '../../core/control/migrate.js';
import { createOrganization } from '../../core/control/organizations.js';
import { registry } from '../../core/metrics.js';
import { Big } from '../../core/money.js';
import { createRateCard } from '../../pricing/rate-cards.store.js';
import { DLQ_HEADERS } from '../../processor/dlq.js';
import {
  UsageEventProducer,
  createPrivateTopic,
  lakeEventIdCounts,
  lakeTotals,
  startInProcessProcessor,
  tempLakeDir,
  usageEvent,
  waitUntil,
  type RunningProcessor,
} from '../support/processor-fixtures.js';

const brokers = inject('kafkaBrokers').split(',');
const registryUrl = inject('schemaRegistryUrl');

async function deadLettersCounted(reason: string): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'marginal_processor_dead_letters_total');
  return metric?.values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

describe('processor: a record the lake refuses', () => {
  let db: ControlDb;
  let victim: string;
  let neighbour: string;
  let topic: string;
  let lakeDir: string;
  let producer: UsageEventProducer;
  let running: RunningProcessor | null = null;

  beforeAll(async () => {
    db = await openControlDb({ databaseUrl: null, pgliteDir: null });
    await migrate(db);
    victim = (await createOrganization(db, { name: 'poisoned' })).id;
    neighbour = (await createOrganization(db, { name: 'neighbour' })).id;
    for (const org of [victim, neighbour]) {
      await createRateCard(db, org, {
        modelSlug: 'basic-model',
        inputCostPerMillion: '2',
        outputCostPerMillion: '8',
        cacheCreationCostPerMillion: null,
        cacheReadCostPerMillion: null,
        reasoningCostPerMillion: null,
        effectiveFrom: new Date('2024-01-01T00:00:00Z'),
      });
    }
    lakeDir = tempLakeDir('processor-poison');
    const kafka = createKafka(brokers, 'processor-poison-producer', { logLevel: 'error' });
    topic = await createPrivateTopic(kafka, 1);
    producer = await UsageEventProducer.open(kafka, registryUrl, topic);
  });

  afterAll(async () => {
    await running?.stop();
    await producer?.close();
    await db?.close();
    if (lakeDir) fs.rmSync(lakeDir, { recursive: true, force: true });
  });

  it('is dead-lettered with its reason after bounded attempts, and the rest of the partition flows', async () => {
    const at = new Date('2026-03-10T12:00:00Z');
    const tokens = { model: 'basic-model', input_tokens: 1000, output_tokens: 100, timestamp: at, received_at: at };
    const yearZero = new Date('0000-01-01T00:00:00Z');
    const before = [1, 2, 3].map((i) => usageEvent(neighbour, `before-${i}`, tokens));
    const poison = usageEvent(victim, 'year-zero', { ...tokens, timestamp: yearZero });
    const after = [1, 2].map((i) => usageEvent(i === 1 ? victim : neighbour, `after-${i}`, tokens));
    await producer.send([...before, poison, ...after]);
    const lettersBefore = await deadLettersCounted('lake_write_refused');

    running = await startInProcessProcessor({
      brokers,
      registryUrl,
      db,
      lakeDir,
      partitions: 1,
      options: { topic, groupId: `poison-${randomUUID()}`, flushMaxDelayMs: 100 },
    });

    // Each event costs 1000 × 2/1e6 + 100 × 8/1e6 = 0.0028.
    await waitUntil("the neighbour's four events", async () => (await lakeTotals(lakeDir, neighbour)).rows >= 4, 90_000);
    await waitUntil("the victim's valid event and stand-in", async () => (await lakeTotals(lakeDir, victim)).rows >= 2, 30_000);
    await new Promise((r) => setTimeout(r, 500));

    const n = await lakeTotals(lakeDir, neighbour);
    expect(n.rows).toBe(4);
    expect(n.byStatus).toEqual({ completed: 4 });
    expect(new Big(n.totalCost).eq('0.0112')).toBe(true);
    expect([...(await lakeEventIdCounts(lakeDir, neighbour)).values()].every((c) => c === 1)).toBe(true);

    const v = await lakeTotals(lakeDir, victim);
    expect(v.rows).toBe(2);
    expect(v.byStatus).toEqual({ completed: 1, failed: 1 });
    expect(new Big(v.totalCost).eq('0.0028')).toBe(true);
    expect(await deadLettersCounted('lake_write_refused')).toBe(lettersBefore + 1);

    // The record itself, untouched, is in the DLQ with where it came from and why.
    const dlqKafka = new Kafka({ clientId: 'processor-poison-dlq', brokers, logLevel: logLevel.NOTHING });
    const consumer = dlqKafka.consumer({ groupId: `processor-poison-dlq-${randomUUID()}` });
    const letters: Array<{ key: string | null; reason: string; offset: string; detail: string }> = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: DLQ_TOPIC, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          if (message.headers?.[DLQ_HEADERS.topic]?.toString() !== topic) return;
          letters.push({
            key: message.key?.toString() ?? null,
            reason: message.headers[DLQ_HEADERS.reason]!.toString(),
            offset: message.headers[DLQ_HEADERS.offset]!.toString(),
            detail: message.headers[DLQ_HEADERS.detail]!.toString(),
          });
        },
      });
      await waitUntil('the dead letter', async () => letters.length >= 1, 30_000);
    } finally {
      await consumer.disconnect();
    }
    expect(letters.map((l) => [l.key, l.reason, l.offset])).toEqual([[victim, 'lake_write_refused', '3']]);
    expect(letters[0]!.detail.length).toBeGreaterThan(0);
  });
});
