// Distributed mode: the processor component alone in its own process (KAFKA_BROKERS, SCHEMA_REGISTRY_URL, DATABASE_URL,
// LAKE_DIR). Serves /metrics on PORT; any number of replicas split the topic's partitions.
import { hostAlone } from '../core/process-host.js';
import { startProcessor } from './component.js';

const { host, logger } = await hostAlone('processor', startProcessor);
logger.info({ url: host.url }, 'processor running');
