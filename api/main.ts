// Distributed mode: the api service alone (DATABASE_URL, LAKE_DIR).
import { loadConfig } from '../core/config.js';
import { loadInstanceSecrets } from '../core/instance-secrets.js';
import { createLogger } from '../core/logger.js';
import { hostServices, stopOnSignals } from '../core/process-host.js';
import { startApi } from './service.js';

const config = loadConfig();
const logger = createLogger(config.logLevel, 'api');
const host = await hostServices({
  config,
  secrets: loadInstanceSecrets(config),
  logger,
  infra: { kafkaBrokers: config.kafkaBrokers, schemaRegistryUrl: config.schemaRegistryUrl },
  services: [startApi],
});
stopOnSignals(host, logger);
logger.info({ url: host.url }, 'api listening');
