// Distributed mode: the processor component alone in its own process (KAFKA_BROKERS, SCHEMA_REGISTRY_URL, DATABASE_URL,
// LAKE_DIR). Serves /metrics on PORT; any number of replicas split the topic's partitions.
import { loadConfig } from '../core/config.js';
import { loadInstanceSecrets } from '../core/instance-secrets.js';
import { createLogger } from '../core/logger.js';
import { hostComponents, stopOnSignals } from '../core/process-host.js';
import { startProcessor } from './component.js';

const config = loadConfig();
const logger = createLogger(config.logLevel, 'processor');
const host = await hostComponents({
  config,
  secrets: loadInstanceSecrets(config),
  logger,
  infra: { kafkaBrokers: config.kafkaBrokers, schemaRegistryUrl: config.schemaRegistryUrl },
  components: [startProcessor],
});
stopOnSignals(host, logger);
logger.info({ url: host.url }, 'processor running');
