// `npm start`: the all-in-one mode. Starts what is not configured — the local Kafka broker
// (unless KAFKA_BROKERS), the dev schema registry (unless SCHEMA_REGISTRY_URL), PGlite (unless
// DATABASE_URL), the lake catalog's PostgreSQL (unless LAKE_CATALOG_URL or DATABASE_URL) — then ingest, processor and api on one port. Ctrl-C stops all of it.
import path from 'node:path';
import { embeddedLakeCatalogDir, loadConfig } from '../core/config.js';
import { loadInstanceSecrets } from '../core/instance-secrets.js';
import { createLogger } from '../core/logger.js';
import { hostComponents, stopOnSignals } from '../core/process-host.js';
import { allInOneComponents } from './all-in-one-components.js';
import { superviseBroker } from './kafka/broker-supervisor.js';
import { planLakeCatalog, superviseLakeCatalog } from './postgres/lake-catalog-server.js';
import { startBanner } from './start-banner.js';
import { startSchemaRegistry } from './schema-registry/server.js';

const started = Date.now();
// The catalog's URL is known before its server runs, and goes where every loadConfig() of this
// process reads it, as if the user had set it: the processor's worker thread reads its own (its
// env is a copy of this one), since a credential does not survive the copy into workerData.
const catalogDir = embeddedLakeCatalogDir();
const lakeCatalog = catalogDir ? await planLakeCatalog(catalogDir) : null;
if (lakeCatalog) process.env.LAKE_CATALOG_URL = lakeCatalog.url.reveal();
const config = loadConfig();
const logger = createLogger(config.logLevel, 'marginal');
const secrets = loadInstanceSecrets(config);
const cleanups: Array<() => Promise<void>> = [];
/** What is still starting: a failed start waits for it, so its cleanup is known before running them. */
const starting: Array<Promise<unknown> | unknown> = [];
const cleanupNow = async () => {
  await Promise.allSettled(starting);
  for (const f of cleanups.reverse()) await f().catch(() => undefined);
};

try {
  // The broker, the registry and the control plane (in hostComponents) start together; the
  // broker takes seconds, the others a moment.
  const startingRegistry = config.schemaRegistryUrl
    ? config.schemaRegistryUrl
    : startSchemaRegistry({
        host: '127.0.0.1',
        port: config.schemaRegistryPort,
        file: path.join(config.dataDir, 'schema-registry.json'),
      }).then((registry) => {
        cleanups.push(registry.stop);
        return registry.url;
      });
  let startingBroker: Promise<string[]> | string[];
  if (config.kafkaBrokers) startingBroker = config.kafkaBrokers;
  else {
    logger.info({ port: config.kafkaPort }, 'starting the local Kafka broker (first run fetches its jars with Maven)');
    // Supervised: a broker that dies is started again, and ingest recovers by itself.
    startingBroker = superviseBroker(
      { port: config.kafkaPort, dataDir: path.join(config.dataDir, 'kafka') },
      logger.child({ service: 'kafka' }),
    ).then((broker) => {
      cleanups.push(broker.stop);
      logger.info({ brokerReadyInSeconds: Number(((Date.now() - started) / 1000).toFixed(2)) }, 'local Kafka broker ready');
      return broker.brokers;
    });
  }
  // The components open the lake once infra is ready, so the catalog is part of it.
  const startingCatalog = lakeCatalog
    ? superviseLakeCatalog(lakeCatalog, logger.child({ service: 'lake-catalog' })).then((catalog) => {
        cleanups.push(catalog.stop);
        logger.info({ port: lakeCatalog.port, readyInSeconds: Number(((Date.now() - started) / 1000).toFixed(2)) }, 'lake catalog ready');
      })
    : null;
  starting.push(startingBroker, startingRegistry, startingCatalog);
  const infra = Promise.all([startingBroker, startingRegistry, startingCatalog]).then(([kafkaBrokers, schemaRegistryUrl]) => ({
    kafkaBrokers,
    schemaRegistryUrl,
  }));
  const host = await hostComponents({
    config,
    secrets,
    logger,
    infra,
    components: allInOneComponents,
    onStop: cleanups,
  });
  const { kafkaBrokers, schemaRegistryUrl } = await infra;
  stopOnSignals(host, logger);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  logger.info({ url: host.url, kafkaBrokers, schemaRegistryUrl, readyInSeconds: Number(seconds) }, 'marginal ready');
  // The admin token is shown once, when it was just generated; one from the environment or the
  // secrets file is never printed (nor logged).
  console.log(startBanner(host.url, seconds, secrets.adminTokenGenerated ? secrets.adminToken : null, config.dataDir));
} catch (err) {
  logger.error({ err }, 'start failed');
  await cleanupNow();
  process.exit(1);
}
