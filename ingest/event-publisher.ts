// Puts encoded usage events on the `usage-events` topic (key = organization id, acks=all through
// the idempotent producer). A group is sent in chunks that stay under the broker's default
// 1 MB record-batch limit; publish resolves only when every chunk is acknowledged.
import type { Producer } from 'kafkajs';
import { USAGE_EVENTS_TOPIC } from '../core/kafka/client.js';

export interface PublishRecord {
  /** The organization id: one organization's events share a partition. */
  key: string;
  /** Avro in Confluent framing. */
  value: Buffer;
}

export interface EventPublisher {
  publish(records: PublishRecord[]): Promise<void>;
}

/** Bytes per send; kafkajs puts one partition's messages of a send in one record batch. */
const MAX_SEND_BYTES = 512 * 1024;

export class KafkaEventPublisher implements EventPublisher {
  constructor(
    private readonly producer: Producer,
    private readonly topic = USAGE_EVENTS_TOPIC,
    private readonly maxSendBytes = MAX_SEND_BYTES,
  ) {}

  async publish(records: PublishRecord[]): Promise<void> {
    let chunk: PublishRecord[] = [];
    let bytes = 0;
    for (const r of records) {
      const size = r.value.length + r.key.length + 64;
      if (chunk.length > 0 && bytes + size > this.maxSendBytes) {
        await this.send(chunk);
        chunk = [];
        bytes = 0;
      }
      chunk.push(r);
      bytes += size;
    }
    if (chunk.length > 0) await this.send(chunk);
  }

  private async send(records: PublishRecord[]): Promise<void> {
    await this.producer.send({ topic: this.topic, acks: -1, messages: records.map((r) => ({ key: r.key, value: r.value })) });
  }
}
