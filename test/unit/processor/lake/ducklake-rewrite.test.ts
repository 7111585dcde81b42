// The statements of one re-pricing commit (pure): replace the staged events of one partition and
// organization, recompute that partition's rollup rows of the days touched, fence on the offset.
import { describe, expect, it } from 'vitest';
import { planDuckLakeRewrite } from '../../../../processor/lake/ducklake-rewrite.js';

const rewrite = {
  partition: 1,
  offset: 500,
  organizationId: "org-'a",
  staged: 'reprice_batch',
  dates: ['2025-03-10', '2025-03-12'],
  dimensions: {},
};

describe('planDuckLakeRewrite', () => {
  it('checks the staged rows, deletes and inserts the events, then deletes and recomputes each rollup of those days', () => {
    const { statements, fence } = planDuckLakeRewrite(rewrite);
    const group = "kafka_partition = 1 AND organization_id = 'org-''a'";
    const days = "event_date IN (DATE '2025-03-10', DATE '2025-03-12')";
    expect(statements.map((s) => s.split(' ').slice(0, 3).join(' '))).toEqual([
      "SELECT error('a replacement",
      'DELETE FROM lake.events',
      'INSERT INTO lake.events',
      'DELETE FROM lake.daily_costs',
      'DELETE FROM lake.session_spans',
      'INSERT INTO lake.daily_costs',
      'INSERT INTO lake.session_spans',
      'DELETE FROM lake.dimension_costs',
      'DELETE FROM lake.dimension_numbers',
      'DELETE FROM lake.dimension_coverage',
      'INSERT INTO lake.dimension_coverage',
    ]);
    expect(statements[1]).toBe(`DELETE FROM lake.events WHERE ${group} AND event_id IN (SELECT event_id FROM reprice_batch)`);
    expect(statements[3]).toBe(`DELETE FROM lake.daily_costs WHERE ${group} AND ${days}`);
    expect(statements[5]).toContain(`SELECT 1 AS kafka_partition, rollup.* FROM (SELECT `);
    expect(statements[5]).toContain(`FROM (SELECT * FROM lake.events WHERE ${group} AND ${days})`);
    expect(fence).toBe('UPDATE lake.partition_offsets_p1 SET next_offset = 500 WHERE next_offset = 500');
  });

  it("recomputes the organization's dimension rollups as defined now", () => {
    const { statements } = planDuckLakeRewrite({ ...rewrite, dimensions: { team: 'string', seats: 'number' } });
    expect(statements.slice(-3).map((s) => /^INSERT INTO lake\.(\w+)/.exec(s)?.[1])).toEqual([
      'dimension_costs',
      'dimension_numbers',
      'dimension_coverage',
    ]);
    // The recomputed days now cover exactly that set.
    expect(statements.at(-1)).toContain(`(VALUES ('org-''a', '{"seats":"number","team":"string"}'))`);
  });

  it("records the spend revision written for it, and drops the partition's ids older than 14 days", () => {
    expect(planDuckLakeRewrite(rewrite).statements.join('\n')).not.toContain('spend_revisions');
    const { statements } = planDuckLakeRewrite({ ...rewrite, revisionId: "rev-'1" });
    expect(statements.slice(-2)).toEqual([
      'DELETE FROM lake.spend_revisions WHERE kafka_partition = 1 AND committed_at < now()::TIMESTAMP - INTERVAL 14 DAY',
      "INSERT INTO lake.spend_revisions VALUES (1, 'rev-''1', now()::TIMESTAMP)",
    ]);
  });

  it('refuses no days, a malformed day, a bad offset or staging name', () => {
    expect(() => planDuckLakeRewrite({ ...rewrite, dates: [] })).toThrow(RangeError);
    expect(() => planDuckLakeRewrite({ ...rewrite, dates: ["2025-03-10' OR true"] })).toThrow(RangeError);
    expect(() => planDuckLakeRewrite({ ...rewrite, offset: -1 })).toThrow(RangeError);
    expect(() => planDuckLakeRewrite({ ...rewrite, staged: 'a b' })).toThrow(RangeError);
  });
});
