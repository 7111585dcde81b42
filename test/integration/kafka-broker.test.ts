// The Kafka broker the pipeline runs on: kafkajs produces with acks=all from an idempotent
// producer and a consumer group reads exactly what was sent; topics are created idempotently;
// the local broker stops cleanly and keeps its data across a restart.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DLQ_TOPIC, USAGE_EVENTS_TOPIC, createIdempotentProducer, createKafka, ensureTopics } from '../../core/kafka/client.js';
import { findFreePort, isPortFree, startBroker, type RunningBroker } from '../../scripts/kafka/broker.js';

interface Received {
  partition: number;
  offset: string;
  key: string;
  value: string;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs a fresh consumer group over `topic` from the beginning until `count` records arrive,
 * then keeps listening a little longer so an extra record would be seen too. */
async function consume(kafka: Kafka, topic: string, groupId: string, count: number): Promise<Received[]> {
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 500 });
  const got: Received[] = [];
  let reached!: () => void;
  const enough = new Promise<void>((r) => (reached = r));
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        got.push({
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? '',
          value: message.value?.toString() ?? '',
        });
        if (got.length >= count) reached();
      },
    });
    await Promise.race([enough, sleep(60_000)]);
    await sleep(1_500);
  } finally {
    await consumer.disconnect();
  }
  return got;
}

function unique(prefix: string): string {
  return `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
}

const sharedBrokers = inject('kafkaBrokers');

describe.skipIf(!sharedBrokers)('the test run’s broker', () => {
  const kafka = createKafka(sharedBrokers.split(','), 'kafka-broker-test', { logLevel: 'error' });

  it('delivers N keyed records sent with acks=all by an idempotent producer, exactly once, in key order', async () => {
    const topic = unique('kb-produce');
    const groupId = unique('kb-group');
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });

    // 60 records over 4 keys: org-0 gets i = 0, 4, 8, …, 56 (15 records), likewise the others.
    const sent = Array.from({ length: 60 }, (_, i) => ({ key: `org-${i % 4}`, value: `event-${i}` }));
    const producer = createIdempotentProducer(kafka);
    await producer.connect();
    // Several sends, so sequence numbers of the idempotent producer advance across requests.
    for (let i = 0; i < sent.length; i += 20) {
      await producer.send({ topic, acks: -1, messages: sent.slice(i, i + 20) });
    }
    await producer.disconnect();

    const got = await consume(kafka, topic, groupId, sent.length);
    expect(got).toHaveLength(60);
    expect(got.map((r) => r.value).sort()).toEqual(sent.map((m) => m.value).sort());

    for (let k = 0; k < 4; k++) {
      const ofKey = got.filter((r) => r.key === `org-${k}`);
      expect(ofKey).toHaveLength(15);
      // One key, one partition, and the order it was sent in.
      expect(new Set(ofKey.map((r) => r.partition)).size).toBe(1);
      expect(ofKey.map((r) => r.value)).toEqual(Array.from({ length: 15 }, (_, j) => `event-${k + 4 * j}`));
    }

    // The group committed exactly past the 60 records: committed offsets over the partitions add up to 60.
    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
    expect(committed.partitions.reduce((sum, p) => sum + Number(p.offset), 0)).toBe(60);
    await admin.deleteTopics({ topics: [topic] });
    await admin.disconnect();
  });
});

describe('the local broker (scripts/kafka)', () => {
  let tmp: string;
  let dataDir: string;
  let port: number;
  let broker: RunningBroker | undefined;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-kafka-broker-test-'));
    dataDir = path.join(tmp, 'kafka');
    port = await findFreePort();
    broker = await startBroker({ port, dataDir });
  });

  afterAll(async () => {
    await broker?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('ensureTopics creates usage-events with the partitions asked and a one-partition DLQ, idempotently', async () => {
    const kafka = createKafka(broker!.brokers, 'kafka-topics-test', { logLevel: 'error' });
    expect(await ensureTopics(kafka, { partitions: 3 })).toEqual({ [USAGE_EVENTS_TOPIC]: 3, [DLQ_TOPIC]: 1 });
    expect(await ensureTopics(kafka, { partitions: 3 })).toEqual({ [USAGE_EVENTS_TOPIC]: 3, [DLQ_TOPIC]: 1 });
    // Asking for more grows the topic; asking for fewer leaves it (Kafka cannot shrink a topic).
    expect(await ensureTopics(kafka, { partitions: 5 })).toEqual({ [USAGE_EVENTS_TOPIC]: 5, [DLQ_TOPIC]: 1 });
    expect(await ensureTopics(kafka, { partitions: 2 })).toEqual({ [USAGE_EVENTS_TOPIC]: 5, [DLQ_TOPIC]: 1 });
  });

  it('stops completely and keeps its data across a restart on the same data dir', async () => {
    const topic = 'kb-restart';
    const first = broker!;
    let kafka = createKafka(first.brokers, 'kafka-restart-test', { logLevel: 'error' });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    await admin.disconnect();
    const producer = createIdempotentProducer(kafka);
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: [{ key: 'org-a', value: 'before-restart' }] });
    await producer.disconnect();
    const clusterId = fs.readFileSync(path.join(dataDir, 'kraft', 'meta.properties'), 'utf8').match(/cluster\.id=(\S+)/)?.[1];
    expect(clusterId).toMatch(/^[A-Za-z0-9_-]{22}$/);

    await first.stop();
    expect(() => process.kill(first.pid, 0)).toThrow();
    expect(await isPortFree(port)).toBe(true);

    broker = await startBroker({ port, dataDir });
    expect(broker.pid).not.toBe(first.pid);
    // Same storage, not a re-format.
    expect(fs.readFileSync(path.join(dataDir, 'kraft', 'meta.properties'), 'utf8')).toContain(`cluster.id=${clusterId}`);

    kafka = createKafka(broker.brokers, 'kafka-restart-test-2', { logLevel: 'error' });
    const got = await consume(kafka, topic, unique('kb-restart-group'), 1);
    expect(got.map((r) => [r.key, r.value, r.offset])).toEqual([['org-a', 'before-restart', '0']]);
  });
});
