// The pipeline's Kafka topics and their idempotent creation. `usage-events` is keyed by
// organization_id, so its partition count bounds processor parallelism; undecodable records go
// to the single-partition `usage-events.dlq`.
import type { Kafka } from 'kafkajs';
import { loadConfig } from '../config.js';

export const USAGE_EVENTS_TOPIC = 'usage-events';
export const DLQ_TOPIC = 'usage-events.dlq';

export interface EnsureTopicsOptions {
  /** Partitions of `usage-events`; default Config.topicPartitions (KAFKA_TOPIC_PARTITIONS). */
  partitions?: number;
}

/**
 * Creates `usage-events` and `usage-events.dlq` when missing, and grows `usage-events` when it
 * has fewer partitions than asked (Kafka cannot shrink a topic, so more are left alone).
 * Safe to call at every start and from several processes at once. Returns the partition count
 * of each topic afterwards.
 */
export async function ensureTopics(kafka: Kafka, opts: EnsureTopicsOptions = {}): Promise<Record<string, number>> {
  const partitions = opts.partitions ?? loadConfig().topicPartitions;
  if (!Number.isInteger(partitions) || partitions < 1) {
    throw new Error(`usage-events partitions must be an integer >= 1, got ${partitions}`);
  }
  const wanted = new Map([
    [USAGE_EVENTS_TOPIC, partitions],
    [DLQ_TOPIC, 1],
  ]);

  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = [...wanted].filter(([topic]) => !existing.has(topic));
    if (missing.length > 0) {
      // No replicationFactor: the broker's default.replication.factor applies (1 on the local
      // broker, the cluster's own setting elsewhere). A concurrent creator's win returns false.
      await admin.createTopics({
        topics: missing.map(([topic, numPartitions]) => ({ topic, numPartitions })),
        waitForLeaders: true,
      });
    }

    const counts = await partitionCounts(kafka, [...wanted.keys()]);
    const have = counts[USAGE_EVENTS_TOPIC];
    if (have < partitions) {
      try {
        await admin.createPartitions({ topicPartitions: [{ topic: USAGE_EVENTS_TOPIC, count: partitions }] });
      } catch (e) {
        // Another process grew it first; the re-read below says whether it reached the count.
        if ((e as { type?: string }).type !== 'INVALID_PARTITIONS') throw e;
      }
      return await waitForPartitions(kafka, [...wanted.keys()], USAGE_EVENTS_TOPIC, partitions);
    }
    return counts;
  } finally {
    await admin.disconnect();
  }
}

/** Partition count of each topic, read from fresh metadata. */
export async function partitionCounts(kafka: Kafka, topics: string[]): Promise<Record<string, number>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { topics: meta } = await admin.fetchTopicMetadata({ topics });
    return Object.fromEntries(meta.map((t) => [t.name, t.partitions.length]));
  } finally {
    await admin.disconnect();
  }
}

async function waitForPartitions(kafka: Kafka, topics: string[], topic: string, count: number): Promise<Record<string, number>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const counts = await partitionCounts(kafka, topics);
    if (counts[topic] >= count) return counts;
    if (Date.now() > deadline) throw new Error(`${topic} still has ${counts[topic]} partitions, wanted ${count}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
