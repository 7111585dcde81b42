// Distributed mode: the api component alone in its own process (DATABASE_URL, LAKE_DIR).
import { hostAlone } from '../core/process-host.js';
import { startApi } from './component.js';
import { collectGarbageWhenIdle } from './idle-gc.js';

const { host, logger } = await hostAlone('api', startApi);
collectGarbageWhenIdle(host.server);
logger.info({ url: host.url }, 'api listening');
