import { describe, expect, it } from 'vitest';
import {
  breakdownCsv,
  capDistinctValues,
  capGroups,
  cappedBreakdown,
  percentsSummingTo100,
} from '../../../../api/attribution/attribution.js';
import type { KeyedCostGroupRow } from '../../../../api/costs/costs.queries.js';

function group(value: string | null, totalCost: string, events = 1): KeyedCostGroupRow {
  return {
    group_value: value,
    event_count: events,
    input_tokens: 10 * events,
    output_tokens: 5 * events,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    reasoning_tokens: null,
    input_cost: totalCost,
    output_cost: '0',
    cache_creation_cost: null,
    cache_read_cost: null,
    reasoning_cost: null,
    total_cost: totalCost,
  };
}

describe('capGroups', () => {
  it('keeps the first `cap` of an ordered list and reports the population', () => {
    expect(capGroups(['a', 'b', 'c', 'd'], 3)).toEqual({ kept: ['a', 'b', 'c'], totalGroups: 4, truncated: true });
    expect(capGroups(['a', 'b', 'c'], 3)).toEqual({ kept: ['a', 'b', 'c'], totalGroups: 3, truncated: false });
  });
});

describe('cappedBreakdown', () => {
  it('keeps the costliest groups (ties by value), totals the whole population, shares sum to 100 over the kept', () => {
    const r = cappedBreakdown(
      [group('b', '1'), group('a', '1'), group('big', '10.5', 3), group('tiny', '0.000000000001'), group(null, '2', 2)],
      3,
    );
    // Kept: big 10.5, Unassigned 2, a 1 (a before b on the tie) → sum 13.5.
    // 10.5/13.5 = 77.777…, 2/13.5 = 14.814…, 1/13.5 = 7.407… → floors 77.77 + 14.81 + 7.40 = 99.98;
    // the two largest remainders (0.777… of 77.77…, 0.740… of 7.40…) get a hundredth each.
    expect(r.items.map((i) => [i.attribution_value, i.total_cost, i.event_count, i.percent_of_total])).toEqual([
      ['big', '10.5', 3, 77.78],
      ['Unassigned', '2', 2, 14.81],
      ['a', '1', 1, 7.41],
    ]);
    expect(r).toMatchObject({ total_cost: '14.500000000001', total_groups: 5, truncated: true });
  });

  it('cuts 1200 groups to 1000 by default', () => {
    const r = cappedBreakdown(Array.from({ length: 1200 }, (_, i) => group(`g${String(i).padStart(4, '0')}`, String(i + 1))));
    expect(r.items).toHaveLength(1000);
    expect(r.items[0]!.attribution_value).toBe('g1199');
    expect(r.items[999]!.attribution_value).toBe('g0200');
    expect(r).toMatchObject({ total_groups: 1200, truncated: true, total_cost: String((1200 * 1201) / 2) });
    expect(Math.round(r.items.reduce((s, i) => s + i.percent_of_total, 0) * 100)).toBe(10_000);
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
});

describe('capDistinctValues', () => {
  it('returns up to the cap and flags when more existed', () => {
    expect(capDistinctValues(['a', 'b', 'c'], 3)).toEqual({ values: ['a', 'b', 'c'], truncated: true }); // the cap was reached
    expect(capDistinctValues(['a', 'b', 'c', 'd'], 3)).toEqual({ values: ['a', 'b', 'c'], truncated: true });
  });
});

describe('breakdownCsv', () => {
  it('writes a header and one RFC 4180 row per item, nulls empty, formulas defused', () => {
    const { items } = cappedBreakdown([group('plain', '1.5'), group('with "quote", comma', '1'), group('=HYPERLINK("x")', '0.5')]);
    expect(breakdownCsv(items)).toBe(
      [
        'attribution_value,total_cost,input_tokens,output_tokens,cache_creation_input_tokens,cache_read_input_tokens,reasoning_tokens,input_cost,output_cost,cache_creation_cost,cache_read_cost,reasoning_cost,event_count,percent_of_total',
        'plain,1.5,10,5,,,,1.5,0,,,,1,50',
        '"with ""quote"", comma",1,10,5,,,,1,0,,,,1,33.33',
        `"'=HYPERLINK(""x"")",0.5,10,5,,,,0.5,0,,,,1,16.67`,
        '',
      ].join('\r\n'),
    );
  });
});
