// The statements of one flush's DuckLake commit (pure): what a batch with and without sessions and
// dimensions writes, and the compare-and-set that fences the partition's offset.
import { describe, expect, it } from 'vitest';
import { planDuckLakeFlush } from '../../../../processor/lake/ducklake-commit.js';

const flush = { partition: 2, fromOffset: 100, nextOffset: 250, staged: 'lake_batch', hasSessions: false, dimensions: new Map() };

describe('planDuckLakeFlush', () => {
  it('a plain batch: events, daily_costs and the coverage from the staged rows, then the offset from 100 to 250 of partition 2', () => {
    const plan = planDuckLakeFlush(flush);
    expect(plan.inserts).toHaveLength(3);
    expect(plan.inserts[0]).toBe('INSERT INTO lake.events BY NAME SELECT * FROM lake_batch');
    // Rollup rows carry the partition whose events they sum.
    expect(plan.inserts[1]).toMatch(
      /^INSERT INTO lake\.daily_costs BY NAME SELECT 2 AS kafka_partition, rollup\.\* FROM \(SELECT .* FROM lake_batch GROUP BY .*\) rollup$/,
    );
    // Without dimensions every (organization, day) is recorded as rolled up for none.
    expect(plan.inserts[2]).toContain(`SELECT 2 AS kafka_partition, g.organization_id, g.event_date, '{}' AS dimensions`);
    expect(plan.moveOffset).toBe('UPDATE lake.partition_offsets_p2 SET next_offset = 250 WHERE next_offset = 100');
  });

  it('sessions and dimensions add their rollups; string and number dimensions each their own table', () => {
    const plan = planDuckLakeFlush({
      ...flush,
      hasSessions: true,
      dimensions: new Map([['org-a', { team: 'string' as const, seats: 'number' as const }]]),
    });
    expect(plan.inserts.map((s) => /^INSERT INTO lake\.(\w+)/.exec(s)?.[1])).toEqual([
      'events',
      'daily_costs',
      'session_spans',
      'dimension_costs',
      'dimension_numbers',
      'dimension_coverage',
    ]);
    expect(plan.inserts[3]).toContain("'org-a', 'team', '/team'");
    // The set the rollups were written for, keys sorted; other organizations of the batch get {}.
    expect(plan.inserts[5]).toContain(`(VALUES ('org-a', '{"seats":"number","team":"string"}'))`);
    expect(plan.inserts[5]).toContain(`coalesce(s.dimensions, '{}')`);
  });

  it('a batch of duplicates only moves the offset', () => {
    expect(planDuckLakeFlush({ ...flush, staged: null })).toEqual({
      inserts: [],
      moveOffset: 'UPDATE lake.partition_offsets_p2 SET next_offset = 250 WHERE next_offset = 100',
    });
  });

  it('refuses offsets going backwards or not integers, and a staging name that is not an identifier', () => {
    expect(() => planDuckLakeFlush({ ...flush, nextOffset: 99 })).toThrow(RangeError);
    expect(() => planDuckLakeFlush({ ...flush, fromOffset: 1.5 })).toThrow(RangeError);
    expect(() => planDuckLakeFlush({ ...flush, staged: 'x; DROP TABLE lake.events' })).toThrow(RangeError);
    expect(() => planDuckLakeFlush({ ...flush, partition: -1 })).toThrow(RangeError);
  });
});
