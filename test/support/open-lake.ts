// The DuckLake operations the open-lake migration will stand on, as plain SQL over a real DuckDB
// with the provisioned extensions, for test/integration/open-lake-foundation.test.ts and its
// worker thread: attach a lake, create the tables, flush one batch (events + daily rollup + the
// partition's next offset in ONE DuckLake commit), read totals. Events are a pure function of their
// offset, so expected totals are computed here in BigInt, independently of DuckDB.
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

export interface LakeStore {
  /** What follows `ducklake:` in ATTACH: `postgres:dbname=… host=…`, `sqlite:/x.sqlite` or `/x.ducklake`. */
  catalog: string;
  /** `s3://bucket/prefix/` or a local folder ending in `/`. */
  dataPath: string;
}

export interface S3Access {
  hostPort: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface LakeDuckDB {
  instance: DuckDBInstance;
  conn: DuckDBConnection;
  close(): void;
}

/** A DuckDB as any outside reader would open it: the lake's extensions loaded from the given directory, never downloaded. */
export async function openLakeDuckDB(extensionDirectory: string, s3?: S3Access): Promise<LakeDuckDB> {
  const instance = await DuckDBInstance.create(':memory:', {
    extension_directory: extensionDirectory,
    autoinstall_known_extensions: 'false',
    threads: '2',
  });
  const conn = await instance.connect();
  for (const name of ['ducklake', 'httpfs', 'postgres_scanner', 'sqlite_scanner']) await conn.run(`LOAD ${name}`);
  if (s3) {
    await conn.run(
      `CREATE SECRET lake_s3 (TYPE s3, KEY_ID '${s3.accessKeyId}', SECRET '${s3.secretAccessKey}', REGION '${s3.region}', ` +
        `ENDPOINT '${s3.hostPort}', URL_STYLE 'path', USE_SSL false)`,
    );
  }
  return {
    instance,
    conn,
    close: () => {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

/** ATTACH the lake as `lake`; the data path is recorded in the catalog at creation, so readers need not name it. */
export async function attachLake(
  conn: DuckDBConnection,
  store: LakeStore,
  options: { readOnly?: boolean; snapshotVersion?: number; alias?: string } = {},
): Promise<void> {
  const opts = [options.readOnly ? 'READ_ONLY' : `DATA_PATH '${store.dataPath}'`];
  if (options.snapshotVersion !== undefined) opts.push(`SNAPSHOT_VERSION ${options.snapshotVersion}`);
  await conn.run(`ATTACH 'ducklake:${store.catalog}' AS ${options.alias ?? 'lake'} (${opts.join(', ')})`);
}

/** Postgres catalog string for ATTACH from a postgres:// URL. */
export function postgresCatalog(url: string): string {
  const u = new URL(url);
  const parts = [`dbname=${u.pathname.slice(1)}`, `host=${u.hostname}`, `port=${u.port || 5432}`, `user=${decodeURIComponent(u.username)}`];
  if (u.password) parts.push(`password=${decodeURIComponent(u.password)}`);
  return `postgres:${parts.join(' ')}`;
}

/** The tables: events, their daily rollup, and one next-offset table per Kafka partition (see 0105). */
export async function createLakeTables(conn: DuckDBConnection, partitions: number[] = [0]): Promise<void> {
  await conn.run(`CREATE TABLE lake.events (
    organization_id VARCHAR NOT NULL, event_id VARCHAR NOT NULL, event_timestamp TIMESTAMP NOT NULL,
    status VARCHAR NOT NULL, total_cost DECIMAL(38,12) NOT NULL)`);
  await conn.run(`CREATE TABLE lake.daily_costs (
    organization_id VARCHAR NOT NULL, day DATE NOT NULL, status VARCHAR NOT NULL,
    event_count BIGINT NOT NULL, total_cost DECIMAL(38,12) NOT NULL)`);
  for (const p of partitions) {
    await conn.run(`CREATE TABLE lake.partition_offsets_p${p} (next_offset BIGINT NOT NULL)`);
    await conn.run(`INSERT INTO lake.partition_offsets_p${p} VALUES (0)`);
  }
}

const COST_FACTOR = 123_456_789n;
const SCALE = 10n ** 12n;

/** Event at `offset`: its organization and its cost in 1e-12 dollars (the same rule stageBatch writes in SQL). */
function eventAt(offset: number): { organization: string; costUnits: bigint } {
  return { organization: `org_${offset % 3}`, costUnits: BigInt(offset % 997) * COST_FACTOR + 1n };
}

/** Stages events [first, first + count) in a temp table (outside the lake's transaction: a DuckDB transaction writes one database). */
async function stageBatch(conn: DuckDBConnection, first: number, count: number): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP TABLE staged AS
    SELECT 'org_' || (i % 3) AS organization_id, 'evt_' || i AS event_id,
      TIMESTAMP '2026-11-01 00:00:00' + to_seconds(i * 67) AS event_timestamp,
      CASE WHEN i % 10 = 0 THEN 'pending_rate_card' ELSE 'completed' END AS status,
      CAST('0.' || lpad(CAST((i % 997) * ${COST_FACTOR} + 1 AS VARCHAR), 12, '0') AS DECIMAL(38,12)) AS total_cost
    FROM range(${first}, ${first + count}) r(i)`);
}

export class OffsetMovedError extends Error {}

/**
 * One flush: events [first, first + count) of partition p, their daily rollup, and the partition's
 * next offset, in one DuckLake commit. The offset moves only from `first` (compare-and-set), so a
 * writer that lost the partition commits nothing. `beforeCommit` runs inside the transaction (a
 * test's failure point). Rolls back and rethrows on any error.
 */
export async function flushBatch(
  conn: DuckDBConnection,
  first: number,
  count: number,
  options: { partition?: number; beforeCommit?: () => Promise<void> } = {},
): Promise<void> {
  await stageBatch(conn, first, count);
  await conn.run('BEGIN TRANSACTION');
  try {
    await conn.run('INSERT INTO lake.events SELECT * FROM staged');
    await conn.run(`INSERT INTO lake.daily_costs
      SELECT organization_id, CAST(event_timestamp AS DATE), status, count(*), sum(total_cost) FROM staged GROUP BY ALL`);
    const moved = await conn.run(
      `UPDATE lake.partition_offsets_p${options.partition ?? 0} SET next_offset = ${first + count} WHERE next_offset = ${first}`,
    );
    if (moved.rowsChanged !== 1) throw new OffsetMovedError(`partition offset is not ${first}: another writer flushed it`);
    await options.beforeCommit?.();
    await conn.run('COMMIT');
  } catch (e) {
    await conn.run('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

export interface LakeTotals {
  /** organization → [event count, cost as DuckDB prints DECIMAL(38,12)] from events. */
  events: Record<string, [number, string]>;
  /** The same from the daily_costs rollup. */
  rollup: Record<string, [number, string]>;
  nextOffset: number;
}

export async function readTotals(conn: DuckDBConnection, partition = 0, at = ''): Promise<LakeTotals> {
  const byOrg = async (sql: string): Promise<Record<string, [number, string]>> => {
    const rows = (await conn.runAndReadAll(sql)).getRowObjectsJson() as { o: string; n: string; c: string }[];
    return Object.fromEntries(rows.map((r) => [r.o, [Number(r.n), r.c]]));
  };
  const events = await byOrg(`SELECT organization_id o, count(*) n, sum(total_cost) c FROM lake.events ${at} GROUP BY ALL ORDER BY 1`);
  const rollup = await byOrg(
    `SELECT organization_id o, sum(event_count) n, sum(total_cost) c FROM lake.daily_costs ${at} GROUP BY ALL ORDER BY 1`,
  );
  const offsets = (await conn.runAndReadAll(`SELECT next_offset FROM lake.partition_offsets_p${partition} ${at}`)).getRowObjectsJson();
  if (offsets.length !== 1) throw new Error(`partition ${partition} has ${offsets.length} offset rows`);
  return { events, rollup, nextOffset: Number(offsets[0].next_offset) };
}

function formatUnits(units: bigint): string {
  return `${units / SCALE}.${(units % SCALE).toString().padStart(12, '0')}`;
}

/** The totals events [0, end) must show, worked out without DuckDB. */
export function expectedTotals(end: number): LakeTotals {
  const sums = new Map<string, { n: number; units: bigint }>();
  for (let offset = 0; offset < end; offset++) {
    const { organization, costUnits } = eventAt(offset);
    const s = sums.get(organization) ?? { n: 0, units: 0n };
    s.n += 1;
    s.units += costUnits;
    sums.set(organization, s);
  }
  const byOrg = Object.fromEntries(
    [...sums.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([o, s]) => [o, [s.n, formatUnits(s.units)] as [number, string]]),
  );
  return { events: byOrg, rollup: byOrg, nextOffset: end };
}

/** The catalog's newest snapshot id. */
export async function currentSnapshot(conn: DuckDBConnection, alias = 'lake'): Promise<number> {
  const rows = (await conn.runAndReadAll(`SELECT max(snapshot_id) s FROM ${alias}.snapshots()`)).getRowObjectsJson();
  return Number(rows[0].s);
}
