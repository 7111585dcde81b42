// Availability (issue 17): what clients are told while a dependency is down, and how soon the
// service is back by itself. A private PostgreSQL server that the test stops (→ 503 with
// Retry-After on every control-plane read of a request, never 500); a private, supervised Kafka
// broker that the test stalls with SIGSTOP (→ 503 within 5 s, never a hang; the same key then
// counted and charged once) and kills with SIGKILL (→ started again, 202s resume by themselves);
// a processor SIGKILLed and restarted on its data dir (→ partitions back at once, not after its
// session); the processor thread not holding up the HTTP listener; and the start banner and
// logs, which never show a secret. Real broker, registry and PostgreSQL.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiComponent } from '../../api/component.js';
import { getCreditBalance } from '../../core/control/credits.js';
import { createIngest } from '../../ingest/component.js';
import { processorThread } from '../../processor/thread-host.js';
import { superviseBroker, type SupervisedBroker } from '../../scripts/kafka/broker-supervisor.js';
import { findFreePort } from '../../scripts/kafka/broker.js';
import { createLogger } from '../../core/logger.js';
import { spawnService, waitUntilServing } from '../../scripts/service-process.js';
import { openFreshControlDb, TEST_MASTER_KEY, testPostgresUrl, type FreshControlDb } from '../support/control-db.js';
import { admin, http, startTestHost, type HttpResult, type TestHost } from '../support/http.js';
import { signedPost } from '../support/ingest-harness.js';
import { createTenant, llmEvent, type Pipeline, type Tenant } from '../support/pipeline.js';
import { startTestPostgres } from '../support/postgres.js';
import { spawnProcessor } from '../support/processor-child.js';

const registryUrl = inject('schemaRegistryUrl');
const brokers = inject('kafkaBrokers');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LIMITS = { RATE_LIMIT_INGEST_PER_MINUTE: '100000', RATE_LIMIT_READ_PER_15_MINUTES: '100000' };

function expectUnavailable(res: HttpResult): void {
  expect(res.status, JSON.stringify(res.body)).toBe(503);
  expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
  expect(res.body.error.details.retryable).toBe(true);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
}

/** One OTLP/JSON export holding one span with model usage (always the same trace and span). */
function postOtlp(url: string, apiKey: string): Promise<Response> {
  const nanos = String(BigInt(Date.now() - 60_000) * 1_000_000n);
  const span = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    name: 'chat',
    startTimeUnixNano: nanos,
    endTimeUnixNano: nanos,
    attributes: [
      { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } },
      { key: 'gen_ai.usage.input_tokens', value: { intValue: '10' } },
    ],
  };
  return fetch(`${url}/otlp/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] }),
  });
}

async function timed<T>(f: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await f();
  return { value, ms: performance.now() - t0 };
}

const asPipeline = (host: TestHost): Pipeline => ({ host, url: host.url, lakeDir: `${host.dataDir}/lake`, stop: () => host.stop() });

// A server of its own, from the binaries global-setup found (it provides a URL only then).
describe.skipIf(!testPostgresUrl())('PostgreSQL stopped under a running service', () => {
  let tmp: string;
  let stopPostgres: (() => Promise<void>) | null = null;
  let host: TestHost;
  let tenant: Tenant;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-avail-pg-'));
    const pg = await startTestPostgres(tmp);
    if (!pg) throw new Error('this test needs the PostgreSQL server binaries (see .ci/run)');
    stopPostgres = pg.stop;
    host = await startTestHost({
      databaseUrl: pg.url,
      components: [createIngest({ settingsTtlMs: 100 }), apiComponent()],
      infra: { kafkaBrokers: brokers.split(','), schemaRegistryUrl: registryUrl },
      env: LIMITS,
    });
    tenant = await createTenant(asPipeline(host), { credits: 10 });
    const first = await signedPost(host.url, tenant.writer, '/v1/usage-events', llmEvent('pg-1'));
    expect(first.status).toBe(202);
    await stopPostgres();
    stopPostgres = null;
    // Past every cache TTL on the request path (settings 100 ms, rates 1 s), not the key cache.
    await sleep(1_200);
  });
  afterAll(async () => {
    await host?.stop().catch(() => undefined);
    await stopPostgres?.();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('answers ingestion 503 with Retry-After, fast', async () => {
    const { value, ms } = await timed(() => signedPost(host.url, tenant.writer, '/v1/usage-events', llmEvent('pg-2')));
    expectUnavailable(value);
    expect(ms).toBeLessThan(5_000);
  });

  it('answers an API key lookup (a key not in the cache) 503, not 401 or 500', async () => {
    const res = await http(host.url, 'GET', '/v1/ping', { token: `mk_live_${crypto.randomBytes(32).toString('base64url')}` });
    expectUnavailable(res);
  });

  it('answers reads and the admin API 503', async () => {
    expectUnavailable(await http(host.url, 'GET', '/v1/cost-data/summary', { token: tenant.readKey }));
    expectUnavailable(await http(host.url, 'GET', '/v1/rates', { token: tenant.readKey }));
    expectUnavailable(await admin(host, 'GET', '/organizations'));
    expectUnavailable(await admin(host, 'POST', `/organizations/${tenant.organizationId}/credits`, { amount: 5 }));
  });
});

describe('the local broker stalled, then killed', () => {
  let tmp: string;
  let broker: SupervisedBroker;
  let host: TestHost;
  let tenant: Tenant;
  const CREDITS = 100;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-avail-kafka-'));
    broker = await superviseBroker({ port: await findFreePort(), dataDir: path.join(tmp, 'kafka') }, createLogger('silent'), {
      firstDelayMs: 200,
    });
    host = await startTestHost({
      components: [createIngest({ sweeper: { intervalMs: 500, strandedAfterMs: 2_000 } }), apiComponent()],
      infra: { kafkaBrokers: broker.brokers, schemaRegistryUrl: registryUrl },
      env: LIMITS,
    });
    tenant = await createTenant(asPipeline(host), { credits: CREDITS });
    expect((await signedPost(host.url, tenant.writer, '/v1/usage-events', llmEvent('k-1'))).status).toBe(202);
  });
  afterAll(async () => {
    const pid = broker?.pid();
    if (pid) process.kill(pid, 'SIGCONT');
    await host?.stop().catch(() => undefined);
    await broker?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const balance = () => getCreditBalance(host.db, tenant.organizationId);
  const pendingEvents = async () =>
    (await http(host.url, 'GET', '/v1/cost-data/summary', { token: tenant.readKey })).body.status_counts.pending as number;

  it('SIGSTOPped: 503 with Retry-After within 5 s, then the same key is accepted and charged once', async () => {
    const pid = broker.pid()!;
    process.kill(pid, 'SIGSTOP');
    try {
      const single = await timed(() => signedPost(host.url, tenant.writer, '/v1/usage-events', llmEvent('k-2')));
      expectUnavailable(single.value);
      expect(single.ms).toBeLessThan(5_000);
      // A retry meanwhile is told the same, as fast.
      const retry = await timed(() => signedPost(host.url, tenant.writer, '/v1/usage-events', llmEvent('k-2')));
      expectUnavailable(retry.value);
      expect(retry.ms).toBeLessThan(5_000);
      // A batch answers 200 with each event's 503 in its slot and says when to retry.
      const batch = await timed(() =>
        signedPost(host.url, tenant.writer, '/v1/usage-events/batch', { events: [llmEvent('k-3'), llmEvent('k-4')] }),
      );
      expect(batch.value.status).toBe(200);
      expect(batch.value.body.results.map((r: any) => r.error?.code)).toEqual(['SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE']);
      expect(Number(batch.value.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(batch.ms).toBeLessThan(5_000);
      // An OTLP export with a usage span: 503 UNAVAILABLE with Retry-After, which exporters retry.
      const otlp = await timed(() => postOtlp(host.url, tenant.writer.apiKey));
      expect(otlp.value.status).toBe(503);
      expect(Number(otlp.value.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await otlp.value.json()).toMatchObject({ code: 14, error: { code: 'SERVICE_UNAVAILABLE' } });
      expect(otlp.ms).toBeLessThan(5_000);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    // The stalled sends complete once the broker runs again; retries of the same keys get 202 with
    // the ids they would have had, and each key is charged once: k-1..k-4, 4 credits in all.
    for (const key of ['k-2', 'k-3', 'k-4']) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const res = await signedPost(host.url, tenant.writer, '/v1/usage-events', llmEvent(key));
        if (res.status === 202) break;
        expect(res.status).toBe(503);
        if (Date.now() > deadline) throw new Error(`${key} not accepted within 60 s of SIGCONT`);
        await sleep(250);
      }
    }
    // The exporter's retry of the same export: accepted, and its span charged once.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await postOtlp(host.url, tenant.writer.apiKey);
      if (res.status === 200) break;
      expect(res.status).toBe(503);
      if (Date.now() > deadline) throw new Error('OTLP export not accepted within 60 s of SIGCONT');
      await sleep(250);
    }
    expect(await balance()).toBe(CREDITS - 5);
    expect(await pendingEvents()).toBe(5);
  });

  it('SIGKILLed: the supervisor starts it again and ingest answers 202 again by itself', async () => {
    const before = broker.restarts();
    const pid = broker.pid()!;
    process.kill(pid, 'SIGKILL');
    // Meanwhile: 503s, each within the bound (or already a 202 if the broker is back).
    const during = await timed(() => signedPost(host.url, tenant.writer, '/v1/usage-events', llmEvent('k-5')));
    expect([202, 503]).toContain(during.value.status);
    if (during.value.status === 503) expectUnavailable(during.value);
    expect(during.ms).toBeLessThan(10_000);
    const deadline = Date.now() + 120_000;
    let accepted: HttpResult | null = null;
    while (!accepted) {
      const res = await signedPost(host.url, tenant.writer, '/v1/usage-events', llmEvent('k-5'));
      if (res.status === 202) accepted = res;
      else if (Date.now() > deadline) throw new Error(`no 202 within 120 s of the broker's death (last ${res.status})`);
      else await sleep(250);
    }
    // The supervisor counts the restart once its readiness probe passes, which may be just after
    // the broker took ingest's first send.
    const counted = Date.now() + 30_000;
    while (broker.restarts() === before && Date.now() < counted) await sleep(100);
    expect(broker.restarts()).toBe(before + 1);
    expect(broker.pid()).not.toBe(pid);
    // Six keys (k-1..k-5 and the OTLP span), six credits, six ledger rows: nothing counted twice across the restart.
    expect(await balance()).toBe(CREDITS - 6);
    expect(await pendingEvents()).toBe(6);
  });
});

describe('the all-in-one processor thread', () => {
  it('does not hold up the HTTP listener: a worker that cannot reach Kafka is retried and reported on /metrics', async () => {
    // A port nothing listens on: the worker's processor keeps failing to connect.
    const deadBroker = `127.0.0.1:${await findFreePort()}`;
    // The lake's catalog is made first: the host's start is what is timed.
    const catalog = await openFreshControlDb('postgres', { migrate: false });
    await catalog.db.close();
    const { value: host, ms } = await timed(() =>
      startTestHost({
        components: [processorThread({ restartDelayMs: 200, stopTimeoutMs: 5_000 })],
        infra: { kafkaBrokers: [deadBroker], schemaRegistryUrl: registryUrl },
        env: { LAKE_CATALOG_URL: catalog.url! },
      }),
    );
    try {
      expect(ms).toBeLessThan(15_000);
      expect((await http(host.url, 'GET', '/healthz')).status).toBe(200);
      const metrics = (await http(host.url, 'GET', '/metrics')).body as string;
      expect(metrics).toMatch(/^marginal_processor_thread_up 0$/m);
    } finally {
      await host.stop();
    }
  });
});

describe.skipIf(!testPostgresUrl())('a processor SIGKILLed and restarted on its data dir', () => {
  let control: FreshControlDb;
  let dataDir: string;

  beforeAll(async () => {
    control = await openFreshControlDb('postgres');
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-avail-proc-'));
  });
  afterAll(async () => {
    await control?.dispose();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('rejoins as its dead member: its partitions are back long before the 60 s session would expire', async () => {
    const env = {
      KAFKA_BROKERS: brokers,
      SCHEMA_REGISTRY_URL: registryUrl,
      DATABASE_URL: control.url!,
      DATA_DIR: dataDir,
      LAKE_DIR: path.join(dataDir, 'lake'),
      PORT: '0',
      MARGINAL_ADMIN_TOKEN: 'avail-admin',
      MARGINAL_MASTER_KEY: TEST_MASTER_KEY.toString('hex'),
      // Without the rejoin, the restarted processor would wait out this session of its dead self.
      PROCESSOR_SESSION_TIMEOUT_MS: '60000',
      LOG_LEVEL: 'info',
    };
    const first = spawnProcessor(env);
    await Promise.race([first.assigned, first.exited.then(() => Promise.reject(new Error(first.output())))]);
    first.kill('SIGKILL');
    await first.exited;
    const t0 = performance.now();
    const second = spawnProcessor(env);
    try {
      await Promise.race([
        second.assigned,
        sleep(40_000).then(() => Promise.reject(new Error(`no assignment within 40 s:\n${second.output()}`))),
      ]);
      expect(performance.now() - t0).toBeLessThan(40_000);
    } finally {
      second.kill('SIGTERM');
      await second.exited;
    }
  });
});

describe('secrets at start', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-avail-start-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** Runs `npm start`'s program on the shared broker and registry until it serves; returns what it printed. */
  async function startOnce(name: string, extraEnv: Record<string, string>, during?: (url: string) => Promise<void>): Promise<string> {
    const port = await findFreePort();
    const url = `http://127.0.0.1:${port}`;
    const service = spawnService({
      name,
      entry: 'scripts/start',
      built: false,
      logFile: path.join(tmp, `${name}.log`),
      env: {
        PORT: String(port),
        DATA_DIR: path.join(tmp, name),
        KAFKA_BROKERS: brokers,
        SCHEMA_REGISTRY_URL: registryUrl,
        LOG_LEVEL: 'debug',
        ...extraEnv,
      },
    });
    try {
      await waitUntilServing(service, url, 120_000);
      // The banner is printed right after the listener opens.
      const deadline = Date.now() + 10_000;
      while (!fs.readFileSync(service.logFile, 'utf8').includes('Marginal is ready') && Date.now() < deadline) await sleep(100);
      await during?.(url);
    } finally {
      await service.stop();
    }
    return fs.readFileSync(service.logFile, 'utf8');
  }

  it('never prints or logs the admin token from the environment, the master key or an API key', async () => {
    // The token from the environment, the master key generated (so the secrets file is created:
    // the case in which the banner used to print the token).
    const token = `mk_admin_env_${crypto.randomBytes(16).toString('hex')}`;
    let apiKey = '';
    const output = await startOnce('from-env', { MARGINAL_ADMIN_TOKEN: token }, async (url) => {
      const org = await http(url, 'POST', '/v1/admin/organizations', { token, json: { name: 'x' } });
      const key = await http(url, 'POST', `/v1/admin/organizations/${org.body.organization_id}/api-keys`, {
        token,
        json: { scopes: ['usage:write'] },
      });
      apiKey = key.body.api_key;
      // A signed request with a bad signature, and an unknown key: both logged paths.
      await http(url, 'POST', '/v1/usage-events', {
        token: apiKey,
        json: llmEvent('s-1'),
        headers: { 'x-timestamp': '1', 'x-signature': 'v1=00' },
      });
      await http(url, 'GET', '/v1/ping', { token: `${apiKey}x` });
    });
    const stored = JSON.parse(fs.readFileSync(path.join(tmp, 'from-env', 'instance-secrets.json'), 'utf8')) as {
      adminToken: string;
      masterKey: string;
    };
    expect(stored.adminToken).toBe(token);
    expect(output).toContain('Marginal is ready');
    expect(apiKey).toMatch(/^mk_live_/);
    for (const secret of [token, stored.masterKey, apiKey]) expect(output).not.toContain(secret);
  });
});
