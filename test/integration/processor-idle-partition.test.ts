// A partition that is fully in the lake when a processor starts (the log's end, nothing to fetch)
// still delivers what is produced to it afterwards: the processor seeks it to the lake's next
// offset at load, kafkajs keeps fetching it there, and the new events land once. This was the
// suspected cause of the S3 outage test's stall (docs/open-lake-plan.md); measured, the consumer
// kept fetching every partition at the lake's offset and the events were missing from the lake
// instead. Real broker and registry (inject), PGlite control plane, a temp lake.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ControlDb } from '../../core/control/db.js';
import { createOrganization } from '../../core/control/organizations.js';
import { createKafka } from '../../core/kafka/client.js';
import type { UsageEvent } from '../../schemas/usage-event.js';
import {
  createPrivateTopic,
  lakeEventIdCounts,
  openTestControlDb,
  type RunningProcessor,
  startInProcessProcessor,
  tempLakeDir,
  UsageEventProducer,
  usageEvent,
  waitUntil,
} from '../support/processor-fixtures.js';

const brokers = inject('kafkaBrokers').split(',');
const registryUrl = inject('schemaRegistryUrl');
// Keys spread over both partitions (murmur2 of random ids: with 8 organizations both get some).
const ORGS = 8;

describe('a partition idle at the end of its log when the processor starts', () => {
  let db: ControlDb;
  let lakeDir: string;
  let topic: string;
  let producer: UsageEventProducer;
  const orgs: string[] = [];
  const sent: UsageEvent[] = [];
  const running: RunningProcessor[] = [];
  const groupId = `idle-${randomUUID()}`;

  const startOne = async () => {
    const r = await startInProcessProcessor({
      brokers,
      registryUrl,
      db,
      lakeDir,
      options: { topic, groupId, flushMaxRows: 500, flushMaxDelayMs: 100 },
    });
    running.push(r);
    return r;
  };
  const send = async (label: string) => {
    const batch = orgs.map((org, i) => usageEvent(org, `idle-${label}-${i}`));
    await producer.send(batch);
    sent.push(...batch);
  };
  const inLake = async () => {
    let n = 0;
    for (const org of orgs) for (const count of (await lakeEventIdCounts(lakeDir, org)).values()) n += count;
    return n;
  };

  beforeAll(async () => {
    db = await openTestControlDb();
    for (let i = 0; i < ORGS; i++) orgs.push((await createOrganization(db, { name: `idle-${i}` })).id);
    lakeDir = tempLakeDir('idle-partition');
    const kafka = createKafka(brokers, 'idle-partition-producer', { logLevel: 'error' });
    topic = await createPrivateTopic(kafka, 2);
    producer = await UsageEventProducer.open(kafka, registryUrl, topic);
  });

  afterAll(async () => {
    for (const r of running) await r.stop().catch(() => undefined);
    await producer?.close();
    await db?.close();
    if (lakeDir) fs.rmSync(lakeDir, { recursive: true, force: true });
  });

  it('events produced after the start arrive within seconds, each once', async () => {
    const first = await startOne();
    await send('before');
    await waitUntil('the first events in the lake', async () => (await inLake()) === sent.length, 30_000, 100);
    await first.stop();

    // Both partitions are at the end of their log: the new processor seeks each to it and idles.
    const second = await startOne();
    await waitUntil('both partitions assigned', async () => second.processor.partitions.length === 2, 30_000, 100);
    await new Promise((r) => setTimeout(r, 1_500));
    await send('after');
    await waitUntil('the later events in the lake', async () => (await inLake()) >= sent.length, 15_000, 100);
    expect(await inLake()).toBe(sent.length);
    for (const org of orgs) expect([...(await lakeEventIdCounts(lakeDir, org)).values()]).toEqual([1, 1]);
  });
});
