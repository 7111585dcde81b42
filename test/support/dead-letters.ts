// The dead-letter topic as the tests read it: the letters copied from one source topic (the DLQ is
// shared by every test topic), read from the beginning by a fresh consumer group.
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { DLQ_TOPIC } from '../../core/kafka/client.js';
import { DLQ_HEADERS } from '../../processor/dlq.js';
import { waitUntil } from './processor-fixtures.js';

export interface DeadLetter {
  key: string | null;
  /** The record as it came, untouched. */
  value: Buffer | null;
  reason: string;
  /** The source record's offset and the reason's detail (headers). */
  offset: string;
  detail: string;
}

/** The dead letters copied from `topic`, once at least `count` are there (30 s at most). */
export async function deadLettersOf(brokers: string[], topic: string, count: number): Promise<DeadLetter[]> {
  const kafka = new Kafka({ clientId: 'test-dead-letters', brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `test-dead-letters-${randomUUID()}` });
  const letters: DeadLetter[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: DLQ_TOPIC, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const header = (name: string) => message.headers?.[name]?.toString() ?? '';
        if (header(DLQ_HEADERS.topic) !== topic) return;
        letters.push({
          key: message.key?.toString() ?? null,
          value: message.value,
          reason: header(DLQ_HEADERS.reason),
          offset: header(DLQ_HEADERS.offset),
          detail: header(DLQ_HEADERS.detail),
        });
      },
    });
    await waitUntil(`${count} dead letter(s) of ${topic}`, async () => letters.length >= count, 30_000);
  } finally {
    await consumer.disconnect();
  }
  return letters;
}
