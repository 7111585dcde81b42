// Distributed mode: the api component alone in its own process (DATABASE_URL, LAKE_DIR).
import { loadConfig } from '../core/config.js';
import { loadInstanceSecrets } from '../core/instance-secrets.js';
import { collectGarbageWhenIdle } from './idle-gc.js';
import { createLogger } from '../core/logger.js';
import { hostComponents, stopOnSignals } from '../core/process-host.js';
import { startApi } from './component.js';

const config = loadConfig();
const logger = createLogger(config.logLevel, 'api');
const host = await hostComponents({
  config,
  secrets: loadInstanceSecrets(config),
  logger,
  infra: { kafkaBrokers: config.kafkaBrokers, schemaRegistryUrl: config.schemaRegistryUrl },
  components: [startApi],
});
collectGarbageWhenIdle(host.server);
stopOnSignals(host, logger);
logger.info({ url: host.url }, 'api listening');
