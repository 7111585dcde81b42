import { describe, expect, it } from 'vitest';
import { capDistinctValues, capGroups, percentsSummingTo100 } from '../../../../api/attribution/attribution.js';

describe('capGroups', () => {
  it('keeps the costliest groups, ties by value, and reports the population', () => {
    const groups = [
      { value: 'b', cost: '1' },
      { value: 'a', cost: '1' },
      { value: 'big', cost: '10.5' },
      { value: 'tiny', cost: '0.000000000001' },
      { value: 'Unassigned', cost: '2' },
    ];
    expect(capGroups(groups, 3)).toEqual({
      kept: [
        { value: 'big', cost: '10.5' },
        { value: 'Unassigned', cost: '2' },
        { value: 'a', cost: '1' },
      ],
      totalGroups: 5,
      truncated: true,
    });
    expect(capGroups(groups, 5).truncated).toBe(false);
  });

  it('cuts 1200 groups to 1000 by default', () => {
    const groups = Array.from({ length: 1200 }, (_, i) => ({ value: `g${i}`, cost: String(i) }));
    const r = capGroups(groups);
    expect(r.kept).toHaveLength(1000);
    expect(r.kept[0]!.value).toBe('g1199');
    expect(r.kept[999]!.value).toBe('g200');
    expect(r).toMatchObject({ totalGroups: 1200, truncated: true });
  });
});

describe('percentsSummingTo100', () => {
  it('thirds: 33.34 + 33.33 + 33.33 (the leftover hundredth goes to the first)', () => {
    expect(percentsSummingTo100(['1', '1', '1'])).toEqual([33.34, 33.33, 33.33]);
  });

  it('gives the leftover to the largest remainders', () => {
    // 2/7 = 28.571…, 2/7, 3/7 = 42.857…: floors 28.57 + 28.57 + 42.85 = 99.99; the largest
    // remainder is 3/7's (0.714… hundredths) → 42.86.
    expect(percentsSummingTo100(['2', '2', '3'])).toEqual([28.57, 28.57, 42.86]);
  });

  it('exact shares stay exact; zero totals give zeros', () => {
    expect(percentsSummingTo100(['0.5', '0.25', '0.25', '0'])).toEqual([50, 25, 25, 0]);
    expect(percentsSummingTo100(['0', '0'])).toEqual([0, 0]);
    expect(percentsSummingTo100([])).toEqual([]);
  });

  it('sums to 100 over many uneven groups', () => {
    const costs = Array.from({ length: 997 }, (_, i) => `0.${String((i * 7919) % 1000).padStart(3, '0')}1`);
    const p = percentsSummingTo100(costs);
    expect(Math.round(p.reduce((s, x) => s + x, 0) * 100)).toBe(10_000);
  });
});

describe('capDistinctValues', () => {
  it('returns up to the cap and flags when more existed', () => {
    expect(capDistinctValues(['a', 'b', 'c'], 3)).toEqual({ values: ['a', 'b', 'c'], truncated: false });
    expect(capDistinctValues(['a', 'b', 'c', 'd'], 3)).toEqual({ values: ['a', 'b', 'c'], truncated: true });
  });
});
