// Ingestion when things fail (docs/design.md "Ingest"): Kafka down → 503 retryable with the credit
// returned, and a retry succeeds once it is back; the ingest process killed between reservation
// and publish → the sweeper of the next process delivers the event exactly once.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { v5 as uuidv5 } from 'uuid';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startApi } from '../../api/component.js';
import { getCreditBalance } from '../../core/control/credits.js';
import type { ControlDb } from '../../core/control/db.js';
import { projectRoot } from '../../core/paths.js';
import { createIngest } from '../../ingest/component.js';
import { findFreePort, startBroker, type RunningBroker } from '../../scripts/kafka/broker.js';
import { createTestTenant, openFreshControlDb, TEST_MASTER_KEY, testPostgresUrl, type FreshControlDb } from '../support/control-db.js';
import { startTestHost, type TestHost } from '../support/http.js';
import { signedPost, UsageEventTopicReader } from '../support/ingest-harness.js';

const brokers = inject('kafkaBrokers').split(',');
const registryUrl = inject('schemaRegistryUrl');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const llm = (key: string) => ({ idempotency_key: key, model: 'gpt-4o-mini', input_tokens: 10, output_tokens: 5 });

async function ledgerRows(db: ControlDb, org: string): Promise<Array<{ idempotency_key: string; state: string }>> {
  return db.query('SELECT idempotency_key, state FROM ingest_ledger_states WHERE organization_id = $1 ORDER BY idempotency_key', [org]);
}

/** Ingest groups (one per reservation transaction) by state. */
async function groupCounts(db: ControlDb): Promise<{ published: string; unpublished: string }> {
  const [row] = await db.query<{ published: string; unpublished: string }>(
    `SELECT count(*) FILTER (WHERE published_at IS NOT NULL) AS published, count(*) FILTER (WHERE published_at IS NULL) AS unpublished
       FROM ingest_groups`,
  );
  return row!;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('Kafka unavailable', () => {
  let dataDir: string;
  let port: number;
  let broker: RunningBroker | undefined;
  let host: TestHost;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingest-503-'));
    port = await findFreePort();
    broker = await startBroker({ port, dataDir: path.join(dataDir, 'kafka') });
    host = await startTestHost({
      components: [createIngest(), startApi],
      infra: { kafkaBrokers: broker.brokers, schemaRegistryUrl: registryUrl },
    });
  });

  afterAll(async () => {
    await host?.stop();
    await broker?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('503 SERVICE_UNAVAILABLE retryable, the credit returned and no reservation left; a retry succeeds when Kafka is back', async () => {
    const t = await createTestTenant(host.db, { credits: 3 });
    const balance = async () => (await getCreditBalance(host.db, t.organizationId))!;
    expect((await signedPost(host.url, t, '/v1/usage-events', llm('before'))).status).toBe(202);
    expect(await balance()).toBe(2);

    await broker!.stop();
    broker = undefined;
    const asked = Date.now();
    const res = await signedPost(host.url, t, '/v1/usage-events', llm('during'));
    expect(res.status).toBe(503);
    // A waiting client hears within seconds, not after the client library's long default backoff.
    expect(Date.now() - asked).toBeLessThan(15_000);
    expect(res.body).toMatchObject({
      success: false,
      error: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'Kafka cannot take events right now. Retry with the same idempotency_key: it is never counted or charged twice.',
        details: { retryable: true },
      },
    });
    expect(await balance()).toBe(2);
    expect(await ledgerRows(host.db, t.organizationId)).toEqual([{ idempotency_key: 'before', state: 'published' }]);
    // The released group is gone with its row: nothing is left for a sweeper to send.
    expect(await groupCounts(host.db)).toEqual({ published: '1', unpublished: '0' });

    const batch = await signedPost(host.url, t, '/v1/usage-events/batch', { events: [llm('during'), llm('before')] });
    expect(batch.status).toBe(200);
    expect(batch.body.results[0].error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { retryable: true } });
    // Already published: answered from the ledger, Kafka not needed.
    expect(batch.body.results[1]).toMatchObject({ event_id: uuidv5('before', t.organizationId), status: 'accepted' });
    expect(await balance()).toBe(2);

    // Same port and data: the producer reconnects.
    broker = await startBroker({ port, dataDir: path.join(dataDir, 'kafka') });
    let retry = await signedPost(host.url, t, '/v1/usage-events', llm('during'));
    for (let i = 0; retry.status === 503 && i < 10; i++) {
      await sleep(1_000);
      retry = await signedPost(host.url, t, '/v1/usage-events', llm('during'));
    }
    expect(retry.status).toBe(202);
    expect(retry.body.event_id).toBe(uuidv5('during', t.organizationId));
    expect(await balance()).toBe(1);
    expect(await ledgerRows(host.db, t.organizationId)).toEqual([
      { idempotency_key: 'before', state: 'published' },
      { idempotency_key: 'during', state: 'published' },
    ]);
  });
});

describe('a publish slower than the stranded age', () => {
  let host: TestHost;
  let reader: UsageEventTopicReader;

  beforeAll(async () => {
    reader = await UsageEventTopicReader.start(brokers, registryUrl);
    // Every publish waits 2 s while the sweeper, every 200 ms, takes groups older than 300 ms.
    host = await startTestHost({
      components: [
        createIngest({
          // No 503 deadline: this test is about the sweeper, not about answering a slow publish.
          groupCommit: { beforePublish: () => sleep(2_000), publishTimeoutMs: 0 },
          sweeper: { intervalMs: 200, strandedAfterMs: 300 },
        }),
      ],
      infra: { kafkaBrokers: brokers, schemaRegistryUrl: registryUrl },
    });
  });

  afterAll(async () => {
    await reader?.stop();
    await host?.stop();
  });

  it('is not swept by its own process: the group is in flight, so each event is sent once', async () => {
    const t = await createTestTenant(host.db, { credits: 5 });
    const res = await signedPost(host.url, t, '/v1/usage-events/batch', { events: [llm('slow-1'), llm('slow-2')] });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['accepted', 'accepted']);
    expect(await ledgerRows(host.db, t.organizationId)).toEqual([
      { idempotency_key: 'slow-1', state: 'published' },
      { idempotency_key: 'slow-2', state: 'published' },
    ]);
    expect(await groupCounts(host.db)).toEqual({ published: '1', unpublished: '0' });
    await sleep(600); // three more sweeper passes
    await reader.catchUp();
    expect(
      reader
        .recordsOf(t.organizationId)
        .map((r) => r.event.idempotency_key)
        .sort(),
    ).toEqual(['slow-1', 'slow-2']);
    expect(await getCreditBalance(host.db, t.organizationId)).toBe(3);
  });
});

describe.skipIf(!testPostgresUrl())('ingest killed between reservation and publish [postgres]', () => {
  let database: FreshControlDb;
  let child: ChildProcess | undefined;
  let host: TestHost | undefined;
  let reader: UsageEventTopicReader;
  let dataDir: string;

  beforeAll(async () => {
    database = await openFreshControlDb('postgres');
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingest-crash-'));
    reader = await UsageEventTopicReader.start(brokers, registryUrl);
  });

  afterAll(async () => {
    child?.kill('SIGKILL');
    await reader?.stop();
    await host?.stop();
    await database?.dispose();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Runs ingest/main.ts in its own process, pausing 10 minutes before every publish. */
  async function startSlowIngest(): Promise<{ proc: ChildProcess; url: string }> {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'ingest/main.ts'], {
      cwd: projectRoot,
      env: {
        ...process.env,
        PORT: '0',
        DATA_DIR: dataDir,
        DATABASE_URL: database.url!,
        KAFKA_BROKERS: brokers.join(','),
        SCHEMA_REGISTRY_URL: registryUrl,
        MARGINAL_ADMIN_TOKEN: 'mk_admin_crash_test',
        MARGINAL_MASTER_KEY: TEST_MASTER_KEY.toString('hex'),
        MARGINAL_INGEST_PUBLISH_DELAY_MS: '600000',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    proc.stderr!.on('data', (d) => (stderr += d));
    const url = await new Promise<string>((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error(`ingest child did not start:\n${stderr}`)), 120_000);
      proc.stdout!.on('data', (d) => {
        buf += d;
        const m = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"ingest listening"/.exec(buf);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      proc.once('exit', (code) => reject(new Error(`ingest child exited with ${code}:\n${stderr}`)));
    });
    return { proc, url };
  }

  it('the sweeper of the next process publishes the stranded reservation exactly once', async () => {
    const t = await createTestTenant(database.db, { credits: 5 });
    const eventId = uuidv5('crash-1', t.organizationId);
    const started = await startSlowIngest();
    child = started.proc;

    const inFlight = signedPost(started.url, t, '/v1/usage-events', llm('crash-1')).then(
      (r) => r,
      (err: Error) => err,
    );
    await waitFor('the reservation', async () => (await ledgerRows(database.db, t.organizationId)).length === 1);
    expect(await ledgerRows(database.db, t.organizationId)).toEqual([{ idempotency_key: 'crash-1', state: 'reserved' }]);
    expect(await getCreditBalance(database.db, t.organizationId)).toBe(4);

    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    child = undefined;
    // The client never got an answer (no 202 was given for an event not yet in Kafka).
    expect(await inFlight).toBeInstanceOf(Error);
    await reader.catchUp();
    expect(reader.recordsOf(t.organizationId)).toEqual([]);

    host = await startTestHost({
      databaseUrl: database.url,
      components: [createIngest({ sweeper: { intervalMs: 200, strandedAfterMs: 1_000 } })],
      infra: { kafkaBrokers: brokers, schemaRegistryUrl: registryUrl },
    });
    await waitFor('the sweeper', async () => (await ledgerRows(database.db, t.organizationId))[0]?.state === 'published');
    await reader.catchUp();
    const records = reader.recordsOf(t.organizationId);
    expect(records.map((r) => r.event.event_id)).toEqual([eventId]);
    expect(records[0]!.event).toMatchObject({ idempotency_key: 'crash-1', input_tokens: 10, output_tokens: 5, api_key_id: t.keyId });
    expect(await getCreditBalance(database.db, t.organizationId)).toBe(4);

    // The client's retry: 202 with the same id, nothing spent, nothing re-sent.
    const retry = await signedPost(host.url, t, '/v1/usage-events', llm('crash-1'));
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ event_id: eventId, status: 'accepted' });
    expect(await getCreditBalance(database.db, t.organizationId)).toBe(4);
    await sleep(1_500); // two more sweeper passes
    await reader.catchUp();
    expect(reader.recordsOf(t.organizationId)).toHaveLength(1);
  });
});
