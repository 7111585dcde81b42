// The all-in-one service started as a child (scripts/service-process.ts) for programs that drive
// it from outside as a client would (the fuzzing job, the noisy-neighbour bench): free loopback
// ports for HTTP, the broker and the registry, a temp DATA_DIR removed on stop, a fixed admin
// token; tenants are created through the admin API only.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SCOPES } from '../core/auth/scopes.js';
import { findFreePort } from './kafka/broker.js';
import { spawnService, waitUntilServing } from './service-process.js';

export interface LocalService {
  /** Origin, e.g. http://127.0.0.1:41234 (routes under /v1). */
  url: string;
  adminToken: string;
  pid: number;
  /** The service's log (JSON lines); removed with DATA_DIR on stop. */
  logFile: string;
  stop(): Promise<void>;
}

export interface ServiceTenant {
  organizationId: string;
  apiKey: string;
  signingSecret: string;
}

/** Starts the service and resolves once it serves (a first start may fetch the broker's jars). */
export async function startLocalService(opts: { env?: Record<string, string>; nodeFlags?: string[] } = {}): Promise<LocalService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-local-'));
  const adminToken = `mk_admin_${crypto.randomBytes(12).toString('hex')}`;
  const port = await findFreePort();
  const logFile = path.join(dataDir, 'service.log');
  const service = spawnService({
    name: 'marginal',
    entry: 'scripts/start',
    built: false,
    logFile,
    nodeFlags: opts.nodeFlags,
    env: {
      HOST: '127.0.0.1',
      PORT: String(port),
      KAFKA_PORT: String(await findFreePort()),
      SCHEMA_REGISTRY_PORT: String(await findFreePort()),
      DATA_DIR: dataDir,
      MARGINAL_ADMIN_TOKEN: adminToken,
      MARGINAL_MASTER_KEY: crypto.randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
      ...opts.env,
    },
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilServing(service, url, 300_000);
  } catch (err) {
    await service.stop();
    throw err;
  }
  return {
    url,
    adminToken,
    pid: service.pid,
    logFile,
    async stop() {
      await service.stop(30_000);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function adminPost<T>(svc: LocalService, urlPath: string, body: unknown): Promise<T> {
  const res = await fetch(`${svc.url}/v1/admin${urlPath}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`POST /v1/admin${urlPath}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** An organization with one key of every scope and `credits` event credits, through the admin API. */
export async function createServiceTenant(svc: LocalService, name: string, credits: number): Promise<ServiceTenant> {
  const { organization_id } = await adminPost<{ organization_id: string }>(svc, '/organizations', { name });
  const key = await adminPost<{ api_key: string; signing_secret: string }>(svc, `/organizations/${organization_id}/api-keys`, {
    scopes: [...SCOPES],
  });
  await adminPost(svc, `/organizations/${organization_id}/credits`, { amount: credits });
  return { organizationId: organization_id, apiKey: key.api_key, signingSecret: key.signing_secret };
}
