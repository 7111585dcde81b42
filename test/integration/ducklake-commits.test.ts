// A flush and a re-pricing each as one DuckLake commit (processor/lake/ducklake-commit.ts and
// ducklake-rewrite.ts, not yet wired in), over a
// real DuckDB with the provisioned extensions: a lake opened by core/lake/lake-catalog.ts (a
// DuckDB-file catalog on local disk; two owners at once need the PostgreSQL catalog), rows staged
// by the processor's own staging (event-staging.ts). Expected totals are summed here with Big from
// the rows themselves, not by DuckDB.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../core/config.js';
import type { LakeEventRow } from '../../core/lake/events-schema.js';
import { ensureLakeTables, type OpenLake, openLake } from '../../core/lake/lake-catalog.js';
import { Big } from '../../core/money.js';
import {
  commitDuckLakeFlush,
  DuckLakeConflictError,
  type DuckLakeFlush,
  lakeNextOffset,
  OffsetMovedError,
} from '../../processor/lake/ducklake-commit.js';
import { commitDuckLakeRewrite } from '../../processor/lake/ducklake-rewrite.js';
import { rowFromWire, stageEvents, wireSelectList } from '../../processor/lake/event-staging.js';
import { ensureDuckDBExtensions } from '../../scripts/duckdb-extensions/provision.js';
import { ORG_A, ORG_B, numberedEvent } from '../support/lake-event-builder.js';

const provisioned = await ensureDuckDBExtensions().catch((e: Error) => {
  console.warn(`[ducklake-flush] SKIPPED: the lake's DuckDB extensions cannot be provisioned: ${e.message}`);
  return null;
});

let tmp = '';
let lakes = 0;
const opened: OpenLake[] = [];

/** A lake in a fresh folder: its catalog at `catalogUrl`, else a DuckDB file beside it (one process owns it; the service's config refuses that). */
async function newLake(catalogUrl?: string): Promise<OpenLake> {
  const dataDir = path.join(tmp, `lake-${++lakes}`);
  const env = {
    DATA_DIR: dataDir,
    LAKE_EXTENSION_DIR: provisioned?.extensionDirectory ?? '',
    LAKE_CATALOG_URL: catalogUrl ?? 'postgres://replaced@127.0.0.1:1/replaced',
  };
  const settings = loadConfig(env).lake;
  const catalog = catalogUrl ? settings.catalog : { kind: 'duckdb' as const, path: path.join(dataDir, 'lake', 'catalog.ducklake') };
  const lake = await openLake({ ...settings, catalog });
  opened.push(lake);
  await ensureLakeTables(lake, [0]);
  return lake;
}

/** Offsets [from, to) of partition 0: the deterministic stream, the first six in one session, ORG_A's tagged with a team. */
function rowsOf(from: number, to: number): LakeEventRow[] {
  const rows: LakeEventRow[] = [];
  for (let offset = from; offset < to; offset++) {
    const e = numberedEvent(offset);
    rows.push({
      ...e,
      session_id: offset < 6 ? 'sess-1' : null,
      span_id: offset < 6 ? `span-${offset % 2}` : null,
      metadata: e.organization_id === ORG_A ? JSON.stringify({ team: offset % 2 === 0 ? 'search' : 'ads' }) : '{}',
    });
  }
  return rows;
}

/** Every fifth event waits for a rate card (unpriced, total 0), as the processor writes them. */
function withPending(rows: LakeEventRow[]): LakeEventRow[] {
  return rows.map((r) =>
    r.kafka_offset % 5 === 0
      ? { ...r, status: 'pending_rate_card', status_reason: 'no rate card', input_cost: null, output_cost: null, total_cost: '0' }
      : r,
  );
}

/** The re-pricing rule of the tests: a pending event costs 0.5 + offset × 10^-12. */
function priced(r: LakeEventRow): LakeEventRow {
  const cost = new Big('0.5').plus(new Big(r.kafka_offset).times('0.000000000001')).toFixed(12);
  return { ...r, status: 'completed', status_reason: null, input_cost: cost, output_cost: null, total_cost: cost };
}

/** Stages rows and commits them as one flush moving the offset from `from` to `to`. */
async function flush(lake: OpenLake, rows: LakeEventRow[], from: number, to: number): Promise<void> {
  await stageEvents(lake.conn, 'lake_batch', rows);
  const plan: DuckLakeFlush = {
    partition: 0,
    fromOffset: from,
    nextOffset: to,
    staged: rows.length > 0 ? 'lake_batch' : null,
    hasSessions: rows.some((r) => r.session_id !== null),
    dimensions: new Map([[ORG_A, { team: 'string' as const }]]),
  };
  try {
    await commitDuckLakeFlush(lake.conn, plan);
  } finally {
    await lake.conn.run('DROP TABLE IF EXISTS lake_batch');
  }
}

async function query(lake: OpenLake, sql: string): Promise<Record<string, unknown>[]> {
  return (await lake.conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}

async function snapshot(lake: OpenLake): Promise<number> {
  return Number((await query(lake, 'SELECT max(snapshot_id) s FROM lake.snapshots()'))[0]!.s);
}

/** organization|date → [events, total cost] summed in JS. */
function expectedByDay(rows: readonly LakeEventRow[]): Record<string, [number, string]> {
  const out: Record<string, [number, Big]> = {};
  for (const r of rows) {
    const k = `${r.organization_id}|${r.event_timestamp.toISOString().slice(0, 10)}`;
    const [n, sum] = out[k] ?? [0, new Big(0)];
    out[k] = [n + 1, sum.plus(r.total_cost)];
  }
  return Object.fromEntries(Object.entries(out).map(([k, [n, s]]) => [k, [n, s.toFixed(12)]]));
}

async function lakeByDay(lake: OpenLake, table: 'events' | 'daily_costs'): Promise<Record<string, [number, string]>> {
  const count = table === 'events' ? 'count(*)' : 'sum(event_count)';
  const rows = await query(
    lake,
    `SELECT organization_id || '|' || CAST(event_date AS VARCHAR) k, CAST(${count} AS INTEGER) n, CAST(sum(total_cost) AS VARCHAR) c
     FROM lake.${table} GROUP BY ALL`,
  );
  return Object.fromEntries(rows.map((r) => [String(r.k), [Number(r.n), String(r.c)]]));
}

describe.skipIf(!provisioned)('a flush as one DuckLake commit (processor/lake/ducklake-commit.ts)', () => {
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-ducklake-flush-'));
  });

  afterAll(() => {
    for (const lake of opened) {
      try {
        lake.close();
      } catch {
        /* closed by its test */
      }
    }
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('events, daily costs, session spans, dimension costs and the next offset arrive together in one snapshot', async () => {
    const lake = await newLake();
    const before = await snapshot(lake);
    const rows = rowsOf(0, 30);
    await flush(lake, rows, 0, 30);

    expect(await snapshot(lake)).toBe(before + 1);
    expect(await lakeNextOffset(lake.conn, 0)).toBe(30);
    const expected = expectedByDay(rows);
    expect(Object.keys(expected)).toHaveLength(6); // two organizations × three days
    expect(await lakeByDay(lake, 'events')).toEqual(expected);
    expect(await lakeByDay(lake, 'daily_costs')).toEqual(expected);
    expect(await query(lake, 'SELECT DISTINCT kafka_partition p FROM lake.daily_costs')).toEqual([{ p: 0 }]);
    // The session's six events (offsets 0..5) in two spans.
    const sessionCost = rows.slice(0, 6).reduce((s, r) => s.plus(r.total_cost), new Big(0));
    expect(
      await query(lake, 'SELECT CAST(sum(event_count) AS INTEGER) n, CAST(sum(own_cost) AS VARCHAR) c FROM lake.session_spans'),
    ).toEqual([{ n: 6, c: sessionCost.toFixed(12) }]);
    // ORG_A's events by team (ORG_B has no dimension): even offsets search, odd ads.
    const orgA = rows.filter((r) => r.organization_id === ORG_A);
    const byTeam = await query(
      lake,
      `SELECT dim_value, CAST(sum(event_count) AS INTEGER) n FROM lake.dimension_costs
       WHERE organization_id = '${ORG_A}' AND dimension_key = 'team' GROUP BY ALL ORDER BY 1`,
    );
    expect(byTeam).toEqual([
      { dim_value: 'ads', n: orgA.filter((r) => r.kafka_offset % 2 === 1).length },
      { dim_value: 'search', n: orgA.filter((r) => r.kafka_offset % 2 === 0).length },
    ]);
    expect(await query(lake, `SELECT count(*)::INTEGER n FROM lake.dimension_costs WHERE organization_id = '${ORG_B}'`)).toEqual([
      { n: 0 },
    ]);
  });

  it('a flush from a stale offset commits nothing (OffsetMovedError); the next one from the right offset counts once', async () => {
    const lake = await newLake();
    await flush(lake, rowsOf(0, 10), 0, 10);
    const before = await snapshot(lake);
    await expect(flush(lake, rowsOf(0, 10), 0, 10)).rejects.toThrow(OffsetMovedError);
    expect(await snapshot(lake)).toBe(before);
    expect(await lakeByDay(lake, 'events')).toEqual(expectedByDay(rowsOf(0, 10)));
    await flush(lake, rowsOf(10, 20), 10, 20);
    expect(await lakeByDay(lake, 'events')).toEqual(expectedByDay(rowsOf(0, 20)));
    expect(await lakeByDay(lake, 'daily_costs')).toEqual(expectedByDay(rowsOf(0, 20)));
  });

  it('a commit failing midway leaves nothing visible, and the same flush then succeeds once', async () => {
    const lake = await newLake();
    await flush(lake, rowsOf(0, 10), 0, 10);
    const before = await snapshot(lake);
    // Staged without session_id: events and daily_costs insert inside the transaction, then session_spans' rollup fails to bind.
    await stageEvents(lake.conn, 'lake_batch', rowsOf(10, 20));
    await lake.conn.run('CREATE TEMP TABLE broken_batch AS SELECT * EXCLUDE (session_id) FROM lake_batch');
    const failing = commitDuckLakeFlush(lake.conn, {
      partition: 0,
      fromOffset: 10,
      nextOffset: 20,
      staged: 'broken_batch',
      hasSessions: true,
      dimensions: new Map(),
    });
    await expect(failing).rejects.toThrow(/session_id/);
    expect(await snapshot(lake)).toBe(before);
    expect(await lakeNextOffset(lake.conn, 0)).toBe(10);
    expect(await lakeByDay(lake, 'events')).toEqual(expectedByDay(rowsOf(0, 10)));
    await lake.conn.run('DROP TABLE lake_batch');
    await lake.conn.run('DROP TABLE broken_batch');
    await flush(lake, rowsOf(10, 20), 10, 20);
    expect(await lakeByDay(lake, 'events')).toEqual(expectedByDay(rowsOf(0, 20)));
  });

  it('a batch of duplicates only moves the offset', async () => {
    const lake = await newLake();
    await flush(lake, rowsOf(0, 10), 0, 10);
    await flush(lake, [], 10, 15);
    expect(await lakeNextOffset(lake.conn, 0)).toBe(15);
    expect(await lakeByDay(lake, 'events')).toEqual(expectedByDay(rowsOf(0, 10)));
  });

  it('two owners of one partition flush from the same offset at once (PostgreSQL catalog): exactly one commits', async () => {
    expect(inject('postgresUrl'), 'the run has no PostgreSQL (globalSetup)').not.toBe('');
    const admin = new pg.Client({ connectionString: inject('postgresUrl') });
    await admin.connect();
    await admin.query('CREATE DATABASE ducklake_flush_owners');
    await admin.end();
    const url = new URL(inject('postgresUrl'));
    url.pathname = '/ducklake_flush_owners';
    const a = await newLake(url.toString());
    const b = await openLake(
      loadConfig({
        DATA_DIR: path.join(tmp, `lake-${lakes}`),
        LAKE_CATALOG_URL: url.toString(),
        LAKE_EXTENSION_DIR: provisioned?.extensionDirectory ?? '',
      }).lake,
    );
    opened.push(b);
    const outcomes = await Promise.allSettled([flush(a, rowsOf(0, 10), 0, 10), flush(b, rowsOf(0, 10), 0, 10)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const lost = outcomes.find((o) => o.status === 'rejected');
    expect((lost as PromiseRejectedResult).reason).toBeInstanceOf(Error);
    expect([OffsetMovedError, DuckLakeConflictError].some((k) => (lost as PromiseRejectedResult).reason instanceof k)).toBe(true);
    expect(await lakeByDay(a, 'events')).toEqual(expectedByDay(rowsOf(0, 10)));
    expect(await lakeByDay(b, 'daily_costs')).toEqual(expectedByDay(rowsOf(0, 10)));
    expect(await lakeNextOffset(b.conn, 0)).toBe(10);
  });

  describe('re-pricing one organization of one partition', () => {
    async function pendingOf(lake: OpenLake, organizationId: string): Promise<LakeEventRow[]> {
      const rows = await query(
        lake,
        `SELECT ${wireSelectList()} FROM lake.events
         WHERE kafka_partition = 0 AND organization_id = '${organizationId}' AND status = 'pending_rate_card' ORDER BY kafka_offset`,
      );
      return rows.map(rowFromWire);
    }

    async function reprice(lake: OpenLake, replacements: LakeEventRow[], offset: number, organizationId = ORG_A): Promise<void> {
      await stageEvents(lake.conn, 'reprice_batch', replacements);
      try {
        await commitDuckLakeRewrite(lake.conn, {
          partition: 0,
          offset,
          organizationId,
          staged: 'reprice_batch',
          dates: [...new Set(replacements.map((r) => r.event_timestamp.toISOString().slice(0, 10)))],
          dimensions: { team: 'string' },
        });
      } finally {
        await lake.conn.run('DROP TABLE IF EXISTS reprice_batch');
      }
    }

    it('replaces the pending events and recomputes their days rollups in one snapshot: rollups equal the raw events', async () => {
      const lake = await newLake();
      const rows = withPending(rowsOf(0, 30));
      await flush(lake, rows, 0, 30);
      const before = await snapshot(lake);
      const pending = await pendingOf(lake, ORG_A);
      expect(pending.map((r) => r.kafka_offset)).toEqual(
        rows.filter((r) => r.organization_id === ORG_A && r.kafka_offset % 5 === 0).map((r) => r.kafka_offset),
      );
      await reprice(lake, pending.map(priced), 30);

      expect(await snapshot(lake)).toBe(before + 1);
      expect(await lakeNextOffset(lake.conn, 0)).toBe(30);
      const after = rows.map((r) => (r.organization_id === ORG_A && r.status === 'pending_rate_card' ? priced(r) : r));
      expect(await lakeByDay(lake, 'events')).toEqual(expectedByDay(after));
      expect(await lakeByDay(lake, 'daily_costs')).toEqual(expectedByDay(after));
      expect(await pendingOf(lake, ORG_A)).toEqual([]);
      expect((await pendingOf(lake, ORG_B)).length).toBe(
        rows.filter((r) => r.organization_id === ORG_B && r.status === 'pending_rate_card').length,
      );
      // The session (offsets 0..5, offset 0 was pending) and ORG_A's teams follow the new costs.
      const sessionCost = after.slice(0, 6).reduce((s, r) => s.plus(r.total_cost), new Big(0));
      expect(
        await query(lake, 'SELECT CAST(sum(own_cost) AS VARCHAR) c, CAST(sum(event_count) AS INTEGER) n FROM lake.session_spans'),
      ).toEqual([{ c: sessionCost.toFixed(12), n: 6 }]);
      const searchCost = after
        .filter((r) => r.organization_id === ORG_A && r.kafka_offset % 2 === 0)
        .reduce((s, r) => s.plus(r.total_cost), new Big(0));
      expect(
        await query(
          lake,
          `SELECT CAST(sum(total_cost) AS VARCHAR) c FROM lake.dimension_costs WHERE organization_id = '${ORG_A}' AND dim_value = 'search'`,
        ),
      ).toEqual([{ c: searchCost.toFixed(12) }]);
    });

    it('a re-pricing by an owner whose offset is stale, or with a row of another organization, changes nothing', async () => {
      const lake = await newLake();
      const rows = withPending(rowsOf(0, 30));
      await flush(lake, rows, 0, 30);
      const before = await snapshot(lake);
      const pending = await pendingOf(lake, ORG_A);
      await expect(reprice(lake, pending.map(priced), 29)).rejects.toThrow(OffsetMovedError);
      const orgB = (await pendingOf(lake, ORG_B)).map(priced);
      await expect(reprice(lake, [...pending.map(priced), ...orgB], 30)).rejects.toThrow(
        /not of partition 0 and the organization rewritten/,
      );
      expect(await snapshot(lake)).toBe(before);
      expect(await lakeByDay(lake, 'events')).toEqual(expectedByDay(rows));
      expect(await lakeByDay(lake, 'daily_costs')).toEqual(expectedByDay(rows));
    });
  });
});
