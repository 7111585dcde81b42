// Fixtures for processor tests and the processor benchmark: usage events as ingest queues them,
// a producer that writes them to usage-events in Confluent-framed Avro (key = organization id),
// an in-process processor over a temp DuckLake, and lake totals read back through its catalog with
// DuckDB (exact DECIMAL sums as strings, never floats).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Kafka, Producer } from 'kafkajs';
import { endUserIdFor } from '../../core/ids.js';
import { USAGE_EVENTS_TOPIC, createIdempotentProducer, createKafka, ensureTopics } from '../../core/kafka/client.js';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import { openControlDb, type ControlDb } from '../../core/control/db.js';
import { migrate } from '../../core/control/migrate.js';
import { Big } from '../../core/money.js';
import { createRateCard } from '../../pricing/rate-cards.store.js';
import { createLogger } from '../../core/logger.js';
import { RateBook } from '../../pricing/rate-book.js';
import { createUsageEventCodec, type UsageEventCodec } from '../../core/registry/usage-event-codec.js';
import { Processor, type ProcessorOptions } from '../../processor/consumer.js';
import { DeadLetterQueue } from '../../processor/dlq.js';
import { LAKE_TABLES, type LakeTable } from '../../core/lake/layout.js';
import { DuckLakeWriter } from '../../processor/lake/ducklake-writer.js';
import type { ProcessorLake } from '../../processor/lake/lake-writer.js';
import { openFreshControlDb } from './control-db.js';
import { duckLakeEnv, duckLakeSettingsOf, markDuckLake, testDuckLake } from './test-lake.js';
import type { UsageEvent } from '../../schemas/usage-event.js';
import { usageEvent as buildUsageEvent } from './usage-event-builder.js';

/** A valid gpt-4o token event of `organizationId` by `user-1`; `fields` states what matters to the test. */
export function usageEvent(organizationId: string, idempotencyKey: string, fields: Partial<UsageEvent> = {}): UsageEvent {
  const userId = fields.user_id === undefined ? 'user-1' : fields.user_id;
  return buildUsageEvent({
    organization_id: organizationId,
    idempotency_key: idempotencyKey,
    user_id: userId,
    end_user_id: userId === null ? null : endUserIdFor(organizationId, userId),
    model: 'gpt-4o',
    provider: 'openai',
    input_tokens: 100,
    output_tokens: 10,
    ...fields,
  });
}

/**
 * A topic of this test alone, shaped like usage-events: the processor reads it (option `topic`)
 * so a test's records, malformed ones included, never reach other test files' consumers.
 */
export async function createPrivateTopic(kafka: Kafka, partitions = 4): Promise<string> {
  const topic = `usage-events-test-${randomUUID()}`;
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
  return topic;
}

export class UsageEventProducer {
  private constructor(
    private readonly producer: Producer,
    readonly codec: UsageEventCodec,
    readonly topic: string,
  ) {}

  static async open(kafka: Kafka, registryUrl: string, topic = USAGE_EVENTS_TOPIC): Promise<UsageEventProducer> {
    const codec = await createUsageEventCodec(registryUrl);
    const producer = createIdempotentProducer(kafka);
    await producer.connect();
    return new UsageEventProducer(producer, codec, topic);
  }

  /** Encodes and sends, `chunk` records per request, each acknowledged by all replicas. */
  async send(events: readonly UsageEvent[], chunk = 1_000): Promise<void> {
    for (let i = 0; i < events.length; i += chunk) {
      const slice = events.slice(i, i + chunk);
      const messages = await Promise.all(slice.map(async (e) => ({ key: e.organization_id, value: await this.codec.encode(e) })));
      await this.producer.send({ topic: this.topic, acks: -1, messages });
    }
  }

  /** Encodes and sends each event to the partition given with it (not the one its key would pick). */
  async sendToPartitions(events: readonly { partition: number; event: UsageEvent }[]): Promise<void> {
    const messages = await Promise.all(
      events.map(async ({ partition, event }) => ({ partition, key: event.organization_id, value: await this.codec.encode(event) })),
    );
    await this.producer.send({ topic: this.topic, acks: -1, messages });
  }

  /** Sends raw record values (for undecodable-record tests). */
  async sendRaw(records: { key: string | null; value: Buffer }[]): Promise<void> {
    await this.producer.send({ topic: this.topic, acks: -1, messages: records });
  }

  async close(): Promise<void> {
    await this.producer.disconnect();
  }
}

export function tempLakeDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `marginal-${label}-`));
}

export interface RunningProcessor {
  processor: Processor;
  lake: ProcessorLake;
  stop(): Promise<void>;
}

/** A processor in this process over `lakeDir`, with its own Kafka client, lake writer and DLQ producer. */
export async function startInProcessProcessor(opts: {
  brokers: string[];
  registryUrl: string;
  db: ControlDb;
  lakeDir: string;
  partitions?: number;
  options?: Partial<ProcessorOptions>;
}): Promise<RunningProcessor> {
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'warn', 'processor-test');
  const kafka = createKafka(opts.brokers, 'marginal-processor-test', { logLevel: 'error' });
  // The DLQ topic always; usage-events itself only when the test reads it.
  await ensureTopics(kafka, { partitions: opts.partitions ?? 4 });
  const codec = await createUsageEventCodec(opts.registryUrl);
  const lake = await openTestProcessorLake(opts.lakeDir);
  const dlq = await DeadLetterQueue.open(kafka);
  const processor = await Processor.start({
    kafka,
    codec,
    rateBook: new RateBook(opts.db, 200),
    db: opts.db,
    lake,
    dlq,
    logger,
    sessionTimeoutMs: 6_000,
    ...opts.options,
  });
  return {
    processor,
    lake,
    async stop() {
      await processor.stop();
      await dlq.close();
      await lake.close();
    },
  };
}

/**
 * The lake an in-process processor writes (test-lake.ts): a DuckLake in `lakeDir`, its catalog in a
 * fresh PostgreSQL database (the same lake again when a later processor starts on the folder; the
 * test cluster is thrown away).
 */
export async function openTestProcessorLake(lakeDir: string): Promise<ProcessorLake> {
  if (!duckLakeSettingsOf(lakeDir)) {
    const catalog = await openFreshControlDb('postgres', { migrate: false });
    await catalog.db.close();
    markDuckLake(lakeDir, duckLakeEnv(lakeDir, catalog.url!));
  }
  return DuckLakeWriter.open(duckLakeSettingsOf(lakeDir)!);
}

/** Runs `read` with a connection to the DuckLake of `lakeDir` (its tables are `lake.<table>`). */
async function readLake<T>(
  lakeDir: string,
  read: (conn: DuckDBConnection, relation: (table: LakeTable) => string) => Promise<T>,
): Promise<T> {
  const duckLake = testDuckLake(lakeDir);
  if (!duckLake) throw new Error(`${lakeDir} holds no test DuckLake (openTestProcessorLake or lakeEnvOf marks one)`);
  const conn = await (await duckLake).instance.connect();
  try {
    return await read(conn, (table) => `lake.${table}`);
  } finally {
    conn.closeSync();
  }
}

export interface LakeTotals {
  rows: number;
  distinctEvents: number;
  /** Exact sum of total_cost as DuckDB prints the DECIMAL ("0.000000000000" when empty). */
  totalCost: string;
  byStatus: Record<string, number>;
  /** From the daily_costs rollup: sum(event_count) and sum(total_cost). */
  rollupEvents: number;
  rollupCost: string;
}

/** What the lake holds for one organization, read the way the api reads it. */
export async function lakeTotals(lakeDir: string, organizationId: string): Promise<LakeTotals> {
  return readLake(lakeDir, async (conn, relation) => {
    const org = sqlStringLiteral(organizationId);
    const events = relation('events');
    const daily = relation('daily_costs');
    const totals = (
      await conn.runAndReadAll(
        `SELECT CAST(count(*) AS DOUBLE), CAST(count(DISTINCT event_id) AS DOUBLE), CAST(coalesce(sum(total_cost), 0) AS VARCHAR)
         FROM ${events} WHERE organization_id = ${org}`,
      )
    ).getRows()[0]!;
    const statuses = (
      await conn.runAndReadAll(`SELECT status, CAST(count(*) AS DOUBLE) FROM ${events} WHERE organization_id = ${org} GROUP BY status`)
    ).getRows();
    const rollup = (
      await conn.runAndReadAll(
        `SELECT CAST(coalesce(sum(event_count), 0) AS DOUBLE), CAST(coalesce(sum(total_cost), 0) AS VARCHAR) FROM ${daily} WHERE organization_id = ${org}`,
      )
    ).getRows()[0]!;
    return {
      rows: totals[0] as number,
      distinctEvents: totals[1] as number,
      totalCost: totals[2] as string,
      byStatus: Object.fromEntries(statuses.map((r) => [r[0] as string, r[1] as number])),
      rollupEvents: rollup[0] as number,
      rollupCost: rollup[1] as string,
    };
  });
}

/** What the dimension rollups hold for one organization (as the api reads them) and whether every events file is covered. */
export interface LakeDimensionTotals {
  /** String dimension `key`'s value (null = Unassigned) → events and exact cost, completed only. */
  costs: Map<string | null, { events: number; cost: string }>;
  /** Number dimension `numberKey`: values counted and their exact sum, failed events excepted. */
  numbers: { count: number; sum: string };
  /** Both keys have rollup rows (the rollup is complete for them). */
  covered: boolean;
}

export async function lakeDimensionTotals(
  lakeDir: string,
  organizationId: string,
  key: string,
  numberKey: string,
): Promise<LakeDimensionTotals> {
  return readLake(lakeDir, async (conn, relation) => {
    const org = sqlStringLiteral(organizationId);
    const costs = await conn.runAndReadAll(
      `SELECT dim_value, CAST(sum(event_count) AS DOUBLE), CAST(sum(total_cost) AS VARCHAR) FROM ${relation('dimension_costs')}
        WHERE organization_id = ${org} AND dimension_key = ${sqlStringLiteral(key)} AND status = 'completed' GROUP BY 1`,
    );
    const numbers = (
      await conn.runAndReadAll(
        `SELECT CAST(coalesce(sum(value_count), 0) AS DOUBLE), CAST(coalesce(sum(sum_value), 0) AS VARCHAR) FROM ${relation('dimension_numbers')}
          WHERE organization_id = ${org} AND dimension_key = ${sqlStringLiteral(numberKey)} AND status <> 'failed'`,
      )
    ).getRows()[0]!;
    // Every commit rolls up the dimensions defined when it was written, so the rollup covers the
    // events when both keys have rows.
    const covered = costs.currentRowCount > 0 && (numbers[0] as number) > 0;
    return {
      costs: new Map(costs.getRows().map((r) => [r[0] as string | null, { events: r[1] as number, cost: r[2] as string }])),
      numbers: { count: numbers[0] as number, sum: numbers[1] as string },
      covered,
    };
  });
}

/** Event ids in the lake for one organization, with how often each appears. */
export async function lakeEventIdCounts(lakeDir: string, organizationId: string): Promise<Map<string, number>> {
  return readLake(lakeDir, async (conn, relation) => {
    const rows = (
      await conn.runAndReadAll(
        `SELECT event_id, CAST(count(*) AS DOUBLE) FROM ${relation('events')} WHERE organization_id = ${sqlStringLiteral(organizationId)} GROUP BY event_id`,
      )
    ).getRows();
    return new Map(rows.map((r) => [r[0] as string, r[1] as number]));
  });
}

/**
 * The organization's events as rows of `columns` (a SELECT list over the events table, e.g.
 * "idempotency_key, CAST(total_cost AS VARCHAR) AS total_cost"), read from the lake of `lakeDir`
 * in either format.
 */
export async function lakeEventRows(lakeDir: string, organizationId: string, columns: string): Promise<Record<string, unknown>[]> {
  return readLake(lakeDir, async (conn, relation) =>
    (
      await conn.runAndReadAll(`SELECT ${columns} FROM ${relation('events')} WHERE organization_id = ${sqlStringLiteral(organizationId)}`)
    ).getRowObjects(),
  );
}

/**
 * Per lake table, the organization's row count and a hash over every row's values ("rows:hash"),
 * read from the lake of `lakeDir`: equal exactly when no row was added, removed
 * or changed (the same rows in other files, as after a compaction, give the same figures).
 */
export async function lakeRowsFingerprint(lakeDir: string, organizationId: string): Promise<Record<LakeTable, string>> {
  return readLake(lakeDir, async (conn, relation) => {
    const out = {} as Record<LakeTable, string>;
    for (const table of LAKE_TABLES) {
      const row = (
        await conn.runAndReadAll(
          `SELECT CAST(count(*) AS VARCHAR), CAST(coalesce(sum(hash(t)), 0) AS VARCHAR) FROM ${relation(table)} t
            WHERE organization_id = ${sqlStringLiteral(organizationId)}`,
        )
      ).getRows()[0]!;
      out[table] = `${row[0]}:${row[1]}`;
    }
    return out;
  });
}

/** Polls `check` until it returns true or `timeoutMs` passes (then throws with `what`). */
export async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 60_000, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A fresh in-memory control plane (PGlite), migrated. */
export async function openTestControlDb(): Promise<ControlDb> {
  const db = await openControlDb({ databaseUrl: null, pgliteDir: null });
  await migrate(db);
  return db;
}

/** Input and output rates, USD per million tokens, as the tests write them by hand. */
export interface InputOutputRates {
  input: string;
  output: string;
}

/** An organization's token card with input and output rates only, in effect from 2025-01-01. */
export async function createInputOutputCard(
  db: ControlDb,
  organizationId: string,
  modelSlug: string,
  rates: InputOutputRates,
): Promise<void> {
  await createRateCard(db, organizationId, {
    modelSlug,
    inputCostPerMillion: rates.input,
    outputCostPerMillion: rates.output,
    cacheCreationCostPerMillion: null,
    cacheReadCostPerMillion: null,
    reasoningCostPerMillion: null,
    effectiveFrom: new Date('2025-01-01T00:00:00Z'),
  });
}

/** The cost of an event's input and output tokens at the given rates, worked out with big.js (the test's own arithmetic). */
export function inputOutputCost(e: UsageEvent, rates: InputOutputRates): Big {
  return new Big(e.input_tokens!).times(rates.input).div(1_000_000).plus(new Big(e.output_tokens!).times(rates.output).div(1_000_000));
}
