// The flush and read the open-lake migration will stand on, as plain SQL over a lake that
// core/lake/lake-catalog.ts opened and prepared, for test/integration/open-lake-foundation.test.ts
// and its worker thread: flush one batch (events + daily rollup + the partition's next offset in
// ONE DuckLake commit) and read totals. Events are a pure function of their offset, so expected
// totals are computed here in BigInt, independently of DuckDB.
import type { DuckDBConnection } from '@duckdb/node-api';
import { EVENTS_COLUMNS } from '../../core/lake/events-schema.js';
import { columnsDdl } from '../../core/lake/lake-tables.js';
import { DAILY_COSTS, rollupFromEventsSql } from '../../core/lake/rollups.js';
import { rollupInsertSql } from '../../processor/lake/ducklake-commit.js';

const COST_FACTOR = 123_456_789n;
const SCALE = 10n ** 12n;

/** Event at `offset`: its organization and its cost in 1e-12 dollars (the same rule stageBatch writes in SQL). */
function eventAt(offset: number): { organization: string; costUnits: bigint } {
  return { organization: `org_${offset % 3}`, costUnits: BigInt(offset % 997) * COST_FACTOR + 1n };
}

/**
 * Stages events [first, first + count) in a temp table with the lake's events columns (outside the
 * lake's transaction: a DuckDB transaction writes one database); columns not set here stay NULL.
 */
async function stageBatch(conn: DuckDBConnection, first: number, count: number, partition: number): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP TABLE staged (${columnsDdl(EVENTS_COLUMNS)})`);
  await conn.run(`INSERT INTO staged BY NAME
    SELECT 'org_' || (i % 3) AS organization_id, 'evt_' || i AS event_id, 'idem_' || i AS idempotency_key, 'key_1' AS api_key_id,
      TIMESTAMP '2026-11-01 00:00:00' + to_seconds(i * 67) AS event_timestamp,
      TIMESTAMP '2026-11-01 00:00:00' + to_seconds(i * 67) AS received_at,
      CAST(TIMESTAMP '2026-11-01 00:00:00' + to_seconds(i * 67) AS DATE) AS event_date,
      CASE WHEN i % 10 = 0 THEN 'pending_rate_card' ELSE 'completed' END AS status,
      CAST('0.' || lpad(CAST((i % 997) * ${COST_FACTOR} + 1 AS VARCHAR), 12, '0') AS DECIMAL(38,12)) AS total_cost,
      true AS timestamp_provided, '{}' AS metadata, ${partition} AS kafka_partition, i AS kafka_offset, TIMESTAMP '2026-11-02 00:00:00' AS priced_at
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
  const partition = options.partition ?? 0;
  await stageBatch(conn, first, count, partition);
  await conn.run('BEGIN TRANSACTION');
  try {
    await conn.run('INSERT INTO lake.events SELECT * FROM staged');
    await conn.run(rollupInsertSql('daily_costs', partition, rollupFromEventsSql(DAILY_COSTS, 'staged')));
    const moved = await conn.run(
      `UPDATE lake.partition_offsets_p${partition} SET next_offset = ${first + count} WHERE next_offset = ${first}`,
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
