// The all-in-one service (`scripts/start.ts`) as a child process, for programs that drive it from
// outside as a client would (the fuzzing job, the noisy-neighbour bench): free loopback ports for
// HTTP, the broker and the registry, a temp DATA_DIR removed on stop, a fixed admin token; tenants
// are created through the admin API only. stop() sends SIGINT (the service stops its broker) and
// SIGKILLs after 30 s.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SCOPES } from '../core/auth/scopes.js';
import { fromRoot, projectRoot } from '../core/paths.js';
import { findFreePort } from './kafka/broker.js';

export interface ServiceProcess {
  /** Origin, e.g. http://127.0.0.1:41234 (routes under /v1). */
  url: string;
  adminToken: string;
  dataDir: string;
  pid: number;
  stop(): Promise<void>;
}

export interface ServiceTenant {
  organizationId: string;
  apiKey: string;
  signingSecret: string;
}

/** Starts the service and resolves once it printed that it is ready (first start may fetch the broker's jars). */
export async function startServiceProcess(opts: { env?: Record<string, string>; logFile?: string; readyTimeoutMs?: number } = {}): Promise<ServiceProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-service-'));
  const adminToken = `mk_admin_${crypto.randomBytes(12).toString('hex')}`;
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(await findFreePort()),
    KAFKA_PORT: String(await findFreePort()),
    SCHEMA_REGISTRY_PORT: String(await findFreePort()),
    DATA_DIR: dataDir,
    MARGINAL_ADMIN_TOKEN: adminToken,
    MARGINAL_MASTER_KEY: crypto.randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    ...opts.env,
  };
  const log = fs.openSync(opts.logFile ?? path.join(dataDir, 'service.log'), 'a');
  const child = spawn(process.execPath, ['--max-semi-space-size=32', '--import', 'tsx', fromRoot('scripts', 'start.ts')], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', log],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the service did not get ready in time')), opts.readyTimeoutMs ?? 300_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Marginal is ready at (http:\/\/[^\s]+)\/v1/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code} before it was ready (log: ${opts.logFile ?? path.join(dataDir, 'service.log')})`));
    });
  });
  child.stdout!.resume();
  return {
    url,
    adminToken,
    dataDir,
    pid: child.pid!,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGINT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        await exited;
        clearTimeout(timer);
      }
      fs.closeSync(log);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function adminPost<T>(svc: ServiceProcess, urlPath: string, body: unknown): Promise<T> {
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
export async function createServiceTenant(svc: ServiceProcess, name: string, credits: number): Promise<ServiceTenant> {
  const { organization_id } = await adminPost<{ organization_id: string }>(svc, '/organizations', { name });
  const key = await adminPost<{ api_key: string; signing_secret: string }>(svc, `/organizations/${organization_id}/api-keys`, { scopes: [...SCOPES] });
  await adminPost(svc, `/organizations/${organization_id}/credits`, { amount: credits });
  return { organizationId: organization_id, apiKey: key.api_key, signingSecret: key.signing_secret };
}

export { adminPost };
