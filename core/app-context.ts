// What a request handler can reach: built once at start by the service's main and stored on
// express's app.locals, so tsoa controllers (instantiated per request) stay free of globals.
import type { Request } from 'express';
import type { Config } from './config.js';
import type { ControlDb } from './control/db.js';
import type { Logger } from './logger.js';
import type { ApiKeyAuthenticator } from './auth/api-key-authenticator.js';
import type { RateLimiter } from './http/rate-limit.js';

/** Capability services register themselves here (ingest, lake reader, …) by name. */
// biome-ignore lint/suspicious/noEmptyInterface: capabilities add their slots by declaration merging, which a type alias cannot take
export interface AppServices {}

export interface AppContext {
  config: Config;
  db: ControlDb;
  logger: Logger;
  auth: ApiKeyAuthenticator;
  rateLimiter: RateLimiter;
  adminToken: string;
  /** Encrypts signing secrets at rest (AES-256-GCM). */
  masterKey: Buffer;
  services: Partial<AppServices>;
}

export function appContext(req: Request): AppContext {
  const ctx = req.app.locals.marginal as AppContext | undefined;
  if (!ctx) throw new Error('app context not installed');
  return ctx;
}

/** A service registered by the running process; throws when this process does not run it. */
export function service<K extends keyof AppServices>(req: Request, name: K): AppServices[K] {
  const s = appContext(req).services[name];
  if (!s) throw new Error(`service ${String(name)} is not running in this process`);
  return s as AppServices[K];
}
