import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LakeQuery, splitWholeDays, splitWholeHours, type Derivation } from '../../../../api/lake/lake-query.js';
import type { LakeEventRow } from '../../../../core/lake/events-schema.js';
import { openTestProcessorLake } from '../../../support/processor-fixtures.js';
import { testDuckLake, testLakeFormat, testLakeQueryOptions } from '../../../support/test-lake.js';
import { collapseCoverage } from '../../../../core/lake/dimension-coverage.js';
import { lakeEvent } from '../../../support/lake-event-builder.js';

const d = (s: string) => new Date(s);

describe('splitWholeDays', () => {
  it('answers whole UTC days by rollup and the partial ends by events', () => {
    expect(splitWholeDays({ start: d('2025-03-10T13:00:00Z'), end: d('2025-03-12T23:30:00Z') })).toEqual({
      wholeDays: { start: d('2025-03-11T00:00:00Z'), end: d('2025-03-12T00:00:00Z') },
      partial: [
        { start: d('2025-03-10T13:00:00Z'), end: d('2025-03-11T00:00:00Z') },
        { start: d('2025-03-12T00:00:00Z'), end: d('2025-03-12T23:30:00Z') },
      ],
    });
  });
  it('has no partial pieces for a midnight-aligned range', () => {
    expect(splitWholeDays({ start: d('2025-03-01'), end: d('2025-04-01') })).toEqual({
      wholeDays: { start: d('2025-03-01'), end: d('2025-04-01') },
      partial: [],
    });
  });
  it('is all partial within one day', () => {
    const r = { start: d('2025-03-10T01:00:00Z'), end: d('2025-03-10T02:00:00Z') };
    expect(splitWholeDays(r)).toEqual({ wholeDays: null, partial: [r] });
  });
  it('is all partial across one midnight with no whole day', () => {
    const r = { start: d('2025-03-10T12:00:00Z'), end: d('2025-03-11T12:00:00Z') };
    expect(splitWholeDays(r)).toEqual({ wholeDays: null, partial: [r] });
  });
});

describe('splitWholeHours', () => {
  it('keeps whole hours for the hourly cache and the minutes at either end for events', () => {
    expect(splitWholeHours({ start: d('2025-03-10T13:20:00Z'), end: d('2025-03-10T18:05:00Z') })).toEqual({
      wholeHours: { start: d('2025-03-10T14:00:00Z'), end: d('2025-03-10T18:00:00Z') },
      partial: [
        { start: d('2025-03-10T13:20:00Z'), end: d('2025-03-10T14:00:00Z') },
        { start: d('2025-03-10T18:00:00Z'), end: d('2025-03-10T18:05:00Z') },
      ],
    });
    const r = { start: d('2025-03-10T13:20:00Z'), end: d('2025-03-10T13:50:00Z') };
    expect(splitWholeHours(r)).toEqual({ wholeHours: null, partial: [r] });
  });
});

const ORG = '0b9a5c1e-6f3d-4a8e-9c2b-1d7e5f4a3b21';
const OTHER = '7c4e2a9d-1b3f-4e6a-8d5c-9f2e1a7b6c43';

function row(offset: number, at: string, totalCost: string, org = ORG): LakeEventRow {
  const ts = d(at);
  return lakeEvent({
    organization_id: org,
    idempotency_key: `k${offset}`,
    api_key_id: 'key',
    owner_user_id: null,
    received_at: ts,
    event_timestamp: ts,
    priced_at: ts,
    user_id: 'u1',
    input_tokens: 10,
    output_tokens: 5,
    input_cost: totalCost,
    output_cost: '0',
    total_cost: totalCost,
    kafka_offset: offset,
  });
}

describe('LakeQuery', () => {
  let dir: string;
  let withRollups: LakeQuery;
  let rawOnly: LakeQuery;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lake-query-'));
    const writer = await openTestProcessorLake(dir);
    await writer.flush(
      0,
      [
        row(0, '2025-03-10T12:00:00Z', '1.000000000001'),
        row(1, '2025-03-11T01:00:00Z', '2'),
        row(2, '2025-03-11T23:59:59.999Z', '0.000000000001'),
        row(3, '2025-03-12T23:00:00Z', '4'),
        row(4, '2025-03-11T05:00:00Z', '8', OTHER),
      ],
      5,
    );
    await writer.close();
    withRollups = await LakeQuery.open(dir, testLakeQueryOptions(dir));
    rawOnly = await LakeQuery.open(dir, { ...testLakeQueryOptions(dir), useRollups: false });
  });
  afterAll(() => {
    withRollups?.close();
    rawOnly?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const SUM =
    'SELECT CAST(sum(total_cost) AS DECIMAL(38,12)) AS cost, CAST(sum(event_count) AS BIGINT) AS n FROM {{costs}} WHERE organization_id = $org';

  it('covers exactly [start, end) from rollups plus partial days, with exact decimals', async () => {
    const scope = { organizationId: ORG, range: { start: d('2025-03-10T13:00:00Z'), end: d('2025-03-12T23:30:00Z') } };
    // 2 + 0.000000000001 + 4: the 12:00 event of the 10th is before start.
    expect(await withRollups.rows(scope, SUM)).toEqual([{ cost: '6.000000000001', n: 3 }]);
    expect(await rawOnly.rows(scope, SUM)).toEqual([{ cost: '6.000000000001', n: 3 }]);
  });

  it('splits a partial day into cached whole hours and raw minutes with exact bounds', async () => {
    // 01:00 exactly is in; 23:59:59.999 is the (exclusive) end, so the event there is out.
    const scope = { organizationId: ORG, range: { start: d('2025-03-11T01:00:00Z'), end: d('2025-03-11T23:59:59.999Z') } };
    expect(await withRollups.rows(scope, SUM)).toEqual([{ cost: '2.000000000000', n: 1 }]);
    expect(await rawOnly.rows(scope, SUM)).toEqual([{ cost: '2.000000000000', n: 1 }]);
    const later = { organizationId: ORG, range: { start: d('2025-03-11T01:00:00.001Z'), end: d('2025-03-12T00:00:00Z') } };
    expect(await withRollups.rows(later, SUM)).toEqual([{ cost: '0.000000000001', n: 1 }]);
  });

  it('reads only the organization of the scope', async () => {
    const scope = { organizationId: OTHER, range: { start: d('2025-03-01'), end: d('2025-04-01') } };
    expect(await withRollups.rows(scope, SUM)).toEqual([{ cost: '8.000000000000', n: 1 }]);
  });

  it('binds $start/$end as UTC timestamps and named parameters', async () => {
    const scope = { organizationId: ORG, range: { start: d('2025-03-11'), end: d('2025-03-12') } };
    const rows = await withRollups.rows(
      scope,
      'SELECT event_timestamp, total_cost FROM {{events}} WHERE organization_id = $org AND event_timestamp >= $start AND event_timestamp < $end AND model = $model ORDER BY event_timestamp',
      { model: 'gpt-4o' },
    );
    expect(rows).toEqual([
      { event_timestamp: d('2025-03-11T01:00:00Z'), total_cost: '2.000000000000' },
      { event_timestamp: d('2025-03-11T23:59:59.999Z'), total_cost: '0.000000000001' },
    ]);
  });

  it('gives an empty relation for an organization with no files', async () => {
    const scope = { organizationId: '11111111-1111-4111-8111-111111111111', range: { start: d('2025-03-01'), end: d('2025-04-01') } };
    expect(await withRollups.rows(scope, SUM)).toEqual([{ cost: null, n: null }]);
  });
});

describe.skipIf(testLakeFormat() !== 'ducklake')('LakeQuery {{derived}} and the per-day cache', () => {
  const perModel: Derivation = {
    id: 'per-model',
    source: 'events',
    perDay:
      'SELECT filename, organization_id, event_date, model, CAST(count(*) AS BIGINT) AS n, CAST(sum(total_cost) AS DECIMAL(38,12)) AS cost FROM {{src}} GROUP BY ALL',
  };
  const SQL =
    'SELECT CAST(sum(n) AS BIGINT) AS n, CAST(sum(cost) AS DECIMAL(38,12)) AS cost FROM {{derived}} d WHERE d.organization_id = $org';

  it("answers from cached whole days plus raw partial days, and stays right through the writer's upkeep (files merged, coverage folded)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lake-derived-'));
    const writer = await openTestProcessorLake(dir);
    // Two flushes, so the 11th has two flushes' rows (and two coverage rows) in partition 0.
    await writer.flush(0, [row(0, '2025-03-10T12:00:00Z', '1'), row(1, '2025-03-11T01:00:00Z', '2')], 2);
    await writer.flush(0, [row(2, '2025-03-11T05:00:00Z', '4'), row(3, '2025-03-12T06:00:00Z', '8')], 4);
    const cached = await LakeQuery.open(dir, { ...testLakeQueryOptions(dir), refreshIntervalMs: 0, cacheGraceMs: 0 });
    const raw = await LakeQuery.open(dir, { ...testLakeQueryOptions(dir), useRollups: false, refreshIntervalMs: 0 });
    try {
      const scope = { organizationId: ORG, range: { start: d('2025-03-10T18:00:00Z'), end: d('2025-03-12T12:00:00Z') }, derived: perModel };
      const expected = [{ n: 3, cost: '14.000000000000' }];
      expect(await cached.rows(scope, SQL)).toEqual(expected);
      expect(await raw.rows(scope, SQL)).toEqual(expected);
      // The two flushes of the 11th make one (day, model) row; the partial 10th and 12th are
      // answered by the hourly cache, one (hour, model) row each.
      expect(cached.cache!.rows).toBe(3);

      // DuckLake's upkeep as the writer runs it: adjacent files merged (rowids kept, no day's version
      // moves), then the settled days' coverage rows folded, the 11th's two into one (a new version).
      const lake = (await testDuckLake(dir))!;
      await lake.conn.run(`CALL ducklake_merge_adjacent_files('lake')`);
      expect(await collapseCoverage(lake.conn, '2030-01-01')).toBe(2);
      expect(await cached.rows(scope, SQL)).toEqual(expected);
      // The 11th was rebuilt; the old row waits out its grace…
      expect(cached.cache!.rows).toBe(4);
      expect(await cached.rows(scope, SQL)).toEqual(expected);
      // …and is deleted by the next build.
      expect(cached.cache!.rows).toBe(3);
    } finally {
      cached.close();
      raw.close();
      await writer.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
