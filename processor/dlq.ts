// The dead-letter queue: records of usage-events that can never be stored as events (undecodable
// bytes, an organization id the lake cannot file, or a record the lake refused to write after
// bounded attempts, see partition-worker.ts) are copied, key and value untouched, to
// usage-events.dlq with headers saying where they came from and why. A dead letter is sent
// before the flush that moves the partition past it, so a crash can repeat a dead letter but
// never lose one; readers of the DLQ de-duplicate on (source partition, source offset).
import type { Kafka, Producer } from 'kafkajs';
import { DLQ_TOPIC, createIdempotentProducer } from '../core/kafka/client.js';

export interface DeadLetter {
  key: Buffer | null;
  value: Buffer | null;
  sourceTopic: string;
  sourcePartition: number;
  sourceOffset: number;
  /** Kafka timestamp of the source record, epoch ms as a string. */
  sourceTimestamp: string;
  /** Short machine-readable cause, e.g. 'bad_magic_byte', 'invalid_organization_id' or 'lake_write_refused'. */
  reason: string;
  detail: string;
}

export const DLQ_HEADERS = {
  reason: 'marginal-dlq-reason',
  detail: 'marginal-dlq-detail',
  topic: 'marginal-source-topic',
  partition: 'marginal-source-partition',
  offset: 'marginal-source-offset',
  timestamp: 'marginal-source-timestamp',
} as const;

export class DeadLetterQueue {
  private constructor(private readonly producer: Producer) {}

  static async open(kafka: Kafka): Promise<DeadLetterQueue> {
    const producer = createIdempotentProducer(kafka);
    await producer.connect();
    return new DeadLetterQueue(producer);
  }

  /** Resolves once the broker has every letter (acks=all). */
  async send(letters: readonly DeadLetter[]): Promise<void> {
    if (letters.length === 0) return;
    await this.producer.send({
      topic: DLQ_TOPIC,
      acks: -1,
      messages: letters.map((l) => ({
        key: l.key,
        value: l.value,
        headers: {
          [DLQ_HEADERS.reason]: l.reason,
          [DLQ_HEADERS.detail]: l.detail.slice(0, 1000),
          [DLQ_HEADERS.topic]: l.sourceTopic,
          [DLQ_HEADERS.partition]: String(l.sourcePartition),
          [DLQ_HEADERS.offset]: String(l.sourceOffset),
          [DLQ_HEADERS.timestamp]: l.sourceTimestamp,
        },
      })),
    });
  }

  async close(): Promise<void> {
    await this.producer.disconnect();
  }
}
