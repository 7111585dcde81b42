// Re-pricing: events for a model without a rate card are stored pending_rate_card; once the
// organization creates a card for it, the processor re-prices them in the lake within seconds and
// they become completed with the cost the card gives — no event lost or counted twice, in the
// events table and in the daily rollup alike, even while new events keep arriving.
// Real broker and registry (inject), PGlite control plane, real DuckDB/Parquet in a temp lake.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createKafka } from '../../core/kafka/client.js';
import type { ControlDb } from '../../core/control/db.js';
import { createOrganization } from '../../core/control/organizations.js';
import { Big } from '../../core/money.js';
import type { UsageEvent } from '../../schemas/usage-event.js';
import {
  UsageEventProducer,
  openTestControlDb,
  createInputOutputCard,
  inputOutputCost,
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

// Hand-written rates (USD per million tokens) of the card the test creates, and of a card that
// exists from the start. Token counts below keep every class cost within 12 decimals, so the
// expected sums need no rounding.
const ZETA = { input: '3', output: '15' }; // card "zeta-model" created mid-test
const KNOWN = { input: '0.5', output: '1.5' }; // card "known-model" present from the start

const cost = inputOutputCost;

describe('processor re-pricing', () => {
  let db: ControlDb;
  let org: string;
  let lakeDir: string;
  let producer: UsageEventProducer;
  let running: RunningProcessor;

  beforeAll(async () => {
    db = await openTestControlDb();
    org = (await createOrganization(db, { name: 'repricing' })).id;
    await createInputOutputCard(db, org, 'known-model', KNOWN);
    lakeDir = tempLakeDir('repricing');
    const kafka = createKafka(brokers, 'repricing-test-producer', { logLevel: 'error' });
    const topic = await createPrivateTopic(kafka);
    producer = await UsageEventProducer.open(kafka, registryUrl, topic);
    running = await startInProcessProcessor({
      brokers,
      registryUrl,
      db,
      lakeDir,
      options: { topic, groupId: `repricing-${randomUUID()}`, flushMaxDelayMs: 200, repricingIntervalMs: 250 },
    });
  });

  afterAll(async () => {
    await running?.stop();
    await producer?.close();
    await db?.close();
    if (lakeDir) fs.rmSync(lakeDir, { recursive: true, force: true });
  });

  it('turns pending_rate_card events into completed ones with the new card, counting each once', async () => {
    const day = (i: number) => new Date(Date.UTC(2025, 5, 1 + (i % 3), 8, 0, i % 60)); // three UTC dates
    const pending = Array.from({ length: 120 }, (_, i) =>
      usageEvent(org, `zeta-${i}`, {
        model: i % 2 ? 'zeta-model-large' : 'zeta-model-small',
        input_tokens: 1000 + i,
        output_tokens: 100 + i,
        timestamp: day(i),
      }),
    );
    const known = Array.from({ length: 40 }, (_, i) =>
      usageEvent(org, `known-${i}`, { model: 'known-model', input_tokens: 2000 + i, output_tokens: 300 + i, timestamp: day(i) }),
    );
    await producer.send([...pending, ...known]);

    await waitUntil('all 160 events in the lake', async () => (await lakeTotals(lakeDir, org)).rows === 160);
    const before = await lakeTotals(lakeDir, org);
    expect(before.byStatus).toEqual({ pending_rate_card: 120, completed: 40 });
    const knownCost = known.reduce((s, e) => s.plus(cost(e, KNOWN)), new Big(0));
    expect(new Big(before.totalCost).eq(knownCost)).toBe(true);

    // New events keep arriving while the card is created: some are priced before the processor
    // sees the card, some after; all must end up completed, once.
    const late: UsageEvent[] = [];
    let stopSending = false;
    const sending = (async () => {
      for (let i = 0; !stopSending; i++) {
        const batch = Array.from({ length: 10 }, (_, j) =>
          usageEvent(org, `late-${i}-${j}`, { model: 'zeta-model-large', input_tokens: 500 + j, output_tokens: 50 + i, timestamp: day(j) }),
        );
        late.push(...batch);
        await producer.send(batch);
        await new Promise((r) => setTimeout(r, 40));
      }
    })();
    await new Promise((r) => setTimeout(r, 500));

    const cardCreatedAt = Date.now();
    await createInputOutputCard(db, org, 'zeta-model', ZETA);
    await new Promise((r) => setTimeout(r, 1_000));
    stopSending = true;
    await sending;

    const all = 160 + late.length;
    await waitUntil(
      'every event completed',
      async () => {
        const t = await lakeTotals(lakeDir, org);
        return t.rows === all && t.byStatus.completed === all;
      },
      20_000,
    );
    const repricedWithin = Date.now() - cardCreatedAt;
    expect(repricedWithin).toBeLessThan(10_000);

    const expected = [...pending, ...late].reduce((s, e) => s.plus(cost(e, ZETA)), knownCost);
    const after = await lakeTotals(lakeDir, org);
    expect(after.rows).toBe(all);
    expect(after.distinctEvents).toBe(all);
    expect(after.byStatus).toEqual({ completed: all });
    expect(new Big(after.totalCost).eq(expected)).toBe(true);
    expect(after.rollupEvents).toBe(all);
    expect(new Big(after.rollupCost).eq(expected)).toBe(true);

    const ids = await lakeEventIdCounts(lakeDir, org);
    expect(ids.size).toBe(all);
    expect([...ids.values()].every((n) => n === 1)).toBe(true);
    for (const e of [...pending, ...known, ...late]) expect(ids.has(e.event_id)).toBe(true);
  });
});
