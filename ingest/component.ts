// The ingest component (process wiring): connects the idempotent producer and the registry codec, starts the group
// committer and the sweeper, and serves POST /v1/usage-events (+ /batch). `createIngest` takes
// options for tests (sweeper timing, a pause before publish); `startIngest` uses the defaults.
import { createIdempotentProducer, createKafka, ensureTopics } from '../core/kafka/client.js';
import { RateBook } from '../pricing/rate-book.js';
import type { StartComponent } from '../core/process-host.js';
import { createUsageEventCodec } from '../core/registry/usage-event-codec.js';
import { KafkaEventPublisher } from './event-publisher.js';
import { ingestFastPath } from './fast-path.js';
import { RegisterRoutes } from './generated/routes.js';
import { registerOtlpRoutes } from '../otlp/otlp-receiver.js';
import { DEFAULT_STRUCTURAL_SPAN_RETENTION, StructuralSpanRetention } from '../otlp/structural-span-retention.js';
import { DEFAULT_GROUP_COMMIT, GroupCommitter, type GroupCommitOptions } from './group-commit.js';
import { IngestService } from './ingest.js';
import { OrganizationSettingsCache } from './org-settings.js';
import { DEFAULT_SWEEPER, Sweeper, type SweeperOptions } from './sweeper.js';

export interface IngestOptions {
  groupCommit?: Partial<GroupCommitOptions>;
  sweeper?: Partial<SweeperOptions>;
  /** How long organization settings (dimensions, subscription) are cached; default 1 s. */
  settingsTtlMs?: number;
}

// Short backoff for the ingest's client and producer (the default rides out ~30 s per attempt,
// which stacked to over a minute per request with the broker down): the HTTP caller is waiting
// and a retry with the same key is always safe, so an unreachable broker answers 503 in about
// 5 s (4 s measured here). kafkajs warns that bounded retries weaken the idempotent producer's
// exactly-once; here a repeat is harmless (the processor drops it by event_id), so that one
// warning is not logged.
const PRODUCER_RETRY = { initialRetryTime: 150, maxRetryTime: 1_000, retries: 4 };
const BOUNDED_RETRIES_WARNING = 'Limiting retries for the idempotent producer';

export function createIngest(opts: IngestOptions = {}): StartComponent {
  return async (ctx, infra) => {
    if (!infra.kafkaBrokers || !infra.schemaRegistryUrl) {
      throw new Error('ingest needs KAFKA_BROKERS and SCHEMA_REGISTRY_URL');
    }
    const logger = ctx.logger.child({ service: 'ingest' });
    const kafka = createKafka(infra.kafkaBrokers, 'marginal-ingest', {
      retry: PRODUCER_RETRY,
      log: ({ level, msg, ...fields }) => {
        if (!msg.startsWith(BOUNDED_RETRIES_WARNING)) logger[level](fields, msg);
      },
    });
    await ensureTopics(kafka, { partitions: ctx.config.topicPartitions });
    const codec = await createUsageEventCodec(infra.schemaRegistryUrl);
    const producer = createIdempotentProducer(kafka, { retry: PRODUCER_RETRY });
    await producer.connect();
    const publisher = new KafkaEventPublisher(producer);
    const committer = new GroupCommitter(ctx.db, publisher, logger, {
      ...DEFAULT_GROUP_COMMIT,
      publishTimeoutMs: ctx.config.ingestPublishTimeoutMs,
      ...opts.groupCommit,
    });
    const sweeper = new Sweeper(ctx.db, publisher, () => committer.inFlightGroups(), logger, {
      ...DEFAULT_SWEEPER,
      ...opts.sweeper,
      // Only PGlite proves it: its data dir is one process's. PostgreSQL may be shared by replicas.
      soleIngest: (opts.sweeper?.soleIngest ?? false) && ctx.db.kind === 'pglite',
    });
    sweeper.start();
    const spanRetention = new StructuralSpanRetention(ctx.db, logger, {
      ...DEFAULT_STRUCTURAL_SPAN_RETENTION,
      retentionDays: ctx.config.otlpStructuralSpansRetentionDays,
    });
    spanRetention.start();
    const ingest = new IngestService(
      new OrganizationSettingsCache(ctx.db, opts.settingsTtlMs),
      new RateBook(ctx.db),
      codec,
      committer,
      ctx.db,
    );
    ctx.services.ingest = ingest;
    return {
      name: 'ingest',
      // POST /v1/usage-events without express/tsoa; the routes below answer what it declines.
      fastPath: ingestFastPath(ctx, ingest),
      // The OTLP traces receiver feeds this same ingest service (otlp/).
      routes: (router) => {
        RegisterRoutes(router);
        registerOtlpRoutes(router);
      },
      async stop() {
        delete ctx.services.ingest;
        await sweeper.stop();
        await spanRetention.stop();
        await committer.close();
        await producer.disconnect();
      },
    };
  };
}

export const startIngest: StartComponent = createIngest();

/** The all-in-one's ingest: the only one, so it re-publishes a crashed run's unpublished groups at start. */
export const startSoleIngest: StartComponent = createIngest({ sweeper: { soleIngest: true } });
