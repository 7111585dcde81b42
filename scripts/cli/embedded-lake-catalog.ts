// The all-in-one's own lake catalog for the lake commands (docs/decisions/0148): with neither
// LAKE_CATALOG_URL nor DATABASE_URL, `npm start` runs PostgreSQL
// under $DATA_DIR/lake-catalog on a port that changes with each start. A command run beside the
// service uses that server (its URL set where loadConfig() reads it, as `npm start` does); with the
// service stopped, `lake migrate` starts the server for its own run (creating the cluster the first
// time, so a manifest lake moves before the service ever ran on the open lake).
import { embeddedLakeCatalogDir } from '../../core/config.js';
import { createLogger } from '../../core/logger.js';
import { planLakeCatalog, runningLakeCatalogUrl, superviseLakeCatalog } from '../postgres/lake-catalog-server.js';

export interface LakeCatalogUse {
  stop(): Promise<void>;
}

const NOTHING: LakeCatalogUse = { stop: async () => undefined };

/** Null when the catalog is needed, not running, and `start` is false (the caller says so). */
export async function attachEmbeddedLakeCatalog(options: { start: boolean }): Promise<LakeCatalogUse | null> {
  const dir = embeddedLakeCatalogDir();
  if (!dir) return NOTHING;
  const running = runningLakeCatalogUrl(dir);
  if (running) {
    process.env.LAKE_CATALOG_URL = running.reveal();
    return NOTHING;
  }
  if (!options.start) return null;
  const plan = await planLakeCatalog(dir);
  const server = await superviseLakeCatalog(plan, createLogger(process.env.LOG_LEVEL ?? 'warn', 'lake-catalog'));
  process.env.LAKE_CATALOG_URL = plan.url.reveal();
  return { stop: () => server.stop() };
}
