// A record that would poison its partition must not stall it (issue 16). The case puts the record
// on a private one-partition topic directly (ingest refuses it), between valid events of two
// organizations sharing the partition; the record goes to usage-events.dlq untouched with its
// reason, its organization gets a `failed` stand-in row, it is counted in
// marginal_processor_dead_letters_total, and every other event of the partition reaches the lake
// exactly once, priced by hand below.
//   - An event timestamped in year 0: outside ingest's event-time range, so the processor refuses
//     it before the lake (reason `event_time_out_of_range`). Before that rule the manifest lake
//     refused the write (DuckDB files it under date=0001-01-01 (BC)) and DuckLake stored it as a
//     year-0000 row, pending a card, that no window reads.
// The manifest lake's case of a record the lake refuses to write (`lake_write_refused`, provoked
// through its file layout) went with that format (decision 0158): no record is known that DuckLake
// alone refuses; the narrowing itself is processor/partition-worker.ts's.
// Real broker and registry (inject), PGlite control plane, a DuckLake in a temp folder with its
// catalog in the test PostgreSQL.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createKafka } from '../../core/kafka/client.js';
import { openControlDb, type ControlDb } from '../../core/control/db.js';
import { migrate } from '../../core/control/migrate.js';
import { createOrganization } from '../../core/control/organizations.js';
import { registry } from '../../core/metrics.js';
import { Big } from '../../core/money.js';
import { createRateCard } from '../../pricing/rate-cards.store.js';
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
import { deadLettersOf } from '../support/dead-letters.js';

const brokers = inject('kafkaBrokers').split(',');
const registryUrl = inject('schemaRegistryUrl');

async function deadLettersCounted(reason: string): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'marginal_processor_dead_letters_total');
  return metric?.values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

describe('processor: a record that would poison its partition', () => {
  let db: ControlDb;
  let victim: string;
  let neighbour: string;
  let kafka: Kafka;
  const lakeDirs: string[] = [];
  const cleanups: Array<() => Promise<void>> = [];

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
    kafka = createKafka(brokers, 'processor-poison-producer', { logLevel: 'error' });
  });

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await db?.close();
    for (const dir of lakeDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  const at = new Date('2026-03-10T12:00:00Z');
  const tokens = { model: 'basic-model', input_tokens: 1000, output_tokens: 100, timestamp: at, received_at: at };

  /**
   * Three neighbour events, the poison record (offset 3), then one victim and one neighbour event,
   * through a processor on a fresh lake; the lake's totals
   * are asserted here, the dead letters returned.
   */
  async function runWithPoison(label: string, poisonFields: Parameters<typeof usageEvent>[2], reason: string) {
    const lakeDir = tempLakeDir(`processor-poison-${label}`);
    lakeDirs.push(lakeDir);
    const topic = await createPrivateTopic(kafka, 1);
    const producer = await UsageEventProducer.open(kafka, registryUrl, topic);
    cleanups.push(() => producer.close());
    const before = [1, 2, 3].map((i) => usageEvent(neighbour, `before-${i}`, tokens));
    const poison = usageEvent(victim, `poison-${label}`, { ...tokens, ...poisonFields });
    const after = [1, 2].map((i) => usageEvent(i === 1 ? victim : neighbour, `after-${i}`, tokens));
    await producer.send([...before, poison, ...after]);
    const lettersBefore = await deadLettersCounted(reason);

    const running: RunningProcessor = await startInProcessProcessor({
      brokers,
      registryUrl,
      db,
      lakeDir,
      partitions: 1,
      options: { topic, groupId: `poison-${randomUUID()}`, flushMaxDelayMs: 100 },
    });
    cleanups.push(() => running.stop());

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
    expect(await deadLettersCounted(reason)).toBe(lettersBefore + 1);

    // The record itself, untouched, is in the DLQ with where it came from and why.
    return deadLettersOf(brokers, topic, 1);
  }

  it("refuses an event timestamped in year 0 (outside ingest's range) before the lake, and the rest of the partition flows", async () => {
    const letters = await runWithPoison('year-zero', { timestamp: new Date('0000-01-01T00:00:00Z') }, 'event_time_out_of_range');
    expect(letters.map((l) => [l.key, l.reason, l.offset])).toEqual([[victim, 'event_time_out_of_range', '3']]);
    expect(letters[0]!.detail).toBe('timestamp 0000-01-01T00:00:00.000Z is outside [2000-01-01T00:00:00.000Z, 2100-01-01T00:00:00.000Z)');
  });
});
