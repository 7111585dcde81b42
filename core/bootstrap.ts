// What every service process does first: read config, open and migrate the control plane, and
// build the AppContext (auth with cached key lookups, rate limiter, admin token).
import path from 'node:path';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator.js';
import { parseMasterKey } from './auth/secrets.js';
import type { AppContext } from './app-context.js';
import type { Config } from './config.js';
import { findActiveApiKey } from './control/api-keys.js';
import { openControlDb } from './control/db.js';
import { migrate } from './control/migrate.js';
import type { InstanceSecrets } from './instance-secrets.js';
import type { Logger } from './logger.js';
import { RateLimiter } from './http/rate-limit.js';

export async function openAppContext(config: Config, secrets: InstanceSecrets, logger: Logger): Promise<AppContext> {
  const db = await openControlDb({
    databaseUrl: config.databaseUrl,
    pgliteDir: path.join(config.dataDir, 'control'),
  });
  await migrate(db);
  const masterKey = parseMasterKey(secrets.masterKey);
  return {
    config,
    db,
    logger,
    auth: new ApiKeyAuthenticator((key) => findActiveApiKey(db, masterKey, key)),
    rateLimiter: new RateLimiter(),
    adminToken: secrets.adminToken,
    masterKey,
    services: {},
  };
}
