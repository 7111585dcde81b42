// The processor's consumer: kafkajs group `marginal-processor` on usage-events, eachBatch with
// autoCommit off. Per assigned partition it loads the lake manifest and fetches from its next
// offset, decodes and prices each record into that partition's buffer, and flushes the buffer to
// the lake by size (flushMaxRows) or age (flushMaxDelayMs). A flush writes files, then the
// manifest, then commits the offset (see PartitionWorker for the exactly-once rule). On a
// rebalance, partitions that went elsewhere drop their buffers: nothing past the manifest was
// committed, so their next owner starts exactly where the lake ends. A record the lake keeps
// refusing is narrowed down and dead-lettered (PartitionWorker), so it cannot stall the partition.
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { backoffStepMs } from '../core/backoff.js';
import { PROCESSOR_FLUSH_DEFAULTS, PROCESSOR_SESSION_TIMEOUT_DEFAULT_MS } from '../core/config.js';
import { USAGE_EVENTS_TOPIC } from '../core/kafka/client.js';
import type { Queryable } from '../core/control/db.js';
import type { Logger } from '../core/logger.js';
import type { PricingRates } from '../pricing/price-event.js';
import type { RateBook } from '../pricing/rate-book.js';
import type { UsageEventCodec } from '../core/registry/usage-event-codec.js';
import type { DeadLetterQueue } from './dlq.js';
import type { GroupMemberStore } from './group-member.js';
import type { ProcessorLake } from './lake/lake-writer.js';
import { assignedPartitions, deadLetters, pricedEvents } from './metrics.js';
import { PartitionWorker, type FlushAlerts } from './partition-worker.js';
import { priceRecord, refusedRecord, type RecordOutcome, type RecordPricingDeps } from './price-record.js';
import { Repricer } from './repricing.js';

export const PROCESSOR_GROUP_ID = 'marginal-processor';

export interface ProcessorOptions {
  kafka: Kafka;
  codec: UsageEventCodec;
  rateBook: RateBook;
  /** The control plane the RateBook reads (re-pricing polls rates versions from it). */
  db: Queryable;
  lake: ProcessorLake;
  dlq: DeadLetterQueue;
  logger: Logger;
  groupId?: string;
  /** The topic to consume; default usage-events (tests use private topics). */
  topic?: string;
  /** Flush a partition at this many buffered rows. Default PROCESSOR_FLUSH_DEFAULTS. */
  flushMaxRows?: number;
  /** Flush a partition once its oldest unflushed record waited this long. Default PROCESSOR_FLUSH_DEFAULTS. */
  flushMaxDelayMs?: number;
  /** Compact a partition's small files at most this often. Default 15 s. */
  compactEveryMs?: number;
  /** How often re-pricing looks for organizations whose rates changed. Default 1 s. */
  repricingIntervalMs?: number;
  /** Partitions whose batches are processed at once. Default 4. */
  partitionsConsumedConcurrently?: number;
  /** Default PROCESSOR_SESSION_TIMEOUT_DEFAULT_MS. */
  sessionTimeoutMs?: number;
  /** Where the group member id is kept, so a restart after a crash rejoins as that member. */
  groupMember?: GroupMemberStore;
  clock?: () => Date;
  /** Alert evaluation from flushes (budgets, rate_card.missing). */
  alerts?: FlushAlerts;
}

const TICK_MS = 50;
/** Between retries of a fault a retry can cure (see retrying). */
const RETRY_BACKOFF = { firstMs: 100, maxMs: 5_000 };
const HEARTBEAT_EVERY_MS = 1_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Awaits `work`, calling heartbeat() every second meanwhile so a long flush keeps group membership. */
async function withHeartbeat<T>(work: Promise<T>, heartbeat: () => Promise<void>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let beat: Promise<void> = Promise.resolve();
  const beating = new Promise<never>((_, reject) => {
    timer = setInterval(() => {
      beat = heartbeat().catch((err) => reject(err));
    }, HEARTBEAT_EVERY_MS);
  });
  try {
    return await Promise.race([work, beating]);
  } finally {
    clearInterval(timer);
    await beat;
  }
}

export class Processor {
  private readonly workers = new Map<number, PartitionWorker>();
  /** Partition → settles when a revoked worker has let go of its lake state. */
  private readonly releasing = new Map<number, Promise<void>>();
  private readonly flushMaxRows: number;
  private readonly flushMaxDelayMs: number;
  private readonly compactEveryMs: number;
  private readonly clock: () => Date;
  private readonly topic: string;
  private readonly repricer: Repricer;
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;
  private stopped: Promise<void> | null = null;
  /** True between a rebalance starting and the new assignment: no timer flushes meanwhile. */
  private rebalancing = true;

  private constructor(
    private readonly opts: ProcessorOptions,
    private readonly consumer: Consumer,
  ) {
    this.flushMaxRows = opts.flushMaxRows ?? PROCESSOR_FLUSH_DEFAULTS.maxRows;
    this.flushMaxDelayMs = opts.flushMaxDelayMs ?? PROCESSOR_FLUSH_DEFAULTS.maxDelayMs;
    this.compactEveryMs = opts.compactEveryMs ?? 15_000;
    this.clock = opts.clock ?? (() => new Date());
    this.topic = opts.topic ?? USAGE_EVENTS_TOPIC;
    this.repricer = new Repricer({
      lake: opts.lake,
      rateBook: opts.rateBook,
      db: opts.db,
      logger: opts.logger,
      clock: this.clock,
      intervalMs: opts.repricingIntervalMs ?? 1_000,
      workers: () => [...this.workers.values()],
    });
  }

  /** Joins the group and starts consuming; resolves once the consumer runs. */
  static async start(opts: ProcessorOptions): Promise<Processor> {
    const consumer = opts.kafka.consumer({
      groupId: opts.groupId ?? PROCESSOR_GROUP_ID,
      sessionTimeout: opts.sessionTimeoutMs ?? PROCESSOR_SESSION_TIMEOUT_DEFAULT_MS,
      memberId: opts.groupMember?.previous() ?? null,
      rebalanceTimeout: 60_000,
      heartbeatInterval: 3_000,
      maxBytesPerPartition: 4 * 1024 * 1024,
      maxBytes: 16 * 1024 * 1024,
      maxWaitTimeInMs: 250,
    });
    const processor = new Processor(opts, consumer);
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      processor.rememberMember(payload.memberId);
      processor.onAssignment(payload.memberAssignment[processor.topic] ?? []);
    });
    consumer.on(consumer.events.REBALANCING, () => {
      processor.rebalancing = true;
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      processor.rebalancing = true;
      opts.logger.error({ err: payload.error, restart: payload.restart }, 'consumer crashed');
    });
    await consumer.connect();
    await consumer.subscribe({ topic: processor.topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: true,
      partitionsConsumedConcurrently: opts.partitionsConsumedConcurrently ?? 4,
      eachBatch: (payload) => processor.eachBatch(payload),
    });
    processor.timer = setInterval(() => processor.tick(), TICK_MS);
    processor.repricer.start();
    return processor;
  }

  private rememberMember(memberId: string): void {
    try {
      this.opts.groupMember?.remember(memberId);
    } catch (err) {
      // Only a restart's speed depends on it.
      this.opts.logger.warn({ err }, 'could not record the group member id');
    }
  }

  /** Partitions this processor owns now. */
  get partitions(): number[] {
    return [...this.workers.keys()].sort((a, b) => a - b);
  }

  private workerFor(partition: number): PartitionWorker {
    let w = this.workers.get(partition);
    if (!w) {
      w = new PartitionWorker(
        partition,
        {
          lake: this.opts.lake,
          logger: this.opts.logger,
          compactEveryMs: this.compactEveryMs,
          alerts: this.opts.alerts,
          commit: (p, offset) => this.consumer.commitOffsets([{ topic: this.topic, partition: p, offset: String(offset) }]),
          seek: (p, offset) => this.consumer.seek({ topic: this.topic, partition: p, offset: String(offset) }),
        },
        this.releasing.get(partition),
      );
      this.workers.set(partition, w);
      assignedPartitions.set(this.workers.size);
    }
    return w;
  }

  private onAssignment(partitions: number[]): void {
    const assigned = new Set(partitions);
    for (const [p, w] of this.workers) {
      if (assigned.has(p)) continue;
      this.workers.delete(p);
      const released = w.revoke().catch((err) => this.opts.logger.error({ err, partition: p }, 'release failed'));
      this.releasing.set(p, released);
      void released.then(() => {
        if (this.releasing.get(p) === released) this.releasing.delete(p);
      });
    }
    // Load newly assigned partitions now rather than on their first batch.
    for (const p of assigned) this.workerFor(p);
    assignedPartitions.set(this.workers.size);
    this.rebalancing = false;
    this.opts.logger.info({ partitions: [...assigned].sort((a, b) => a - b) }, 'partitions assigned');
  }

  private async eachBatch({ batch, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    if (this.stopping || isStale()) return;
    const w = this.workerFor(batch.partition);
    await withHeartbeat(w.ready, heartbeat);
    if (this.stopping || w.revoked || !w.loaded || isStale()) return;
    w.updateLag(Number(batch.highWatermark));
    await withHeartbeat(
      w.lock.runExclusive(() => this.consumeBatch(w, batch.messages, heartbeat, () => !this.stopping && isRunning() && !isStale())),
      heartbeat,
    );
    if (w.bufferedRows >= this.flushMaxRows || w.bufferAgeMs() >= this.flushMaxDelayMs) {
      // One flush runs at a time; waiting here for the previous one is the backpressure.
      if (w.flushing) await withHeartbeat(w.flushAll(), heartbeat);
      else void w.startFlush();
    }
  }

  private async consumeBatch(
    w: PartitionWorker,
    messages: KafkaMessage[],
    heartbeat: () => Promise<void>,
    live: () => boolean,
  ): Promise<void> {
    const generation = w.generation;
    // Rates per organization for this batch: fetched once, then handed out without an await.
    const rates = new Map<string, PricingRates | Promise<PricingRates>>();
    const ratesFor = (org: string) => {
      const known = rates.get(org);
      if (known) return known;
      const loading = this.opts.rateBook.ratesFor(org);
      rates.set(org, loading);
      loading.then(
        (r) => rates.set(org, r),
        () => rates.delete(org),
      );
      return loading;
    };
    const deps = { codec: this.opts.codec, ratesFor };
    // One timestamp per batch: priced_at only needs to say when the batch was priced.
    const pricedAt = this.clock();
    const counts = new Map<string, number>();
    try {
      await this.consumeMessages(w, messages, heartbeat, live, generation, deps, pricedAt, counts);
    } finally {
      for (const [status, n] of counts) pricedEvents.inc({ status }, n);
    }
  }

  private async consumeMessages(
    w: PartitionWorker,
    messages: KafkaMessage[],
    heartbeat: () => Promise<void>,
    live: () => boolean,
    generation: number,
    deps: RecordPricingDeps,
    pricedAt: Date,
    counts: Map<string, number>,
  ): Promise<void> {
    if (!live()) return;
    for (const m of messages) {
      // Seeks only come from this loop or from a reload (which bumps the generation), so
      // checking isStale() once per batch is enough.
      if (this.stopping || w.generation !== generation || !w.loaded) return;
      const offset = Number(m.offset);
      if (offset < w.position) continue; // buffered or durable already
      if (offset > w.position) {
        // The fetch ran ahead of the lake (for example a committed offset from a fenced writer):
        // go back to where the lake ends — unless the log no longer has those offsets.
        if (w.seekToPosition()) return;
        this.opts.logger.warn(
          { partition: w.partition, from: w.position, to: offset },
          'offsets missing from the log (retention?); skipping them',
        );
        w.skipTo(offset);
      }
      const record = { key: m.key, value: m.value, offset, timestamp: m.timestamp };
      let outcome: RecordOutcome;
      const refusal = w.refusalAt(offset);
      if (refusal) {
        outcome = refusedRecord(record, this.topic, w.partition, pricedAt, refusal);
      } else {
        try {
          outcome = await priceRecord(record, this.topic, w.partition, pricedAt, deps);
        } catch {
          const retried = await this.retrying(heartbeat, 'price record', () =>
            priceRecord(record, this.topic, w.partition, pricedAt, deps),
          );
          if (retried === null) return;
          outcome = retried.value;
        }
      }
      if (w.generation !== generation) return;
      if (outcome.deadLetter) {
        const sent = await this.retrying(heartbeat, 'send dead letter', () => this.opts.dlq.send([outcome.deadLetter!]));
        if (sent === null || w.generation !== generation) return;
        deadLetters.inc({ reason: outcome.deadLetter.reason });
      }
      const status = outcome.row?.status ?? 'failed';
      counts.set(status, (counts.get(status) ?? 0) + 1);
      w.accept(outcome.row, offset);
      if (w.mustFlushNow) {
        await w.flushAll();
        if (w.generation !== generation) return;
      }
    }
  }

  /**
   * Retries faults a retry can cure (registry, control plane or broker unreachable) with backoff,
   * heartbeating meanwhile. Returns null when the processor stops first.
   */
  private async retrying<T>(heartbeat: () => Promise<void>, what: string, fn: () => Promise<T>): Promise<{ value: T } | null> {
    for (let attempt = 0; ; attempt++) {
      if (this.stopping) return null;
      try {
        return { value: await fn() };
      } catch (err) {
        this.opts.logger.warn({ err, attempt }, `${what} failed; retrying`);
        await sleep(backoffStepMs(attempt, RETRY_BACKOFF));
        await heartbeat();
      }
    }
  }

  /** Flushes partitions whose oldest record waited long enough while no batch arrives for them. */
  private tick(): void {
    if (this.stopping || this.rebalancing) return;
    const now = performance.now();
    for (const w of this.workers.values()) {
      if (w.revoked || !w.loaded || w.flushing || !w.hasUnflushed) continue;
      if (w.bufferAgeMs(now) >= this.flushMaxDelayMs) void w.startFlush();
    }
  }

  /** Makes everything consumed durable, leaves the group, and releases the lake. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping = true;
      if (this.timer) clearInterval(this.timer);
      await this.repricer.stop();
      const workers = [...this.workers.values()];
      await Promise.all(
        workers.map((w) =>
          w.lock
            .runExclusive(async () => {
              await w.ready.catch(() => undefined);
              if (!w.revoked && w.loaded) await w.flushAll();
            })
            .catch((err) => this.opts.logger.error({ err, partition: w.partition }, 'final flush failed')),
        ),
      );
      await this.consumer.disconnect();
      await Promise.all(workers.map((w) => w.revoke().catch(() => undefined)));
      this.workers.clear();
      assignedPartitions.set(0);
    })();
    return this.stopped;
  }
}
