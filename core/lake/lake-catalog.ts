// Opens the open lake (DuckLake, docs/decisions/0105): a DuckDB with the lake's extensions from the
// provisioned directory (never downloaded: autoinstall off, unsigned extensions refused), the S3
// secret when the data lives on S3, and the catalog attached as `lake`; ensureLakeTables then
// makes the tables of lake-tables.ts. Invariants: credentials reach DuckDB only in SQL built here
// and never come back out in an error's message; each step that touches the network is bounded
// (libpq's connect_timeout, DuckDB's HTTP timeout and retries), so a wrong address or key fails
// in seconds with the step named.
import fs from 'node:fs';
import path from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { SecretValue } from '../secret-value.js';
import type { LakeCatalogLocation, LakeSettings, S3Settings } from './lake-settings.js';
import { type ExistingColumn, DUCKLAKE_TABLES, partitionOffsetsTable, planLakeTables } from './lake-tables.js';
import { sqlStringLiteral } from './parquet-sql.js';

export type LakeOpenStep = 'extensions' | 'storage' | 'catalog' | 'tables';

/** The lake could not be opened or prepared; the message names the step and never holds a credential. */
export class LakeOpenError extends Error {
  constructor(
    readonly step: LakeOpenStep,
    message: string,
  ) {
    super(message);
    this.name = 'LakeOpenError';
  }
}

export interface OpenLake {
  instance: DuckDBInstance;
  /** A connection on which the catalog is attached as `lake`. */
  conn: DuckDBConnection;
  /** An error of this lake's DuckDB as a LakeOpenError, its message stripped of the lake's credentials. */
  failure(step: LakeOpenStep, what: string, error: unknown): LakeOpenError;
  close(): void;
}

export interface OpenLakeOptions {
  /** A reader: nothing is written, the data path comes from the catalog. */
  readOnly?: boolean;
  /** Pin the attach at this snapshot (time travel). */
  snapshotVersion?: number;
  threads?: number;
}

/**
 * Per HTTP request to the object store, and how often DuckDB retries one (its defaults are 30 s and
 * 3), for every connection of the lake's DuckDB: a request to a store that is down fails in at most
 * about 3 × 10 s (docs/open-lake-plan.md, "the processor resumes after an S3 outage").
 */
const S3_HTTP_TIMEOUT_SECONDS = 10;
const S3_HTTP_RETRIES = 2;
/** libpq's bound on reaching the catalog's PostgreSQL. */
const CATALOG_CONNECT_TIMEOUT_SECONDS = 10;

export async function openLake(settings: LakeSettings, options: OpenLakeOptions = {}): Promise<OpenLake> {
  if (settings.catalog.kind === 'embedded') {
    throw new LakeOpenError(
      'catalog',
      `no lake catalog is configured and the all-in-one's own (${settings.catalog.dir}) is not named here: npm start runs it; elsewhere set LAKE_CATALOG_URL or DATABASE_URL`,
    );
  }
  const secrets = secretsOf(settings);
  const failure = (step: LakeOpenStep, what: string, error: unknown): LakeOpenError => {
    const cause = error instanceof Error ? error.message : String(error);
    return new LakeOpenError(
      step,
      secrets.reduce((text, s) => s.redactFrom(text), `${what}: ${cause}`),
    );
  };
  const instance = await DuckDBInstance.create(':memory:', {
    extension_directory: settings.extensionDirectory,
    autoinstall_known_extensions: 'false',
    allow_unsigned_extensions: 'false',
    ...(options.threads ? { threads: String(options.threads) } : {}),
  }).catch((e) => {
    throw failure('extensions', 'DuckDB could not start', e);
  });
  let conn: DuckDBConnection | null = null;
  try {
    conn = await instance.connect();
    const c = conn;
    const step = async (name: LakeOpenStep, what: string, run: () => Promise<unknown>): Promise<void> => {
      await run().catch((e) => {
        throw failure(name, what, e);
      });
    };
    await step('extensions', `the lake's DuckDB extensions are not in ${settings.extensionDirectory} (npm run lake:extensions)`, () =>
      loadExtensions(c, settings),
    );
    if (settings.s3) {
      const s3 = settings.s3;
      await step('storage', 'the S3 settings were refused', async () => {
        // The writer's partitions and the api's reads run on connections of their own.
        for (const statement of s3HttpBoundsSql()) await c.run(statement);
        await c.run(s3SecretSql('marginal_lake_s3', new URL(settings.dataPath).host, s3));
      });
      // Listing one key prefix proves the address and the keys now, not at the first flush.
      await step('storage', `the object store did not let us list ${settings.dataPath} (check the endpoint, region and keys)`, () =>
        c.run(`SELECT count(*) FROM glob(${sqlStringLiteral(`${settings.dataPath}_marginal_access_check*`)})`),
      );
    } else if (!options.readOnly) {
      fs.mkdirSync(settings.dataPath, { recursive: true });
    }
    if (settings.catalog.kind !== 'postgres' && !options.readOnly) fs.mkdirSync(path.dirname(settings.catalog.path), { recursive: true });
    await step('catalog', `the lake's catalog (${describeCatalog(settings.catalog)}) could not be attached`, () =>
      attachRacing(c, attachSql(settings, options)),
    );
    return {
      instance,
      conn,
      failure,
      close: () => {
        c.closeSync();
        instance.closeSync();
      },
    };
  } catch (e) {
    conn?.closeSync();
    instance.closeSync();
    throw e;
  }
}

/**
 * Whether a DuckDB error says the object store or the catalog's database could not be reached
 * (DuckDB's IO and HTTP errors, a refused connection), as opposed to one of the statement: the
 * writer waits and retries such a failure, a reader answers 503.
 */
export function isLakeUnreachable(e: unknown): boolean {
  const message = e instanceof Error ? e.message : String(e);
  return /^(IO|HTTP|Connection) Error|Unable to connect|Could not establish connection|could not connect|Connection refused/im.test(
    message,
  );
}

/**
 * Creates the lake's tables (and the offsets tables of `partitions`) that do not exist yet, and
 * adds columns the schema gained, in one transaction; a lake that already has them is left as it
 * is. Two processes preparing the same lake at once: the loser's commit conflicts (or its CREATE
 * finds the table), it plans again and finds nothing to do.
 */
export async function ensureLakeTables(lake: OpenLake, partitions: readonly number[] = []): Promise<void> {
  const wanted = [...DUCKLAKE_TABLES, ...partitions.map(partitionOffsetsTable)];
  for (let attempt = 1; ; attempt++) {
    try {
      const plan = planLakeTables('lake', await existingColumns(lake.conn), wanted);
      if (plan.problems.length > 0) throw new Error(`the lake's tables differ from the schema: ${plan.problems.join('; ')}`);
      if (plan.statements.length === 0) return;
      await lake.conn.run('BEGIN TRANSACTION');
      try {
        for (const statement of plan.statements) await lake.conn.run(statement);
        await lake.conn.run('COMMIT');
        return;
      } catch (e) {
        await lake.conn.run('ROLLBACK').catch(() => undefined);
        throw e;
      }
    } catch (e) {
      // A commit conflict, or a table another instance created since we planned (its CREATE was
      // already committed when ours bound): plan again.
      if (attempt === 3 || !/conflict|already exists/i.test(String(e)))
        throw lake.failure('tables', 'the lake tables could not be created', e);
    }
  }
}

/**
 * The first ATTACH of a new PostgreSQL catalog creates DuckLake's metadata; two processes (or the
 * processor and the api of one) doing it at once collide on PostgreSQL's unique keys, and the
 * loser finds the metadata complete when it attaches again.
 */
async function attachRacing(conn: DuckDBConnection, attach: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await conn.run(attach);
      return;
    } catch (e) {
      if (attempt === 3 || !/duplicate key|already exists|conflict/i.test(String(e))) throw e;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}

async function existingColumns(conn: DuckDBConnection): Promise<Map<string, ExistingColumn[]>> {
  const rows = (
    await conn.runAndReadAll(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
       WHERE table_catalog = 'lake' AND table_schema = 'main' ORDER BY table_name, ordinal_position`,
    )
  ).getRowObjectsJson() as { table_name: string; column_name: string; data_type: string; is_nullable: string }[];
  const tables = new Map<string, ExistingColumn[]>();
  for (const r of rows) {
    const columns = tables.get(r.table_name) ?? [];
    columns.push({ name: r.column_name, type: r.data_type, nullable: r.is_nullable === 'YES' });
    tables.set(r.table_name, columns);
  }
  return tables;
}

async function loadExtensions(conn: DuckDBConnection, settings: LakeSettings): Promise<void> {
  const names = ['ducklake'];
  if (settings.s3) names.push('httpfs');
  if (settings.catalog.kind === 'postgres') names.push('postgres_scanner');
  if (settings.catalog.kind === 'sqlite') names.push('sqlite_scanner');
  for (const name of names) await conn.run(`LOAD ${name}`);
}

function secretsOf(settings: LakeSettings): SecretValue[] {
  const given = [
    settings.s3?.secretAccessKey,
    settings.s3?.sessionToken,
    settings.catalog.kind === 'postgres' ? settings.catalog.url : null,
  ];
  const secrets: SecretValue[] = [];
  for (const s of given) {
    if (s === null || s === undefined) continue;
    // Structured clone (workerData, postMessage) keeps a SecretValue's shape but not its value.
    if (!(s instanceof SecretValue)) {
      throw new LakeOpenError(
        'catalog',
        "the lake's credentials were copied to another thread without their values: read them there with loadConfig()",
      );
    }
    secrets.push(s);
  }
  if (settings.catalog.kind === 'postgres') {
    // The password as written and decoded (libpq's string and its errors carry the latter).
    const password = new URL(settings.catalog.url.reveal()).password;
    for (const p of new Set([password, decodeURIComponent(password)])) if (p) secrets.push(new SecretValue(p));
  }
  return secrets;
}

/**
 * DuckDB's HTTP bounds for S3 (ours, not its 30 s × 3): GLOBAL, since a plain SET binds only the
 * connection that runs it (measured: another connection still took 4 × 30 s against a silent port).
 */
export function s3HttpBoundsSql(): string[] {
  return [`SET GLOBAL http_timeout = ${S3_HTTP_TIMEOUT_SECONDS}`, `SET GLOBAL http_retries = ${S3_HTTP_RETRIES}`];
}

/** An S3 secret scoped to one bucket, so other S3 reads of the same DuckDB keep their own credentials. */
export function s3SecretSql(name: string, bucket: string, s3: S3Settings): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new RangeError(`not a secret name: ${name}`);
  const options = [
    'TYPE s3',
    'PROVIDER config',
    `KEY_ID ${sqlStringLiteral(s3.accessKeyId)}`,
    `SECRET ${sqlStringLiteral(s3.secretAccessKey.reveal())}`,
    ...(s3.sessionToken ? [`SESSION_TOKEN ${sqlStringLiteral(s3.sessionToken.reveal())}`] : []),
    `REGION ${sqlStringLiteral(s3.region)}`,
    ...(s3.endpoint ? [`ENDPOINT ${sqlStringLiteral(s3.endpoint)}`] : []),
    `URL_STYLE ${sqlStringLiteral(s3.urlStyle)}`,
    `USE_SSL ${s3.useSsl}`,
    `SCOPE ${sqlStringLiteral(`s3://${bucket}`)}`,
  ];
  return `CREATE OR REPLACE SECRET ${name} (${options.join(', ')})`;
}

/**
 * What a plain DuckDB (CLI, Python, another program; no Marginal code) runs to read the lake as
 * `alias`: the extensions from the directory Marginal provisions (a DuckDB of another version
 * installs its own instead), the S3 secret, a READ_ONLY attach, USE. Credentials are written out:
 * the statements are for the operator who holds them. `npm run cli -- lake connect` prints them.
 */
export function connectStatements(settings: LakeSettings, alias = 'marginal'): string[] {
  if (!/^[a-z_][a-z0-9_]*$/.test(alias)) throw new RangeError(`not a catalog alias: ${alias}`);
  const extensions = [
    'ducklake',
    ...(settings.s3 ? ['httpfs'] : []),
    ...(settings.catalog.kind === 'postgres' ? ['postgres_scanner'] : []),
  ];
  return [
    `SET extension_directory = ${sqlStringLiteral(settings.extensionDirectory)}`,
    ...extensions.map((e) => `LOAD ${e}`),
    ...(settings.s3 ? [s3SecretSql('marginal_lake_s3', new URL(settings.dataPath).host, settings.s3)] : []),
    attachSql(settings, { readOnly: true }, alias),
    `USE ${alias}`,
  ];
}

function attachSql(settings: LakeSettings, options: OpenLakeOptions, alias = 'lake'): string {
  const opts = [options.readOnly ? 'READ_ONLY' : `DATA_PATH ${sqlStringLiteral(settings.dataPath)}`];
  if (settings.catalog.kind === 'postgres') opts.push(`METADATA_SCHEMA 'ducklake'`);
  if (options.snapshotVersion !== undefined) {
    if (!Number.isSafeInteger(options.snapshotVersion)) throw new RangeError(`not a snapshot: ${options.snapshotVersion}`);
    opts.push(`SNAPSHOT_VERSION ${options.snapshotVersion}`);
  }
  return `ATTACH ${sqlStringLiteral(`ducklake:${catalogTarget(settings.catalog)}`)} AS ${alias} (${opts.join(', ')})`;
}

function catalogTarget(catalog: LakeCatalogLocation): string {
  switch (catalog.kind) {
    case 'postgres':
      return `postgres:${libpqConnectionString(catalog.url.reveal())}`;
    case 'sqlite':
      return `sqlite:${catalog.path}`;
    case 'duckdb':
      return catalog.path;
    case 'embedded':
      throw new LakeOpenError('catalog', `the all-in-one's lake catalog (${catalog.dir}) has no URL here: set LAKE_CATALOG_URL`);
  }
}

/** The catalog for messages: a PostgreSQL URL without its credentials, or the file. */
function describeCatalog(catalog: LakeCatalogLocation): string {
  if (catalog.kind === 'embedded') return `embedded ${catalog.dir}`;
  if (catalog.kind !== 'postgres') return `${catalog.kind} ${catalog.path}`;
  const u = new URL(catalog.url.reveal());
  return `postgres ${u.hostname}:${u.port || 5432}${u.pathname}`;
}

/** libpq's key='value' form of a postgres:// URL (what DuckDB's postgres extension takes), with a connect timeout. */
function libpqConnectionString(url: string): string {
  const u = new URL(url);
  const pairs: [string, string][] = [
    ['dbname', decodeURIComponent(u.pathname.slice(1))],
    ['host', u.hostname],
    ['port', u.port || '5432'],
  ];
  if (u.username) pairs.push(['user', decodeURIComponent(u.username)]);
  if (u.password) pairs.push(['password', decodeURIComponent(u.password)]);
  for (const [k, v] of u.searchParams) pairs.push([k, v]);
  if (!u.searchParams.has('connect_timeout')) pairs.push(['connect_timeout', String(CATALOG_CONNECT_TIMEOUT_SECONDS)]);
  return pairs.map(([k, v]) => `${k}='${v.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`).join(' ');
}
