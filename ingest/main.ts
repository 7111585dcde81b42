// Distributed mode: the ingest component alone in its own process (KAFKA_BROKERS, SCHEMA_REGISTRY_URL, DATABASE_URL).
// MARGINAL_INGEST_PUBLISH_DELAY_MS (tests only) pauses every group between its reservation and
// its publish, so a crash test can kill the process in that window.
import { hostAlone } from '../core/process-host.js';
import { createIngest } from './component.js';

const publishDelayMs = Number(process.env.MARGINAL_INGEST_PUBLISH_DELAY_MS ?? 0);
const { host, logger } = await hostAlone(
  'ingest',
  createIngest(
    // The pause stands for a process that dies before publishing: no 503 deadline meanwhile.
    publishDelayMs > 0
      ? { groupCommit: { beforePublish: () => new Promise((r) => setTimeout(r, publishDelayMs)), publishTimeoutMs: 0 } }
      : {},
  ),
);
logger.info({ url: host.url }, 'ingest listening');
