// The api's read caches on the open lake (api/lake/ducklake-days.ts, docs/decisions/0156): the
// whole days of {{costs}} and {{derived}} are built once per (organization, day) version read from
// the catalog's dimension_coverage, and rebuilt exactly for the days a write changed — a flush with
// a late event on a past day, a re-pricing, a dimension backfill — while every answer equals the
// raw events. Real DuckDB with the provisioned extensions, the catalog in PostgreSQL, the commits
// the processor makes (ducklake-commit.ts, ducklake-rewrite.ts). Expected totals are summed here
// with Big from the rows written, not by DuckDB.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { metadataCostsDerivation } from '../../api/costs/dimension-derivations.js';
import { LakeQuery, type LakeScope } from '../../api/lake/lake-query.js';
import { loadConfig } from '../../core/config.js';
import type { LakeEventRow } from '../../core/lake/events-schema.js';
import { collapseCoverage, coveredDaysSql } from '../../core/lake/dimension-coverage.js';
import { ensureLakeTables, type OpenLake, openLake } from '../../core/lake/lake-catalog.js';
import type { LakeSettings } from '../../core/lake/lake-settings.js';
import { Big } from '../../core/money.js';
import { commitDuckLakeFlush, commitFenced } from '../../processor/lake/ducklake-commit.js';
import { commitDuckLakeRewrite, dimensionDaysStatements, fenceSql } from '../../processor/lake/ducklake-rewrite.js';
import { stageEvents } from '../../processor/lake/event-staging.js';
import { ensureDuckDBExtensions } from '../../scripts/duckdb-extensions/provision.js';
import { lakeEvent, ORG_A, ORG_B } from '../support/lake-event-builder.js';

const provisioned = await ensureDuckDBExtensions().catch((e: Error) => {
  console.warn(`[ducklake-read-caches] SKIPPED: the lake's DuckDB extensions cannot be provisioned: ${e.message}`);
  return null;
});

const DAYS = ['2026-03-01', '2026-03-02', '2026-03-03'];
const RANGE = { start: new Date('2026-03-01T00:00:00Z'), end: new Date('2026-03-04T00:00:00Z') };
const COSTS_BY_DAY = `SELECT CAST(event_date AS VARCHAR) AS day, CAST(sum(event_count) AS INTEGER) AS n, CAST(sum(total_cost) AS VARCHAR) AS cost
  FROM {{costs}} WHERE organization_id = $org GROUP BY ALL ORDER BY day`;
const COSTS_BY_TEAM = `SELECT dim_value AS team, CAST(sum(total_cost) AS VARCHAR) AS cost FROM {{derived}} GROUP BY ALL ORDER BY team NULLS LAST`;

let tmp = '';
let offset = 0;
let writer: OpenLake;
let settings: LakeSettings;
const written: LakeEventRow[] = [];
const opened: LakeQuery[] = [];

/** An event of `org` on `day` at 10:00 plus `n` seconds costing `cost`, tagged with `team` (null: none). */
function event(org: string, day: string, cost: string, team: string | null, status: LakeEventRow['status'] = 'completed'): LakeEventRow {
  const o = offset++;
  return lakeEvent({
    kafka_offset: o,
    organization_id: org,
    event_timestamp: new Date(Date.parse(`${day}T10:00:00Z`) + o * 1000),
    metadata: JSON.stringify(team === null ? {} : { team }),
    status,
    input_cost: cost,
    output_cost: '0',
    total_cost: cost,
  });
}

/** One flush commit of `rows` on partition 0 (team rolled up for ORG_A only when `teamDefined`). */
async function flush(rows: LakeEventRow[], teamDefined: boolean): Promise<void> {
  const from = Math.min(...rows.map((r) => r.kafka_offset));
  await stageEvents(writer.conn, 'cache_batch', rows);
  try {
    await commitDuckLakeFlush(writer.conn, {
      partition: 0,
      fromOffset: written.length === 0 ? 0 : from,
      nextOffset: Math.max(...rows.map((r) => r.kafka_offset)) + 1,
      staged: 'cache_batch',
      hasSessions: false,
      dimensions: new Map(teamDefined ? [[ORG_A, { team: 'string' as const }]] : []),
    });
  } finally {
    await writer.conn.run('DROP TABLE IF EXISTS cache_batch');
  }
  written.push(...rows);
}

/** day → [events, cost] of `org`, summed here from the rows written. */
function expectedByDay(org: string): Array<{ day: string; n: number; cost: string }> {
  const byDay = new Map<string, [number, Big]>();
  for (const r of written.filter((x) => x.organization_id === org)) {
    const day = r.event_timestamp.toISOString().slice(0, 10);
    const [n, c] = byDay.get(day) ?? [0, new Big(0)];
    byDay.set(day, [n + 1, c.plus(r.total_cost)]);
  }
  return [...byDay].sort(([a], [b]) => a.localeCompare(b)).map(([day, [n, c]]) => ({ day, n, cost: c.toString() }));
}

/** Rows with costs as Big-normalized text (DuckDB prints DECIMAL with its scale). */
const normalized = (rows: Array<Record<string, unknown>>) => rows.map((r) => ({ ...r, cost: new Big(String(r.cost)).toString() }));

async function api(dir: string, options: { useRollups?: boolean; derivedDir?: string | false } = {}): Promise<LakeQuery> {
  const q = await LakeQuery.open(path.join(tmp, dir), { duckLake: settings, refreshIntervalMs: 0, derivedDir: false, ...options });
  opened.push(q);
  return q;
}

describe.skipIf(!provisioned)('the api caches on the open lake, keyed by the catalog (api/lake/ducklake-days.ts)', () => {
  let cached: LakeQuery;
  let raw: LakeQuery;
  const costs = (org: string): LakeScope => ({ organizationId: org, range: RANGE });
  const teams: LakeScope = { organizationId: ORG_A, range: RANGE, derived: metadataCostsDerivation('team', { endUser: false }) };

  beforeAll(async () => {
    expect(inject('postgresUrl'), 'the run has no PostgreSQL (globalSetup)').not.toBe('');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ducklake-read-caches-'));
    const database = `ducklake_read_caches_${process.pid}`;
    const admin = new pg.Client({ connectionString: inject('postgresUrl') });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    const url = new URL(inject('postgresUrl'));
    url.pathname = `/${database}`;
    settings = loadConfig({
      DATA_DIR: path.join(tmp, 'lake'),
      LAKE_CATALOG_URL: url.toString(),
      LAKE_EXTENSION_DIR: provisioned?.extensionDirectory ?? '',
    }).lake;
    writer = await openLake(settings);
    await ensureLakeTables(writer, [0]);
    // Three days of both organizations; team not yet defined, so nothing is rolled up for it.
    await flush(
      [
        event(ORG_A, DAYS[0]!, '1.5', 'a'),
        event(ORG_A, DAYS[0]!, '2.25', 'b'),
        event(ORG_A, DAYS[1]!, '0.125', 'a'),
        event(ORG_A, DAYS[1]!, '0', null, 'pending_rate_card'),
        event(ORG_A, DAYS[2]!, '4', 'b'),
        event(ORG_B, DAYS[0]!, '10', null),
        event(ORG_B, DAYS[2]!, '20', null),
      ],
      false,
    );
    cached = await api('api-1');
    raw = await api('api-raw', { useRollups: false });
  }, 120_000);

  afterAll(async () => {
    for (const q of opened) await q.close();
    writer?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('builds each day once, answers warm reads from memory, and equals raw events', async () => {
    const first = await cached.rows(costs(ORG_A), COSTS_BY_DAY);
    expect(normalized(first)).toEqual(expectedByDay(ORG_A));
    expect(normalized(first)).toEqual([
      { day: DAYS[0], n: 2, cost: '3.75' },
      { day: DAYS[1], n: 2, cost: '0.125' },
      { day: DAYS[2], n: 1, cost: '4' },
    ]);
    expect(cached.cache.counts.built).toBe(3);
    const reused = cached.cache.counts.reused;
    const versionReads = cached.duckLakeDays!.reads.versions;
    expect(await cached.rows(costs(ORG_A), COSTS_BY_DAY)).toEqual(first);
    expect(cached.cache.counts.built).toBe(3);
    expect(cached.cache.counts.reused).toBe(reused + 3);
    // The snapshot did not move: the versions read at it still hold, the catalog is asked only for its id.
    expect(cached.duckLakeDays!.reads.versions).toBe(versionReads);
    expect(await raw.rows(costs(ORG_A), COSTS_BY_DAY)).toEqual(first);
    // A warm read names only the cache's tables, no lake table.
    expect(await cached.expand(costs(ORG_A), '{{costs}}')).not.toContain('lake.');
    expect(normalized(await cached.rows(costs(ORG_B), COSTS_BY_DAY))).toEqual(expectedByDay(ORG_B));
    expect(cached.cache.counts.built).toBe(5);
  });

  it('a flush with a late event on a past day rebuilds that day only, and the other organization none', async () => {
    const before = cached.cache.counts.built;
    await flush([event(ORG_A, DAYS[0]!, '0.5', 'a')], false);
    const after = normalized(await cached.rows(costs(ORG_A), COSTS_BY_DAY));
    expect(after[0]).toEqual({ day: DAYS[0], n: 3, cost: '4.25' });
    expect(after).toEqual(expectedByDay(ORG_A));
    expect(cached.cache.counts.built).toBe(before + 1);
    expect(normalized(await cached.rows(costs(ORG_B), COSTS_BY_DAY))).toEqual(expectedByDay(ORG_B));
    expect(cached.cache.counts.built).toBe(before + 1);
    expect(await raw.rows(costs(ORG_A), COSTS_BY_DAY)).toEqual(await cached.rows(costs(ORG_A), COSTS_BY_DAY));
  });

  it('a re-pricing rebuilds the days it replaced rows of', async () => {
    const pending = written.find((r) => r.status === 'pending_rate_card')!;
    const repriced: LakeEventRow = { ...pending, status: 'completed', status_reason: null, input_cost: '0.75', total_cost: '0.75' };
    await stageEvents(writer.conn, 'cache_reprice', [repriced]);
    try {
      await commitDuckLakeRewrite(writer.conn, {
        partition: 0,
        offset,
        organizationId: ORG_A,
        staged: 'cache_reprice',
        dates: [DAYS[1]!],
        dimensions: {},
      });
    } finally {
      await writer.conn.run('DROP TABLE IF EXISTS cache_reprice');
    }
    written.splice(written.indexOf(pending), 1, repriced);
    const before = cached.cache.counts.built;
    const after = normalized(await cached.rows(costs(ORG_A), COSTS_BY_DAY));
    expect(after[1]).toEqual({ day: DAYS[1], n: 2, cost: '0.875' });
    expect(after).toEqual(expectedByDay(ORG_A));
    expect(cached.cache.counts.built).toBe(before + 1);
    expect(await raw.rows(costs(ORG_A), COSTS_BY_DAY)).toEqual(await cached.rows(costs(ORG_A), COSTS_BY_DAY));
  });

  it('a dimension backfill moves its days to the rollup; the days it did not touch stay cached', async () => {
    // Team per day, from raw events: a 1.5 + 0.5 + 0.125 = 2.125; b 2.25 + 4 = 6.25; none 0.75.
    const expected = [
      { team: 'a', cost: '2.125' },
      { team: 'b', cost: '6.25' },
      { team: null, cost: '0.75' },
    ];
    expect(normalized(await cached.rows(teams, COSTS_BY_TEAM))).toEqual(expected);
    expect(cached.cache.counts.builtFrom.dimension_costs ?? 0).toBe(0);
    const fromEvents = cached.cache.counts.builtFrom.events!;
    // The processor's backfill of the last day, as one fenced commit (ducklake-dimension-backfill.ts).
    await commitFenced(writer.conn, 0, offset, dimensionDaysStatements(0, ORG_A, [DAYS[2]!], { team: 'string' }), fenceSql(0, offset));
    expect(normalized(await cached.rows(teams, COSTS_BY_TEAM))).toEqual(expected);
    expect(cached.cache.counts.builtFrom.dimension_costs).toBe(1);
    expect(cached.cache.counts.builtFrom.events).toBe(fromEvents);
    expect(normalized(await raw.rows(teams, COSTS_BY_TEAM))).toEqual(expected);
    // The costs of the backfilled day were rebuilt too (its version changed), with the same figures.
    expect(normalized(await cached.rows(costs(ORG_A), COSTS_BY_DAY))).toEqual(expectedByDay(ORG_A));
  });

  it("the writer's fold of settled days' coverage rows keeps what is covered; the folded days are rebuilt, equal to raw", async () => {
    // Day 2 gets a row listing team beside its re-pricing's {} (not covered either way); day 3 a second {team} row (covered).
    await flush([event(ORG_A, DAYS[1]!, '0.25', 'b'), event(ORG_A, DAYS[2]!, '0.5', 'a')], true);
    const coverage = async () =>
      (
        await writer.conn.runAndReadAll(
          `SELECT CAST(event_date AS VARCHAR) AS day, organization_id AS org, count(*) AS n, min(dimensions) AS dims
             FROM lake.dimension_coverage GROUP BY ALL ORDER BY org, day`,
        )
      ).getRowObjectsJson();
    const covered = async () =>
      (
        await writer.conn.runAndReadAll(
          `SELECT CAST(event_date AS VARCHAR) AS day, covered FROM (${coveredDaysSql('team', 'string').replaceAll('$org', `'${ORG_A}'`)}) ORDER BY day`,
        )
      ).getRowObjectsJson();
    const coveredBefore = await covered();
    expect(coveredBefore).toEqual([
      { day: DAYS[0], covered: false },
      { day: DAYS[1], covered: false },
      { day: DAYS[2], covered: true },
    ]);
    expect((await coverage()).filter((r) => r.org === ORG_A).map((r) => Number(r.n))).toEqual([2, 2, 2]);
    const answer = normalized(await cached.rows(teams, COSTS_BY_TEAM));
    const built = cached.cache.counts.built;

    // ORG_A's three days have 2 rows each; ORG_B's have 1 (not folded). A day still recent is left alone.
    expect(await collapseCoverage(writer.conn, DAYS[2]!)).toBe(4);
    expect(await collapseCoverage(writer.conn, '2026-11-01')).toBe(2);
    expect(await collapseCoverage(writer.conn, '2026-11-01')).toBe(0);
    expect((await coverage()).map((r) => [r.day, r.org === ORG_A ? 'A' : 'B', Number(r.n), r.dims])).toEqual([
      [DAYS[0], 'A', 1, '{}'],
      [DAYS[1], 'A', 1, '{}'],
      [DAYS[2], 'A', 1, '{"team":"string"}'],
      [DAYS[0], 'B', 1, '{}'],
      [DAYS[2], 'B', 1, '{}'],
    ]);
    expect(await covered()).toEqual(coveredBefore);
    expect(normalized(await cached.rows(teams, COSTS_BY_TEAM))).toEqual(answer);
    expect(normalized(await raw.rows(teams, COSTS_BY_TEAM))).toEqual(answer);
    expect(cached.cache.counts.built).toBe(built + 3);
    expect(normalized(await cached.rows(costs(ORG_A), COSTS_BY_DAY))).toEqual(expectedByDay(ORG_A));
  });

  it("a host's persisted days answer a fresh process at the same versions, and never after a change", async () => {
    const store = path.join(tmp, 'derived');
    const first = await api('api-persist-1', { derivedDir: store });
    const answer = await first.rows(costs(ORG_A), COSTS_BY_DAY);
    await first.closeWhenIdle(); // persists the settled days it built
    const second = await api('api-persist-2', { derivedDir: store });
    expect(await second.rows(costs(ORG_A), COSTS_BY_DAY)).toEqual(answer);
    expect(second.cache.counts.built).toBe(0);
    // A late event: its day's version moves, so its persisted rows no longer match; the others still do.
    await flush([event(ORG_A, DAYS[2]!, '1', null)], true);
    const third = await api('api-persist-3', { derivedDir: store });
    expect(normalized(await third.rows(costs(ORG_A), COSTS_BY_DAY))).toEqual(expectedByDay(ORG_A));
    expect(third.cache.counts.built).toBe(1);
    expect(await raw.rows(costs(ORG_A), COSTS_BY_DAY)).toEqual(await third.rows(costs(ORG_A), COSTS_BY_DAY));
  });

  it('after a snapshot change the versions read only the coverage rows inserted since, equal to a full read, also across a fold', async () => {
    const q = await api('api-incremental');
    const reads = q.duckLakeDays!.reads;
    const names = async (query: LakeQuery) =>
      query.duckLakeDays!.names(await query.duckLakeDays!.snapshot(), 'daily_costs', ORG_A, null, null);
    /** The versions a process reading the catalog for the first time (all of ORG_A's coverage rows) sees. */
    const fullRead = async (dir: string) => {
      const fresh = await api(dir);
      const before = fresh.duckLakeDays!.reads;
      expect(before.incremental).toBe(0);
      return names(fresh);
    };
    const dayOf = (name: string) => /date=(\d{4}-\d{2}-\d{2})/.exec(name)![1]!;
    expect(normalized(await q.rows(costs(ORG_A), COSTS_BY_DAY))).toEqual(expectedByDay(ORG_A));
    const first = await names(q);
    expect(reads.incremental).toBe(0);

    // A late event on the first day: one coverage row, (partition 0, ORG_A, day 1), is all the next read counts.
    let rows = reads.coverageRows;
    await flush([event(ORG_A, DAYS[0]!, '0.5', 'a')], true);
    expect(normalized(await q.rows(costs(ORG_A), COSTS_BY_DAY))).toEqual(expectedByDay(ORG_A));
    expect(reads.incremental).toBe(1);
    expect(reads.coverageRows - rows).toBe(1);
    const late = await names(q);
    expect(late.filter((n) => !first.includes(n)).map(dayOf)).toEqual([DAYS[0]]);
    expect(late).toEqual(await fullRead('api-full-late'));

    // The writer's fold: each (partition, organization, day) with several rows becomes one new row.
    const folding = (
      await writer.conn.runAndReadAll(
        `SELECT CAST(event_date AS VARCHAR) FROM lake.dimension_coverage WHERE organization_id = '${ORG_A}'
          GROUP BY kafka_partition, event_date HAVING count(*) > 1 ORDER BY 1`,
      )
    )
      .getRows()
      .map((r) => String(r[0]));
    expect(folding).toContain(DAYS[0]);
    expect(await collapseCoverage(writer.conn, '2026-11-01')).toBeGreaterThan(0);
    rows = reads.coverageRows;
    expect(normalized(await q.rows(costs(ORG_A), COSTS_BY_DAY))).toEqual(expectedByDay(ORG_A));
    expect(await raw.rows(costs(ORG_A), COSTS_BY_DAY)).toEqual(await q.rows(costs(ORG_A), COSTS_BY_DAY));
    expect(reads.incremental).toBe(2);
    expect(reads.coverageRows - rows).toBe(folding.length);
    const folded = await names(q);
    // The folded days have new versions, none of them one the day had before; the others kept theirs.
    expect(folded.filter((n) => !late.includes(n)).map(dayOf)).toEqual(folding);
    for (const n of folded.filter((x) => !late.includes(x))) expect([...first, ...late]).not.toContain(n);
    expect(folded).toEqual(await fullRead('api-full-folded'));
  });

  it('a second api with nothing local answers the same', async () => {
    const fresh = await api('api-2');
    expect(await fresh.rows(costs(ORG_A), COSTS_BY_DAY)).toEqual(await cached.rows(costs(ORG_A), COSTS_BY_DAY));
    expect(await fresh.rows(teams, COSTS_BY_TEAM)).toEqual(await cached.rows(teams, COSTS_BY_TEAM));
    expect(await fresh.rows(costs(ORG_B), COSTS_BY_DAY)).toEqual(await raw.rows(costs(ORG_B), COSTS_BY_DAY));
  });
});
