// A live HTTP host for integration tests: hostComponents on 127.0.0.1:0 with a temp DATA_DIR and a
// fresh control plane (PGlite under DATA_DIR, or a new database on the injected PostgreSQL), the
// admin token and master key fixed by the test, plus small fetch helpers that return status,
// headers and the parsed JSON body.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { startApi } from '../../api/component.js';
import { loadConfig } from '../../core/config.js';
import type { ControlDb } from '../../core/control/db.js';
import { loadInstanceSecrets } from '../../core/instance-secrets.js';
import { createLogger } from '../../core/logger.js';
import { hostComponents, type Host, type Infra, type StartComponent } from '../../core/process-host.js';
import {
  CONTROL_DB_KINDS,
  openFreshControlDb,
  TEST_MASTER_KEY,
  testPostgresUrl,
  type ControlDbKind,
  type FreshControlDb,
} from './control-db.js';
import { testHostLakeEnv } from './test-lake.js';

export interface TestHost {
  /** Origin, e.g. http://127.0.0.1:41234 (routes are under /v1). */
  url: string;
  adminToken: string;
  dataDir: string;
  /** The host's own control plane (PGlite is single-process, so tests reach it through here). */
  db: ControlDb;
  host: Host;
  stop(): Promise<void>;
}

export interface TestHostOptions {
  /** PostgreSQL URL of a (fresh) database; null or absent = PGlite under DATA_DIR/control. */
  databaseUrl?: string | null;
  /** Extra environment for loadConfig (e.g. RATE_LIMIT_READ_PER_15_MINUTES). */
  env?: Record<string, string>;
  components?: StartComponent[];
  /** Kafka brokers and schema registry for services that need them (ingest); default none. */
  infra?: Infra;
}

/** Starts a host; the caller must stop() it. The master key is TEST_MASTER_KEY. */
export async function startTestHost(opts: TestHostOptions = {}): Promise<TestHost> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-http-'));
  const adminToken = `mk_admin_test_${crypto.randomBytes(12).toString('hex')}`;
  const given = { ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}), ...opts.env };
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    MARGINAL_ADMIN_TOKEN: adminToken,
    MARGINAL_MASTER_KEY: TEST_MASTER_KEY.toString('hex'),
    // TEST_LOG_LEVEL=error shows a test host's errors (a 500's stack) without editing the test.
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...given,
    // With a LAKE_DIR: the same lake as the test's child processors; without a catalog, one of its own.
    ...(await testHostLakeEnv(given)),
  });
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  let host: Host;
  try {
    host = await hostComponents({
      config,
      secrets: loadInstanceSecrets(config),
      logger,
      infra: opts.infra ?? { kafkaBrokers: null, schemaRegistryUrl: null },
      components: opts.components ?? [startApi],
    });
  } catch (err) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: host.url,
    adminToken,
    dataDir,
    db: host.ctx.db,
    host,
    async stop() {
      await host.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface HostSuite {
  kind: ControlDbKind;
  /** The running host (valid inside tests and hooks). */
  host(): TestHost;
}

/**
 * Declares `body` once per control-plane kind ("<title> [pglite]", "<title> [postgres]"), each
 * with its own host and fresh database, started before and stopped after the block's tests.
 * Without a PostgreSQL URL the postgres variant is skipped with a warning (an error under CI).
 */
export function describeEachHost(title: string, body: (suite: HostSuite) => void, opts: Omit<TestHostOptions, 'databaseUrl'> = {}): void {
  for (const kind of CONTROL_DB_KINDS) {
    if (kind === 'postgres' && !testPostgresUrl()) {
      const msg = `[http] no PostgreSQL for "${title}": set TEST_DATABASE_URL or install PostgreSQL`;
      if (process.env.CI) throw new Error(`${msg} (required under CI)`);
      console.warn(`${msg}; the postgres variant is SKIPPED`);
      describe.skip(`${title} [postgres]`, () => body({ kind, host: unavailable }));
      continue;
    }
    describe(`${title} [${kind}]`, () => {
      let database: FreshControlDb | undefined;
      let running: TestHost | undefined;
      beforeAll(async () => {
        if (kind === 'postgres') {
          // A fresh database; the host opens its own pool on it and runs the (no-op) migrations.
          database = await openFreshControlDb('postgres');
        }
        running = await startTestHost({ ...opts, databaseUrl: database?.url ?? null });
      });
      afterAll(async () => {
        await running?.stop();
        await database?.dispose();
      });
      body({
        kind,
        host: () => {
          if (!running) throw new Error('test host used outside a test');
          return running;
        },
      });
    });
  }
}

function unavailable(): never {
  throw new Error('test host unavailable');
}

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: T;
}

export interface HttpOptions {
  /** Sent as Authorization: Bearer <token>. */
  token?: string;
  /** Serialized as JSON. */
  json?: unknown;
  /** Sent as is (with Content-Type: application/json unless headers say otherwise). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

/** One HTTP request against a test host; `path` starts with /v1 or another absolute path. */
export async function http<T = any>(base: string, method: string, urlPath: string, opts: HttpOptions = {}): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token !== undefined) headers.authorization ??= `Bearer ${opts.token}`;
  let body: string | Buffer | undefined;
  if (opts.json !== undefined) body = JSON.stringify(opts.json);
  else if (opts.raw !== undefined) body = opts.raw;
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${base}${urlPath}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** A request to /v1/admin… with the host's admin token. */
export function admin<T = any>(h: TestHost, method: string, adminPath: string, json?: unknown): Promise<HttpResult<T>> {
  return http<T>(h.url, method, `/v1/admin${adminPath}`, { token: h.adminToken, json });
}
