// The processor component (process wiring): consumes usage-events, prices every event and writes the Parquet lake
// (exactly once), sends undecodable records to the DLQ, and re-prices pending events when an
// organization's rate cards change. Needs KAFKA_BROKERS and SCHEMA_REGISTRY_URL (the all-in-one
// start supplies both); it writes the open lake (DuckLake at LAKE_URL, catalog LAKE_CATALOG_URL;
// docs/decisions/0158). runProcessor needs only config, a
// Queryable and a logger, so it also runs on a worker thread (processor/thread.ts) whose control
// plane is the host's connection proxied over a port.
import type { Config } from '../core/config.js';
import type { Queryable } from '../core/control/db.js';
import { createKafka, ensureTopics } from '../core/kafka/client.js';
import { RateBook } from '../pricing/rate-book.js';
import type { Logger } from '../core/logger.js';
import type { Infra, StartComponent } from '../core/process-host.js';
import { createUsageEventCodec } from '../core/registry/usage-event-codec.js';
import { PROCESSOR_GROUP_ID, Processor } from './consumer.js';
import { DeadLetterQueue } from './dlq.js';
import { DimensionBook } from './dimension-book.js';
import { groupMemberFile } from './group-member.js';
import { requireProcessorInfra } from './required-infra.js';
import { DuckLakeWriter } from './lake/ducklake-writer.js';
import { AlertTally } from '../alerts/evaluation/spend-tally.js';

export interface ProcessorDeps {
  config: Config;
  /** Only statements: the processor reads rate cards, rates versions and dimensions, never in a transaction. */
  db: Queryable;
  /** The processor's logger (carries `service: 'processor'`). */
  logger: Logger;
}

export interface RunningProcessor {
  /** Stops consuming (final flush), closes the DLQ producer, then the lake. */
  stop(): Promise<void>;
}

/** Starts the processor: topics, codec, lake, DLQ, then the consumer group. */
export async function runProcessor(deps: ProcessorDeps, infra: Infra): Promise<RunningProcessor> {
  const { config, db, logger } = deps;
  const { kafkaBrokers, schemaRegistryUrl } = requireProcessorInfra(infra);
  const kafka = createKafka(kafkaBrokers, 'marginal-processor', {
    log: ({ level, msg, time: _time, ...fields }) => logger[level](fields, msg),
  });
  await ensureTopics(kafka, { partitions: config.topicPartitions });
  const codec = await createUsageEventCodec(schemaRegistryUrl);
  const dimensions = new DimensionBook(db, logger);
  const lake = await DuckLakeWriter.open(config.lake, { dimensions });
  const dlq = await DeadLetterQueue.open(kafka).catch(async (err) => {
    await lake.close();
    throw err;
  });
  let processor: Processor;
  try {
    processor = await Processor.start({
      kafka,
      codec,
      rateBook: new RateBook(db),
      db,
      lake,
      dlq,
      logger,
      flushMaxRows: config.processorFlushMaxRows,
      flushMaxDelayMs: config.processorFlushMaxDelayMs,
      sessionTimeoutMs: config.processorSessionTimeoutMs,
      groupMember: groupMemberFile(config.dataDir, PROCESSOR_GROUP_ID),
      alerts: new AlertTally(db, logger.child({ component: 'alerts' })),
    });
  } catch (err) {
    await dlq.close().catch(() => undefined);
    await lake.close().catch(() => undefined);
    throw err;
  }
  logger.info({ lake: config.lake.dataPath }, 'processor consuming usage-events');
  return {
    stop: async () => {
      await processor.stop();
      await dlq.close().catch((err) => logger.warn({ err }, 'DLQ producer did not close cleanly'));
      await lake.close();
    },
  };
}

/** The processor in this thread, on the host's control plane. */
export const startProcessor: StartComponent = async (ctx, infra) => {
  const running = await runProcessor({ config: ctx.config, db: ctx.db, logger: ctx.logger.child({ service: 'processor' }) }, infra);
  return { name: 'processor', stop: running.stop };
};
