// The processor service: consumes usage-events, prices every event and writes the Parquet lake
// (exactly once), sends undecodable records to the DLQ, and re-prices pending events when an
// organization's rate cards change. Needs KAFKA_BROKERS and SCHEMA_REGISTRY_URL (the all-in-one
// start supplies both); LAKE_DIR is where the lake lives.
import { createKafka, ensureTopics } from '../core/kafka/client.js';
import { RateBook } from '../core/pricing/rate-book.js';
import type { StartService } from '../core/process-host.js';
import { createUsageEventCodec } from '../core/registry/usage-event-codec.js';
import { Processor } from './consumer.js';
import { DeadLetterQueue } from './dlq.js';
import { LakeWriter } from './lake/lake-writer.js';

export const startProcessor: StartService = async (ctx, infra) => {
  if (!infra.kafkaBrokers) throw new Error('the processor needs Kafka: set KAFKA_BROKERS');
  if (!infra.schemaRegistryUrl) throw new Error('the processor needs the schema registry: set SCHEMA_REGISTRY_URL');
  const logger = ctx.logger.child({ service: 'processor' });
  const kafka = createKafka(infra.kafkaBrokers, 'marginal-processor', {
    log: ({ level, msg, time: _time, ...fields }) => logger[level](fields, msg),
  });
  await ensureTopics(kafka, { partitions: ctx.config.topicPartitions });
  const codec = await createUsageEventCodec(infra.schemaRegistryUrl);
  const lake = await LakeWriter.open(ctx.config.lakeDir);
  const dlq = await DeadLetterQueue.open(kafka).catch(async (err) => {
    await lake.close();
    throw err;
  });
  let processor: Processor;
  try {
    processor = await Processor.start({
      kafka,
      codec,
      rateBook: new RateBook(ctx.db),
      db: ctx.db,
      lake,
      dlq,
      logger,
      flushMaxRows: ctx.config.processorFlushMaxRows,
      flushMaxDelayMs: ctx.config.processorFlushMaxDelayMs,
      sessionTimeoutMs: ctx.config.processorSessionTimeoutMs,
    });
  } catch (err) {
    await dlq.close().catch(() => undefined);
    await lake.close().catch(() => undefined);
    throw err;
  }
  logger.info({ lakeDir: ctx.config.lakeDir }, 'processor consuming usage-events');
  return {
    name: 'processor',
    stop: async () => {
      await processor.stop();
      await dlq.close().catch((err) => logger.warn({ err }, 'DLQ producer did not close cleanly'));
      await lake.close();
    },
  };
};
