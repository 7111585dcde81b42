// Scaling by partitions: two processors in one consumer group split the partitions of a topic
// shaped like usage-events (private to this test) between them; when one stops mid-stream the other takes its partitions over (and a third
// joining later splits them again), and the lake still holds every event exactly once with the
// exact expected cost. The processors run in this process, each with its own Kafka client, lake
// writer and DuckDB, over one lake directory — as separate machines would over shared storage.
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

// Hand-written rates (USD per million) of the one card every organization has.
const RATE = { input: '1.25', output: '5' };
const ORGS = 8;

const expectedCost = (e: UsageEvent): Big => inputOutputCost(e, RATE);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('processor rebalance', () => {
  let db: ControlDb;
  const orgs: string[] = [];
  let lakeDir: string;
  let producer: UsageEventProducer;
  const running: RunningProcessor[] = [];
  const groupId = `rebalance-${randomUUID()}`;
  let topic: string;

  const startOne = async () => {
    const r = await startInProcessProcessor({
      brokers,
      registryUrl,
      db,
      lakeDir,
      options: { topic, groupId, flushMaxRows: 500, flushMaxDelayMs: 150 },
    });
    running.push(r);
    return r;
  };

  beforeAll(async () => {
    db = await openTestControlDb();
    for (let i = 0; i < ORGS; i++) {
      const org = (await createOrganization(db, { name: `rebalance-${i}` })).id;
      await createInputOutputCard(db, org, 'rb-model', RATE);
      orgs.push(org);
    }
    lakeDir = tempLakeDir('rebalance');
    const kafka = createKafka(brokers, 'rebalance-test-producer', { logLevel: 'error' });
    topic = await createPrivateTopic(kafka, 4);
    producer = await UsageEventProducer.open(kafka, registryUrl, topic);
  });

  afterAll(async () => {
    for (const r of running) await r.stop().catch(() => undefined);
    await producer?.close();
    await db?.close();
    if (lakeDir) fs.rmSync(lakeDir, { recursive: true, force: true });
  });

  it('splits partitions, hands them over mid-stream, and stores every event once', async () => {
    const sent: UsageEvent[] = [];
    let producing = true;
    const production = (async () => {
      for (let round = 0; producing; round++) {
        const batch = Array.from({ length: 80 }, (_, j) => {
          const n = round * 80 + j;
          return usageEvent(orgs[n % ORGS]!, `rb-${n}`, {
            model: 'rb-model',
            input_tokens: 200 + (n % 613),
            output_tokens: 20 + (n % 71),
            timestamp: new Date(Date.UTC(2025, 5, 3, 9, 0, n % 60)),
          });
        });
        await producer.send(batch);
        sent.push(...batch);
        await sleep(100);
      }
    })();

    const a = await startOne();
    await waitUntil('A owns every partition', async () => a.processor.partitions.length >= 4, 60_000);
    await sleep(1_500);

    // Read before B starts: B's start returns once its join completed, and by then A may already
    // hold only its share (the predicate below could never hold with that as "all").
    const allPartitions = a.processor.partitions;
    const b = await startOne();
    // Each member learns its share when it rejoins; once both have, the shares are disjoint and
    // cover the topic.
    const splitBetween = (x: RunningProcessor, y: RunningProcessor) => async () => {
      const px = x.processor.partitions;
      const py = y.processor.partitions;
      return px.length > 0 && py.length > 0 && px.every((p) => !py.includes(p)) && px.length + py.length === allPartitions.length;
    };
    await waitUntil('A and B split the partitions', splitBetween(a, b), 120_000);
    await sleep(2_000);

    // A leaves mid-stream; B takes over everything.
    await a.stop();
    running.splice(running.indexOf(a), 1);
    await waitUntil('B owns every partition', async () => b.processor.partitions.length === allPartitions.length, 60_000);
    await sleep(1_500);

    // A third member joins and the partitions split again.
    const c = await startOne();
    await waitUntil('B and C split the partitions', splitBetween(b, c), 120_000);
    await sleep(1_500);

    producing = false;
    await production;
    const total = async () => {
      let n = 0;
      for (const org of orgs) n += (await lakeTotals(lakeDir, org)).rows;
      return n;
    };
    await waitUntil(`all ${sent.length} events in the lake`, async () => (await total()) >= sent.length, 60_000, 500);
    for (const r of [...running]) await r.stop();
    running.length = 0;

    for (const org of orgs) {
      const mine = sent.filter((e) => e.organization_id === org);
      const expected = mine.reduce((s, e) => s.plus(expectedCost(e)), new Big(0));
      const totals = await lakeTotals(lakeDir, org);
      expect(totals.rows).toBe(mine.length);
      expect(totals.distinctEvents).toBe(mine.length);
      expect(totals.byStatus).toEqual({ completed: mine.length });
      expect(new Big(totals.totalCost).eq(expected)).toBe(true);
      expect(totals.rollupEvents).toBe(mine.length);
      expect(new Big(totals.rollupCost).eq(expected)).toBe(true);
      const ids = await lakeEventIdCounts(lakeDir, org);
      for (const e of mine) expect(ids.get(e.event_id)).toBe(1);
    }
  }, 360_000); // rebalances wait on heartbeats; slow on a loaded 2-core machine
});
