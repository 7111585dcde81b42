// The open lake's catalog as the service will open it (core/lake/lake-catalog.ts), from the
// environment through core/config.ts, over real parts: DuckDB with the provisioned extensions,
// data on local disk with a DuckDB-file catalog, and data on a real S3 server (S3Proxy) with the
// catalog in the run's real PostgreSQL. Asserts the tables hold exactly the schema's columns,
// preparing twice changes nothing, and wrong addresses or keys fail fast, named, without the secret.
// Skips only when the extensions cannot be provisioned for the project's DuckDB version.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../core/config.js';
import { EVENTS_COLUMNS } from '../../core/lake/events-schema.js';
import { ensureLakeTables, LakeOpenError, type OpenLake, openLake } from '../../core/lake/lake-catalog.js';
import type { LakeSettings } from '../../core/lake/lake-settings.js';
import { ensureDuckDBExtensions } from '../../scripts/duckdb-extensions/provision.js';
import { startTestS3Server, type TestS3Server } from '../support/s3-server.js';

const provisioned = await ensureDuckDBExtensions().catch((e: Error) => {
  console.warn(`[lake-catalog] SKIPPED: the lake's DuckDB extensions cannot be provisioned: ${e.message}`);
  return null;
});

let tmp = '';
let s3: TestS3Server;
let admin: pg.Client;
let lakes = 0;
const opened: OpenLake[] = [];

async function open(settings: LakeSettings, options: Parameters<typeof openLake>[1] = {}): Promise<OpenLake> {
  const lake = await openLake(settings, options);
  opened.push(lake);
  return lake;
}

/** A fresh PostgreSQL database for one lake's catalog, as a URL. */
async function newCatalogDatabase(): Promise<string> {
  const name = `lake_catalog_${++lakes}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(inject('postgresUrl'));
  url.pathname = `/${name}`;
  return url.toString();
}

async function rows(lake: OpenLake, sql: string): Promise<Record<string, unknown>[]> {
  return (await lake.conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}

async function columnsOf(lake: OpenLake, table: string): Promise<string[]> {
  const found = await rows(
    lake,
    `SELECT column_name, data_type, is_nullable FROM information_schema.columns
     WHERE table_catalog = 'lake' AND table_schema = 'main' AND table_name = '${table}' ORDER BY ordinal_position`,
  );
  return found.map((c) => `${c.column_name} ${c.data_type}${c.is_nullable === 'NO' ? ' NOT NULL' : ''}`);
}

async function snapshot(lake: OpenLake): Promise<number> {
  return Number((await rows(lake, 'SELECT max(snapshot_id) s FROM lake.snapshots()'))[0].s);
}

/** Fails a promise that takes longer than ms (a hang is a failure, not a slow pass). */
function within<T>(ms: number, p: Promise<T>): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))]);
}

async function failureOf(p: Promise<unknown>): Promise<LakeOpenError> {
  const outcome = await within(
    30_000,
    p.then(
      () => null,
      (e: unknown) => e,
    ),
  );
  expect(outcome).toBeInstanceOf(LakeOpenError);
  return outcome as LakeOpenError;
}

describe.skipIf(!provisioned)('lake catalog (core/lake/lake-catalog.ts)', () => {
  beforeAll(async () => {
    expect(inject('postgresUrl'), 'the run has no PostgreSQL (globalSetup)').not.toBe('');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-lake-catalog-'));
    s3 = await startTestS3Server(tmp);
    admin = new pg.Client({ connectionString: inject('postgresUrl') });
    await admin.connect();
  });

  afterAll(async () => {
    for (const lake of opened) {
      try {
        lake.close();
      } catch {
        /* closed by its test */
      }
    }
    await admin?.end();
    await s3?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string>) => ({
    DATA_DIR: path.join(tmp, `data-${++lakes}`),
    LAKE_EXTENSION_DIR: provisioned?.extensionDirectory ?? '',
    ...extra,
  });
  /** Local data and a DuckDB-file catalog beside it: openLake takes it (one process owns it), the service's config does not. */
  const duckDbFileLake = (): LakeSettings => {
    const settings = loadConfig(env({ LAKE_CATALOG_URL: 'postgres://replaced@127.0.0.1:1/replaced' })).lake;
    return { ...settings, catalog: { kind: 'duckdb', path: path.join(settings.dataPath, 'catalog.ducklake') } };
  };
  const s3Env = async () => ({
    LAKE_URL: `s3://${s3.bucket}/lakes/${lakes + 1}`,
    LAKE_CATALOG_URL: await newCatalogDatabase(),
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    AWS_REGION: s3.region,
    AWS_ENDPOINT_URL: s3.endpoint,
  });

  describe.each([
    { where: 'local disk, DuckDB-file catalog (one process)', settings: async () => duckDbFileLake() },
    { where: 'S3 server, PostgreSQL catalog', settings: async () => loadConfig(env(await s3Env())).lake },
  ])('$where', ({ settings: makeSettings }) => {
    it('creates the tables with exactly the schema columns; preparing again, from a fresh DuckDB, changes nothing', async () => {
      const settings = await makeSettings();
      const lake = await open(settings);
      await ensureLakeTables(lake, [0, 1]);

      const tables = (await rows(lake, "SELECT table_name FROM duckdb_tables() WHERE database_name = 'lake' ORDER BY 1")).map(
        (r) => r.table_name,
      );
      expect(tables).toEqual([
        'daily_costs',
        'dimension_costs',
        'dimension_coverage',
        'dimension_numbers',
        'events',
        'partition_offsets_p0',
        'partition_offsets_p1',
        'session_spans',
        'spend_revisions',
      ]);
      // Written out: the rollup a reader outside Marginal groups by, and the offsets.
      expect(await columnsOf(lake, 'daily_costs')).toEqual([
        'kafka_partition INTEGER NOT NULL',
        'organization_id VARCHAR NOT NULL',
        'event_date DATE NOT NULL',
        'end_user_id VARCHAR',
        'user_id VARCHAR',
        'model VARCHAR',
        'provider VARCHAR',
        'agent_id VARCHAR',
        'workflow_id VARCHAR',
        'feature VARCHAR',
        'status VARCHAR NOT NULL',
        'event_count BIGINT NOT NULL',
        'input_tokens BIGINT',
        'output_tokens BIGINT',
        'cache_creation_input_tokens BIGINT',
        'cache_read_input_tokens BIGINT',
        'reasoning_tokens BIGINT',
        'input_cost DECIMAL(38,12)',
        'output_cost DECIMAL(38,12)',
        'cache_creation_cost DECIMAL(38,12)',
        'cache_read_cost DECIMAL(38,12)',
        'reasoning_cost DECIMAL(38,12)',
        'unit_cost DECIMAL(38,12)',
        'total_cost DECIMAL(38,12) NOT NULL',
      ]);
      expect(await columnsOf(lake, 'partition_offsets_p1')).toEqual(['next_offset BIGINT NOT NULL']);
      expect(await rows(lake, 'SELECT next_offset::INTEGER o FROM lake.partition_offsets_p1')).toEqual([{ o: 0 }]);
      // events: every column of events-schema.ts in its order, with the columns an outside reader needs first among equals.
      const events = await columnsOf(lake, 'events');
      expect(events).toHaveLength(EVENTS_COLUMNS.length);
      expect(events.slice(0, 2)).toEqual(['event_id VARCHAR NOT NULL', 'organization_id VARCHAR NOT NULL']);
      for (const c of ['event_timestamp TIMESTAMP NOT NULL', 'event_date DATE NOT NULL', 'status VARCHAR NOT NULL'])
        expect(events).toContain(c);
      expect(events).toContain('total_cost DECIMAL(38,12) NOT NULL');
      expect(events).toContain('metadata VARCHAR NOT NULL');
      expect(events).toContain('quantity DOUBLE');
      expect(events.map((c) => c.split(' ')[0])).toEqual(EVENTS_COLUMNS.map((c) => c.name));

      // Partitioned by day: two days' rows land in two event_date= folders.
      await lake.conn.run(`INSERT INTO lake.events BY NAME SELECT 'e' || i AS event_id, 'org' AS organization_id, 'k' || i AS idempotency_key,
        'key' AS api_key_id, TIMESTAMP '2026-11-01 10:00:00' AS received_at, TIMESTAMP '2026-11-01 10:00:00' + INTERVAL (i) DAY AS event_timestamp,
        DATE '2026-11-01' + CAST(i AS INTEGER) AS event_date, 'completed' AS status, 1.5 AS total_cost, true AS timestamp_provided, '{}' AS metadata,
        0 AS kafka_partition, i AS kafka_offset, TIMESTAMP '2026-11-01 10:00:00' AS priced_at FROM range(2) r(i)`);
      // Two rows are inlined into the catalog (DuckLake's default); written out they are one file per day.
      await lake.conn.run("CALL ducklake_flush_inlined_data('lake')");
      const files = (await rows(lake, "SELECT data_file FROM ducklake_list_files('lake', 'events')")).map((r) => String(r.data_file));
      expect(files).toHaveLength(2);
      expect(files.some((f) => f.includes('event_date=2026-11-01'))).toBe(true);
      expect(files.some((f) => f.includes('event_date=2026-11-02'))).toBe(true);
      if (settings.s3) expect(files.every((f) => f.startsWith(settings.dataPath))).toBe(true);
      await expect(lake.conn.run("INSERT INTO lake.events (event_id) VALUES ('no organization')")).rejects.toThrow(/NOT NULL/i);

      const before = await snapshot(lake);
      lake.close();
      const again = await open(settings);
      await ensureLakeTables(again, [0, 1]);
      await ensureLakeTables(again, [0, 1]);
      expect(await snapshot(again)).toBe(before);
      expect(await rows(again, 'SELECT count(*)::INTEGER n FROM lake.events')).toEqual([{ n: 2 }]);
      // A partition seen for the first time gets its table, starting at 0; the others are untouched.
      await ensureLakeTables(again, [0, 1, 2]);
      expect(await snapshot(again)).toBe(before + 1);
      expect(await rows(again, 'SELECT next_offset::INTEGER o FROM lake.partition_offsets_p2')).toEqual([{ o: 0 }]);
      again.close();

      // A reader attaches read-only and is refused writes.
      const reader = await open(settings, { readOnly: true });
      expect(await rows(reader, 'SELECT count(*)::INTEGER n FROM lake.events')).toEqual([{ n: 2 }]);
      await expect(reader.conn.run('INSERT INTO lake.partition_offsets_p0 VALUES (1)')).rejects.toThrow(/read-only|read only/i);
    });
  });

  it('two processes preparing one PostgreSQL-catalog lake at once both succeed, with one set of tables', async () => {
    const settings = loadConfig(env(await s3Env())).lake;
    const [a, b] = [await open(settings), await open(settings)];
    await Promise.all([ensureLakeTables(a, [0]), ensureLakeTables(b, [0])]);
    expect(await rows(b, 'SELECT next_offset::INTEGER o FROM lake.partition_offsets_p0')).toEqual([{ o: 0 }]);
    expect(await columnsOf(a, 'events')).toHaveLength(EVENTS_COLUMNS.length);
  });

  it('a wrong S3 secret fails at open, within seconds, as a storage error that does not contain the secret', async () => {
    const wrongSecret = `${s3.secretAccessKey}-wrong`;
    const settings = loadConfig(env({ ...(await s3Env()), AWS_SECRET_ACCESS_KEY: wrongSecret })).lake;
    const began = performance.now();
    const error = await failureOf(openLake(settings));
    expect(performance.now() - began).toBeLessThan(15_000);
    expect(error.step).toBe('storage');
    expect(error.message).toMatch(/did not let us list s3:\/\/marginal-lake\/lakes\/\d+\/.*check the endpoint, region and keys/);
    expect(error.message).toMatch(/403|Forbidden|denied|signature/i);
    for (const text of [error.message, String(error.stack), JSON.stringify(error)]) {
      expect(text).not.toContain(wrongSecret);
      expect(text).not.toContain(s3.secretAccessKey);
    }
  });

  it('settings copied to another thread by structured clone (workerData) are refused, not used without their credentials', async () => {
    const settings = loadConfig(env({ LAKE_CATALOG_URL: 'postgres://lake:pw@127.0.0.1:1/lake' })).lake;
    const error = await failureOf(openLake(structuredClone(settings)));
    expect(error.message).toMatch(/copied to another thread without their values: read them there with loadConfig/);
  });

  it('an unreachable catalog fails within seconds as a catalog error without the password; missing extensions name the fix', async () => {
    const password = 'catalog-password-9f2e';
    const settings = loadConfig(
      env({ LAKE_CATALOG_URL: `postgres://lake:${password}@127.0.0.1:1/lake?sslmode=disable`, LAKE_URL: path.join(tmp, 'unreachable') }),
    ).lake;
    const began = performance.now();
    const error = await failureOf(openLake(settings));
    expect(performance.now() - began).toBeLessThan(15_000);
    expect(error.step).toBe('catalog');
    expect(error.message).toMatch(/catalog \(postgres 127\.0\.0\.1:1\/lake\) could not be attached/);
    expect(`${error.message} ${error.stack}`).not.toContain(password);

    const noExtensions = { ...duckDbFileLake(), extensionDirectory: path.join(tmp, 'no-extensions') };
    const missing = await failureOf(openLake(noExtensions));
    expect(missing.step).toBe('extensions');
    expect(missing.message).toMatch(/npm run lake:extensions/);
  });
});
