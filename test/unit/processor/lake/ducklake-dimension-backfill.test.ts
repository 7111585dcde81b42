// Which days of a partition the open lake's dimension backfill redoes (pure): those whose coverage
// rows do not all list every dimension the organization defines now, a day without coverage rows
// included, batched per organization and bounded per call.
import { describe, expect, it } from 'vitest';
import { planDuckLakeBackfill } from '../../../../processor/lake/ducklake-dimension-backfill.js';

const team = { team: 'string' as const };
const both = { team: 'string' as const, seats: 'number' as const };

describe('planDuckLakeBackfill', () => {
  it('redoes days with a coverage row lacking a key or with another type, or with none; covered days and organizations without dimensions stay', () => {
    const plan = planDuckLakeBackfill(
      [
        { organizationId: 'org-b', date: '2026-10-02', sets: [{}] }, // written before any dimension
        { organizationId: 'org-b', date: '2026-10-01', sets: [team, {}] }, // one flush before `team`
        { organizationId: 'org-b', date: '2026-10-03', sets: [team, both] }, // covered
        { organizationId: 'org-a', date: '2026-10-01', sets: [null] }, // no coverage rows (an older lake)
        { organizationId: 'org-a', date: '2026-10-02', sets: [{ team: 'number' }] }, // redefined with another type
        { organizationId: 'org-c', date: '2026-10-01', sets: [{}] }, // no dimensions
      ],
      new Map([
        ['org-a', team],
        ['org-b', team],
      ]),
      30,
    );
    expect(plan).toEqual({
      batches: [
        { organizationId: 'org-a', dates: ['2026-10-01', '2026-10-02'], set: team },
        { organizationId: 'org-b', dates: ['2026-10-01', '2026-10-02'], set: team },
      ],
      remaining: 0,
    });
  });

  it('a second key defined later makes a day covered for the first one to do again', () => {
    const plan = planDuckLakeBackfill([{ organizationId: 'org-a', date: '2026-10-01', sets: [team] }], new Map([['org-a', both]]), 30);
    expect(plan.batches).toEqual([{ organizationId: 'org-a', dates: ['2026-10-01'], set: both }]);
  });

  it('takes at most maxGroups days per call, oldest organization and day first, and counts the rest', () => {
    const days = ['2026-10-03', '2026-10-01', '2026-10-02'].map((date) => ({ organizationId: 'org-a', date, sets: [{}] }));
    expect(planDuckLakeBackfill(days, new Map([['org-a', team]]), 2)).toEqual({
      batches: [{ organizationId: 'org-a', dates: ['2026-10-01', '2026-10-02'], set: team }],
      remaining: 1,
    });
  });
});
