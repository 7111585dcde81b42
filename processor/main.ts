// Distributed mode: the processor service alone (KAFKA_BROKERS, SCHEMA_REGISTRY_URL, DATABASE_URL,
// LAKE_DIR). Serves /metrics on PORT; any number of replicas split the topic's partitions.
import { loadConfig } from '../core/config.js';
import { loadInstanceSecrets } from '../core/instance-secrets.js';
import { createLogger } from '../core/logger.js';
import { hostServices, stopOnSignals } from '../core/process-host.js';
import { startProcessor } from './service.js';

const config = loadConfig();
const logger = createLogger(config.logLevel, 'processor');
const host = await hostServices({
  config,
  secrets: loadInstanceSecrets(config),
  logger,
  infra: { kafkaBrokers: config.kafkaBrokers, schemaRegistryUrl: config.schemaRegistryUrl },
  services: [startProcessor],
});
stopOnSignals(host, logger);
logger.info({ url: host.url }, 'processor running');
