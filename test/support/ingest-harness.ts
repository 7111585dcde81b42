// Test support for ingestion: signed requests (the HMAC computed here with node:crypto, not by the
// code under test) and a reader of the usage-events topic that decodes every record through the
// registry and can wait until it has seen everything Kafka holds right now.
import crypto from 'node:crypto';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { createKafka, ensureTopics } from '../../core/kafka/client.js';
import { createUsageEventCodec, UndecodableEventError, type UsageEventCodec } from '../../core/registry/usage-event-codec.js';
import type { UsageEvent } from '../../schemas/usage-event.js';
import { http, type HttpResult } from './http.js';

const TOPIC = 'usage-events';

export interface Signer {
  apiKey: string;
  signingSecret: string;
}

export interface SignedPostOptions {
  /** Unix seconds; default now. */
  timestamp?: number | string;
  /** Replaces the computed X-Signature (null: header omitted). */
  signature?: string | null;
  /** Omit X-Timestamp. */
  noTimestamp?: boolean;
  headers?: Record<string, string>;
}

function hmacHex(secret: string, timestamp: string, body: string): string {
  return crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** POST with Authorization, X-Timestamp and X-Signature = v1=HMAC(secret, ts + "." + raw body). */
export function signedPost<T = any>(
  baseUrl: string,
  who: Signer,
  path: string,
  body: unknown,
  opts: SignedPostOptions = {},
): Promise<HttpResult<T>> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const ts = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = { ...opts.headers };
  if (!opts.noTimestamp) headers['x-timestamp'] = ts;
  const sig = opts.signature === undefined ? `v1=${hmacHex(who.signingSecret, ts, raw)}` : opts.signature;
  if (sig !== null) headers['x-signature'] = sig;
  return http<T>(baseUrl, 'POST', path, { token: who.apiKey, raw, headers });
}

export interface TopicRecord {
  partition: number;
  offset: string;
  key: string | null;
  event: UsageEvent;
}

/** Consumes usage-events from the beginning for the whole test file. */
export class UsageEventTopicReader {
  private readonly records: TopicRecord[] = [];
  private readonly seen = new Map<number, bigint>();

  private constructor(
    private readonly kafka: Kafka,
    private readonly consumer: Consumer,
  ) {}

  static async start(brokers: string[], registryUrl: string): Promise<UsageEventTopicReader> {
    const kafka = new Kafka({ clientId: 'ingest-test-reader', brokers, logLevel: logLevel.NOTHING });
    // The topic may not exist yet when no ingest has started on this broker.
    await ensureTopics(createKafka(brokers, 'ingest-test-topics', { logLevel: 'error' }));
    const codec: UsageEventCodec = await createUsageEventCodec(registryUrl);
    const consumer = kafka.consumer({ groupId: `ingest-test-${crypto.randomUUID()}` });
    const reader = new UsageEventTopicReader(kafka, consumer);
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        // The topic is shared by every test file on the broker, and some put deliberately
        // undecodable records on it (the processor's DLQ path): skip those, but count them read.
        const event = await codec.decode(message.value!).catch((err: unknown) => {
          if (err instanceof UndecodableEventError) return null;
          throw err;
        });
        if (event) reader.records.push({ partition, offset: message.offset, key: message.key?.toString() ?? null, event });
        reader.seen.set(partition, BigInt(message.offset));
      },
    });
    return reader;
  }

  /** Waits until every record Kafka holds now has been read. */
  async catchUp(timeoutMs = 30_000): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    let offsets: Array<{ partition: number; high: string; low: string }>;
    try {
      offsets = await admin.fetchTopicOffsets(TOPIC);
    } finally {
      await admin.disconnect();
    }
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const behind = offsets.filter((o) => BigInt(o.high) > BigInt(o.low) && (this.seen.get(o.partition) ?? -1n) < BigInt(o.high) - 1n);
      if (behind.length === 0) return;
      if (Date.now() > deadline) throw new Error(`topic reader is behind on partitions ${behind.map((b) => b.partition).join(',')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Every record of one organization read so far (call catchUp first). */
  recordsOf(organizationId: string): TopicRecord[] {
    return this.records.filter((r) => r.event.organization_id === organizationId);
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}
