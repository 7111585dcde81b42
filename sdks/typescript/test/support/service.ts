// Starts the real all-in-one Marginal service (scripts/start.ts of this repository: Kafka broker,
// schema registry, PGlite, ingest, processor and api) as a child process on free ports with a
// temporary DATA_DIR, for the SDK's integration tests and bench/sdk. Needs the repository's own
// `npm install` (its tsx and dependencies); generates the git-ignored route files when missing.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

export interface RunningService {
  /** Origin, e.g. http://127.0.0.1:41234. */
  url: string;
  adminToken: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function ensureRoutes(): void {
  if (fs.existsSync(path.join(REPO_ROOT, 'ingest/generated/routes.ts')) && fs.existsSync(path.join(REPO_ROOT, 'api/generated/routes.ts')))
    return;
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/tsoa-generate.ts', '--routes'], { cwd: REPO_ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('generating the service routes failed (run `npm install` at the repository root first)');
}

/** Starts the service and resolves once it answers; `env` adds to the defaults below. */
export async function startService(env: Record<string, string> = {}, readyTimeoutMs = 180_000): Promise<RunningService> {
  ensureRoutes();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-sdk-'));
  const adminToken = `mk_admin_sdk_${randomBytes(12).toString('hex')}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      KAFKA_PORT: String(await freePort()),
      SCHEMA_REGISTRY_PORT: '0',
      MARGINAL_ADMIN_TOKEN: adminToken,
      MARGINAL_MASTER_KEY: randomBytes(32).toString('hex'),
      KAFKA_TOPIC_PARTITIONS: '2',
      RATE_LIMIT_INGEST_PER_MINUTE: '1000000',
      RATE_LIMIT_READ_PER_15_MINUTES: '1000000',
      PROCESSOR_FLUSH_MAX_DELAY_MS: '200',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service not ready in ${readyTimeoutMs} ms:\n${output.slice(-4000)}`)), readyTimeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /Marginal is ready at (http:\/\/[^\s/]+)\/v1/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before it was ready:\n${output.slice(-4000)}`));
    });
  });
  // Keep draining its output so the child never blocks on a full pipe.
  child.stdout!.resume();
  child.stderr!.resume();
  return { url, adminToken, stop: () => stopChild(child, dataDir) };
}

async function stopChild(child: ChildProcess, dataDir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGINT'); // the service's Ctrl-C path stops the broker too
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
