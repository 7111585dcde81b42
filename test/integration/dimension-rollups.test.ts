// Dimension rollups (core/lake/dimension-rollups.ts): the lake writer rolls up an organization's
// defined dimensions in the same flush as its events (the processor's DimensionBook reading the
// real control plane, PGlite), compaction and re-pricing rewrite them, and the read path answers
// every dimension endpoint from the rollup for the days it covers — with the same answer as raw
// events (LakeQuery's `useRollups: false` oracle) and as the figures worked out by hand below.
// Days flushed before the dimension was defined are not covered and are read from raw events.
// On the open lake (DuckLakeWriter, catalog in a fresh database of the test PostgreSQL, read by a
// LakeQuery opened on it as the api does); its coverage and backfill progress end to end are
// dimension-backfill.test.ts's. The manifest lake's own cases (which files cover a day,
// compaction, an events file hidden) went with that format (decision 0158).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metadataCostsDerivation } from '../../api/costs/dimension-derivations.js';
import { costByDimension, dimensionValues } from '../../api/attribution/attribution.service.js';
import {
  dimensionCostBreakdown,
  dimensionCostTrend,
  dimensionNumericSummary,
  dimensionNumericTrend,
} from '../../api/dimension-data/dimension-data.service.js';
import { endUserByDimension } from '../../api/end-user-costs/end-user-costs.service.js';
import { LakeQuery } from '../../api/lake/lake-query.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { createDimension } from '../../core/control/dimensions.js';
import { upsertEndUsers } from '../../core/control/end-users.js';
import type { LakeEventRow } from '../../core/lake/events-schema.js';
import { RateBook } from '../../pricing/rate-book.js';
import { DimensionBook } from '../../processor/dimension-book.js';
import { DuckLakeWriter } from '../../processor/lake/ducklake-writer.js';
import type { ProcessorLake } from '../../processor/lake/lake-writer.js';
import { ensureDuckDBExtensions } from '../../scripts/duckdb-extensions/provision.js';
import { createTestTenant, openFreshControlDb, testPostgresUrl, type FreshControlDb } from '../support/control-db.js';
import { lakeEvent } from '../support/lake-event-builder.js';
import { tempLakeDir } from '../support/processor-fixtures.js';
import { duckLakeEnv, duckLakeSettingsOf, markDuckLake, testLakeQueryOptions } from '../support/test-lake.js';

// The open lake needs its DuckDB extensions and a PostgreSQL for its catalog.
const openLakeReady =
  testPostgresUrl() !== '' &&
  (await ensureDuckDBExtensions().then(
    () => true,
    () => false,
  ));

let control: FreshControlDb;
let org: string;
let lakeDir: string;
const offsets = [0, 0];

/** A completed event of `org` on `day` (2025-03-DD) with metadata, cost (input = total), user and agent. */
function ev(partition: number, day: number, meta: Record<string, unknown>, cost: string, fields: Partial<LakeEventRow> = {}): LakeEventRow {
  const offset = offsets[partition]!++;
  return lakeEvent({
    organization_id: org,
    kafka_partition: partition,
    kafka_offset: offset,
    idempotency_key: `dim-${partition}-${offset}`,
    event_timestamp: new Date(Date.UTC(2025, 2, day, 6 + offset)),
    metadata: JSON.stringify(meta),
    input_cost: cost,
    output_cost: '0',
    total_cost: cost,
    ...fields,
  });
}

const FULL = { start_date: '2025-03-10', end_date: '2025-03-13' };
/** Sub-day bounds: the partial ends are read from raw events either way. */
const PARTIAL = { start_date: '2025-03-10T07:30:00Z', end_date: '2025-03-12T08:30:00Z' };

/** A fresh control plane and organization (three end users), its events to be written from offset 0. */
async function newTenant(): Promise<void> {
  control = await openFreshControlDb('pglite');
  org = (await createTestTenant(control.db)).organizationId;
  await upsertEndUsers(control.db, org, ['user-1', 'user-2', 'user-3']);
  offsets.fill(0);
}

/**
 * The events of the figures below, written through `writer`: days 10 and 11 before the dimensions
 * exist, then day 11 again and day 12, and day 12's pending event re-priced.
 */
async function writeFixture(writer: ProcessorLake): Promise<void> {
  // Before any dimension exists: day 10 on partition 0, day 11 on partition 1.
  await writer.flush(
    0,
    [
      ev(0, 10, { team: 'search', latency_ms: 100 }, '1.5', { agent_id: 'a1' }),
      ev(0, 10, { team: 'sales', latency_ms: 200.25 }, '2.25', { agent_id: 'a2', user_id: 'user-2' }),
    ],
    2,
  );
  await writer.flush(1, [ev(1, 11, { team: 'search', latency_ms: 1 }, '10', { agent_id: 'a1' })], 1);

  await createDimension(control.db, org, { key: 'team', name: 'Team', valueType: 'string' });
  await createDimension(control.db, org, { key: 'latency_ms', name: 'Latency', valueType: 'number' });
  await createDimension(control.db, org, { key: 'agent_id', name: 'Agent', valueType: 'string' });

  // Day 11 on partition 0 (the day stays uncovered: partition 1's file of it predates the dimensions).
  await writer.flush(
    0,
    [
      ev(0, 11, { team: 'search', latency_ms: 50 }, '0.000000000001', { agent_id: 'a1' }),
      ev(0, 11, { latency_ms: 'fast' }, '3', { agent_id: 'a1', user_id: 'user-2' }),
      ev(0, 11, { team: 'sales', latency_ms: 10 }, '0', {
        status: 'pending_rate_card',
        input_cost: null,
        output_cost: null,
        agent_id: 'a2',
      }),
    ],
    5,
  );
  // Day 12, covered in both partitions; partition 0 in two flushes.
  await writer.flush(0, [ev(0, 12, { team: 'search', latency_ms: 7 }, '4', { agent_id: 'a2', user_id: 'user-3', feature: 'chat' })], 6);
  await writer.flush(
    0,
    [
      ev(0, 12, { team: 5, latency_ms: 0.5 }, '0.5', { agent_id: 'a1' }),
      ev(0, 12, { team: 'sales', latency_ms: 10 }, '0', {
        status: 'pending_rate_card',
        input_cost: null,
        output_cost: null,
        agent_id: 'a2',
        user_id: 'user-2',
      }),
    ],
    8,
  );
  await writer.flush(
    1,
    [
      ev(1, 12, { team: 'ops', latency_ms: 999 }, '0', { status: 'failed', input_cost: null, output_cost: null }),
      ev(1, 12, { team: 'search' }, '0.25', { agent_id: 'a1' }),
    ],
    3,
  );
  // Re-pricing: day 12's pending event becomes completed at 1 (events and rollups rewritten).
  const rewrite = await writer.rewriteRows(
    0,
    { organizationId: org, statuses: ['pending_rate_card'], fromDate: '2025-03-12', toDate: '2025-03-12' },
    (row) => ({
      ...row,
      status: 'completed',
      input_cost: '1',
      output_cost: '0',
      total_cost: '1',
    }),
  );
  expect(rewrite.rowsChanged).toBe(1);
}

const rc = (lake: LakeQuery): ReadContext => ({
  organizationId: org,
  ownerUserId: null,
  lake,
  db: control.db,
  rateBook: new RateBook(control.db),
  now: () => new Date('2025-03-20T00:00:00Z'),
});
/** Attribution by dimension (filtered by a typed key, and over a partial range) and one end user's rows: `lake` answers as raw events. */
async function expectByDimensionAsRaw(lake: LakeQuery, raw: LakeQuery): Promise<void> {
  for (const q of [
    { ...FULL, dimension: 'team', filter_key: 'agent_id', filter_value: 'a1' },
    { ...PARTIAL, dimension: 'team' },
  ]) {
    expect(await costByDimension(rc(lake), q)).toEqual(await costByDimension(rc(raw), q));
  }
  expect(await endUserByDimension(rc(lake), 'user-2', 'team', FULL.start_date, FULL.end_date)).toEqual(
    await endUserByDimension(rc(raw), 'user-2', 'team', FULL.start_date, FULL.end_date),
  );
}

// Completed costs by team over the three days (worked out from the events above):
// search 1.5 + 0.000000000001 + 10 + 4 + 0.25; sales 2.25 + 1 (re-priced); no team 3; team 5 → "5" 0.5.
const BREAKDOWN = [
  { dimension_value: 'search', total_cost: '15.750000000001', event_count: 5 },
  { dimension_value: 'sales', total_cost: '3.25', event_count: 2 },
  { dimension_value: 'Unassigned', total_cost: '3', event_count: 1 },
  { dimension_value: '5', total_cost: '0.5', event_count: 1 },
];

/**
 * Every dimension endpoint over the fixture, from the rollups (`rollups`) and from raw events
 * (`raw`, useRollups false): the same answers, and the hand-worked figures.
 */
function endpointCases(lakes: () => { rollups: LakeQuery; raw: LakeQuery }): void {
  it('cost-breakdown: hand-worked figures, equal to raw events', async () => {
    const { rollups, raw } = lakes();
    const answer = await dimensionCostBreakdown(rc(rollups), { ...FULL, dimension_key: 'team' });
    expect(answer.total_cost).toBe('22.500000000001');
    expect(answer.items.map(({ dimension_value, total_cost, event_count }) => ({ dimension_value, total_cost, event_count }))).toEqual(
      BREAKDOWN,
    );
    expect(answer).toEqual(await dimensionCostBreakdown(rc(raw), { ...FULL, dimension_key: 'team' }));
    for (const range of [PARTIAL, { start_date: '2025-03-12', end_date: '2025-03-13' }]) {
      expect(await dimensionCostBreakdown(rc(rollups), { ...range, dimension_key: 'team' })).toEqual(
        await dimensionCostBreakdown(rc(raw), { ...range, dimension_key: 'team' }),
      );
    }
  });

  it('cost-trend: every mode equal to raw events; one value by day worked out by hand', async () => {
    const { rollups, raw } = lakes();
    const one = await dimensionCostTrend(rc(rollups), { ...FULL, dimension_key: 'team', dimension_value: 'search' });
    expect(one).toEqual({
      granularity: 'daily',
      series: [
        {
          key: 'search',
          label: 'search',
          data_points: [
            { date: '2025-03-10T00:00:00.000Z', cost: '1.5', event_count: 1 },
            { date: '2025-03-11T00:00:00.000Z', cost: '10.000000000001', event_count: 2 },
            { date: '2025-03-12T00:00:00.000Z', cost: '4.25', event_count: 2 },
          ],
        },
      ],
    });
    for (const q of [
      { ...FULL, dimension_key: 'team' },
      { ...FULL, dimension_key: 'team', dimension_value: 'search' },
      { ...FULL, dimension_key: 'team', dimension_value: 'Unassigned' },
      { ...PARTIAL, dimension_key: 'team' },
    ]) {
      expect(await dimensionCostTrend(rc(rollups), q)).toEqual(await dimensionCostTrend(rc(raw), q));
    }
  });

  it('numeric-summary and numeric-trend: count, sum, min, max of every non-failed numeric value', async () => {
    const { rollups, raw } = lakes();
    // 100, 200.25, 1, 50, 10 (pending), 7, 0.5, 10 (re-priced); "fast" is not a number, 999 is failed.
    const summary = await dimensionNumericSummary(rc(rollups), { ...FULL, dimension_key: 'latency_ms' });
    expect(summary).toMatchObject({ event_count: 8, sum: '378.75', min: '0.5', max: '200.25', avg: '47.34375' });
    expect(summary).toEqual(await dimensionNumericSummary(rc(raw), { ...FULL, dimension_key: 'latency_ms' }));
    const trend = await dimensionNumericTrend(rc(rollups), { ...FULL, dimension_key: 'latency_ms', aggregation: 'sum' });
    expect(trend.data_points).toEqual([
      { date: '2025-03-10T00:00:00.000Z', value: '300.25', event_count: 2 },
      { date: '2025-03-11T00:00:00.000Z', value: '61', event_count: 3 },
      { date: '2025-03-12T00:00:00.000Z', value: '17.5', event_count: 3 },
    ]);
    for (const aggregation of ['sum', 'avg', 'min', 'max']) {
      for (const range of [FULL, PARTIAL]) {
        const q = { ...range, dimension_key: 'latency_ms', aggregation };
        expect(await dimensionNumericTrend(rc(rollups), q)).toEqual(await dimensionNumericTrend(rc(raw), q));
      }
    }
  });

  it('attribution by-dimension (alone, filtered by a typed key, and a typed key filtered by the dimension) and dimension-values', async () => {
    const { rollups, raw } = lakes();
    const queries = [
      { ...FULL, dimension: 'team' },
      { ...FULL, dimension: 'team', filter_key: 'agent_id', filter_value: 'a1' },
      { ...FULL, dimension: 'agent_id', filter_key: 'team', filter_value: 'search' },
      { ...FULL, dimension: 'team', filter_key: 'feature', filter_value: 'Unassigned' },
      { ...PARTIAL, dimension: 'team', filter_key: 'agent_id', filter_value: 'a2' },
    ];
    for (const q of queries) expect(await costByDimension(rc(rollups), q)).toEqual(await costByDimension(rc(raw), q));
    // agent a1: search 1.5 + 10 + 0.000000000001 + 0.25; Unassigned 3; "5" 0.5.
    const a1 = await costByDimension(rc(rollups), queries[1]!);
    expect(a1.items.map((i) => [i.attribution_value, i.total_cost, i.event_count])).toEqual([
      ['search', '11.750000000001', 4],
      ['Unassigned', '3', 1],
      ['5', '0.5', 1],
    ]);
    // Every status counts for distinct values (the failed "ops" too); no value for events without the key.
    const values = await dimensionValues(rc(rollups), { ...FULL, dimension: 'team' });
    expect(values).toEqual({ dimension: 'team', values: ['5', 'ops', 'sales', 'search'], truncated: false });
    expect(values).toEqual(await dimensionValues(rc(raw), { ...FULL, dimension: 'team' }));
  });

  it('end-user by-dimension: the per-end-user rows, equal to raw events', async () => {
    const { rollups, raw } = lakes();
    for (const user of ['user-1', 'user-2', 'user-3']) {
      for (const range of [FULL, PARTIAL]) {
        const a = await endUserByDimension(rc(rollups), user, 'team', range.start_date, range.end_date);
        expect(a).toEqual(await endUserByDimension(rc(raw), user, 'team', range.start_date, range.end_date));
      }
    }
    const u2 = await endUserByDimension(rc(rollups), 'user-2', 'team', FULL.start_date, FULL.end_date);
    // user-2: sales 2.25 + 1 (re-priced), no team 3; costliest first.
    expect(u2.items.map((i) => [i.attribution_value, i.total_cost])).toEqual([
      ['sales', '3.25'],
      ['Unassigned', '3'],
    ]);
  });

  it('asked again (sub-day slices kept by the edge cache, end users and filter values read from their projections): the same answers', async () => {
    const { rollups, raw } = lakes();
    // The third round reads kept slices and projections only; each must still equal raw events.
    for (let round = 0; round < 3; round++) {
      expect(await dimensionCostBreakdown(rc(rollups), { ...PARTIAL, dimension_key: 'team' })).toEqual(
        await dimensionCostBreakdown(rc(raw), { ...PARTIAL, dimension_key: 'team' }),
      );
      // The filtered ones read the filter value's projection; Unassigned selects the rows without a feature.
      for (const q of [
        { ...PARTIAL, dimension: 'team', filter_key: 'agent_id', filter_value: 'a1' },
        { ...FULL, dimension: 'team', filter_key: 'agent_id', filter_value: 'a1' },
        { ...FULL, dimension: 'team', filter_key: 'feature', filter_value: 'Unassigned' },
        { ...FULL, dimension: 'agent_id', filter_key: 'team', filter_value: 'search' },
      ]) {
        expect(await costByDimension(rc(rollups), q)).toEqual(await costByDimension(rc(raw), q));
      }
      // agent a1: search 1.5 + 10 + 0.000000000001 + 0.25; Unassigned 3; "5" 0.5 (as above, now from the projection).
      const a1 = await costByDimension(rc(rollups), { ...FULL, dimension: 'team', filter_key: 'agent_id', filter_value: 'a1' });
      expect(a1.items.map((i) => [i.attribution_value, i.total_cost, i.event_count])).toEqual([
        ['search', '11.750000000001', 4],
        ['Unassigned', '3', 1],
        ['5', '0.5', 1],
      ]);
      for (const user of ['user-1', 'user-2', 'user-3']) {
        for (const range of [FULL, PARTIAL]) {
          expect(await endUserByDimension(rc(rollups), user, 'team', range.start_date, range.end_date)).toEqual(
            await endUserByDimension(rc(raw), user, 'team', range.start_date, range.end_date),
          );
        }
      }
      const u2 = await endUserByDimension(rc(rollups), 'user-2', 'team', FULL.start_date, FULL.end_date);
      expect(u2.items.map((i) => [i.attribution_value, i.total_cost])).toEqual([
        ['sales', '3.25'],
        ['Unassigned', '3'],
      ]);
    }
    expect(rollups.edges.size.slices).toBeGreaterThan(0);
  });
}

// The open lake: the same events through the DuckLake processor lake (one fenced commit per flush
// and per re-pricing, the rollups and dimension_coverage in the same commit; no compaction step:
// DuckLake's merge is its own and changes no rows), read by a LakeQuery opened as the api opens it
// on DuckLake. Every endpoint as above, then a backfill of the days written before the dimensions.
describe.skipIf(!openLakeReady)('dimension rollups (open lake, DuckLake)', () => {
  let writer: DuckLakeWriter;
  let catalog: FreshControlDb;
  let rollups: LakeQuery;
  let raw: LakeQuery;
  const opened: LakeQuery[] = [];
  const open = async (useRollups = true, derivedDir?: false) => {
    const q = await LakeQuery.open(lakeDir, { ...testLakeQueryOptions(lakeDir), refreshIntervalMs: 0, useRollups, derivedDir });
    opened.push(q);
    return q;
  };

  beforeAll(async () => {
    await newTenant();
    lakeDir = tempLakeDir('ducklake-dimension-rollups');
    catalog = await openFreshControlDb('postgres', { migrate: false });
    markDuckLake(lakeDir, duckLakeEnv(lakeDir, catalog.url!));
    writer = await DuckLakeWriter.open(duckLakeSettingsOf(lakeDir)!, { dimensions: new DimensionBook(control.db, null, 0) });
    await writeFixture(writer);
    rollups = await open();
    raw = await open(false);
  });

  afterAll(async () => {
    for (const q of opened) q.close();
    await writer?.close();
    await catalog?.dispose();
    await control?.dispose();
    if (lakeDir) fs.rmSync(lakeDir, { recursive: true, force: true });
  });

  const teamScope = () => ({
    organizationId: org,
    range: { start: new Date('2025-03-10T00:00:00Z'), end: new Date('2025-03-13T00:00:00Z') },
    derived: metadataCostsDerivation('team', { endUser: false }),
  });

  it('builds the covered whole day from the rollup table, the others from events; raw reads events only', async () => {
    await rollups.rows(teamScope(), 'SELECT count(*) FROM {{derived}}');
    // Day 12 is covered for team in both partitions; day 10 (partition 0) and day 11 (partition 1)
    // were written before the dimensions existed.
    expect(rollups.cache.counts.builtFrom).toEqual({ dimension_costs: 1, events: 2 });
    expect(await raw.expand(teamScope(), '{{derived}}')).not.toContain('dimension_costs');
  });

  endpointCases(() => ({ rollups, raw }));

  it('backfill: the days written before the dimensions rolled up, the same answers from a fresh reader', async () => {
    const before = await dimensionCostBreakdown(rc(raw), { ...FULL, dimension_key: 'team' });
    // Partition 0 lacks day 10 (written before the definitions), partition 1 day 11.
    expect((await writer.backfillDimensions(0)).remaining).toBe(0);
    expect((await writer.backfillDimensions(1)).remaining).toBe(0);
    // A fresh reader with no kept days (no derived store): every whole day built from the rollup.
    const fresh = await open(true, false);
    const after = await dimensionCostBreakdown(rc(fresh), { ...FULL, dimension_key: 'team' });
    expect(fresh.cache.counts.builtFrom).toEqual({ dimension_costs: 3 });
    expect(after).toEqual(before);
    expect(after.items.map(({ dimension_value, total_cost, event_count }) => ({ dimension_value, total_cost, event_count }))).toEqual(
      BREAKDOWN,
    );
    expect(await dimensionNumericSummary(rc(fresh), { ...FULL, dimension_key: 'latency_ms' })).toEqual(
      await dimensionNumericSummary(rc(raw), { ...FULL, dimension_key: 'latency_ms' }),
    );
    await expectByDimensionAsRaw(fresh, raw);
  });

  it('metadata that is not JSON (a producer bypassing ingest) lands Unassigned instead of failing the flush', async () => {
    const day = { start_date: '2025-03-15', end_date: '2025-03-16' };
    await writer.flush(
      1,
      [ev(1, 15, { team: 'search', latency_ms: 4 }, '1.25'), { ...ev(1, 15, {}, '0.75'), metadata: '{"team": not json' }],
      offsets[1]!,
    );
    const fresh = await open();
    const answer = await dimensionCostBreakdown(rc(fresh), { ...day, dimension_key: 'team' });
    expect(answer.items.map(({ dimension_value, total_cost, event_count }) => ({ dimension_value, total_cost, event_count }))).toEqual([
      { dimension_value: 'search', total_cost: '1.25', event_count: 1 },
      { dimension_value: 'Unassigned', total_cost: '0.75', event_count: 1 },
    ]);
    expect(answer).toEqual(await dimensionCostBreakdown(rc(raw), { ...day, dimension_key: 'team' }));
    expect(await dimensionNumericSummary(rc(fresh), { ...day, dimension_key: 'latency_ms' })).toMatchObject({ event_count: 1, sum: '4' });
  });
});
