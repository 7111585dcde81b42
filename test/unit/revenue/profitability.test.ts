import { describe, expect, it } from 'vitest';
import { leastProfitableFirst, marginFigures, marginPercent, sortLeastProfitableFirst } from '../../../revenue/profitability.js';
import { Big } from '../../../core/money.js';

describe('marginFigures and the profitability rule', () => {
  const cases: [string, string, string, number | null, string][] = [
    // revenue, cost → margin_amount, margin_percent, category
    ['100', '70', '30', 30, 'profitable'],
    ['100', '79.99', '20.01', 20.01, 'profitable'],
    ['100', '79.995', '20.005', 20.01, 'profitable'], // 20.005 rounds half-up
    ['100', '80', '20', 20, 'break-even'], // 20 is inclusive
    ['100', '80.004', '19.996', 20, 'break-even'], // rounds to 20, not above it
    ['100', '100', '0', 0, 'break-even'],
    ['100', '100.01', '-0.01', -0.01, 'unprofitable'],
    ['3', '1', '2', 66.67, 'profitable'],
    ['100', '0', '100', 100, 'profitable'],
    ['0', '0', '0', null, 'break-even'], // no activity at all
    ['0', '5', '-5', null, 'unprofitable'], // cost with zero revenue
    ['-10', '0', '-10', -100, 'unprofitable'], // refunds exceed sales: over |revenue|, the percent says the loss too
    ['-10', '5', '-15', -150, 'unprofitable'],
  ];
  it.each(cases)('revenue %s, cost %s → margin %s, %s %%, %s', (revenue, cost, margin, pct, category) => {
    expect(marginFigures(revenue, cost)).toEqual({
      revenue,
      cost,
      margin_amount: margin,
      margin_percent: pct,
      profitability_category: category,
    });
  });

  it('rounds revenue to the wire precision before the margin, so the strings agree', () => {
    // 100/3 shows as 33.333333333333; margin = shown revenue − cost exactly.
    const m = marginFigures('33.3333333333333333', '3.333333333333');
    expect(m).toMatchObject({ revenue: '33.333333333333', margin_amount: '30', margin_percent: 90 });
  });
});

describe('leastProfitableFirst', () => {
  it('orders by margin_amount ascending (numerically), ties by end_user_id', () => {
    const rows = [
      { end_user_id: 'c', margin_amount: '10' },
      { end_user_id: 'b', margin_amount: '-5' },
      { end_user_id: 'd', margin_amount: '9.5' },
      { end_user_id: 'a', margin_amount: '-5' },
      { end_user_id: 'e', margin_amount: '-12.5' },
    ];
    expect(rows.sort(leastProfitableFirst).map((r) => r.end_user_id)).toEqual(['e', 'a', 'b', 'd', 'c']);
  });

  it('sortLeastProfitableFirst (what margin uses) gives the same order and leaves its input alone', () => {
    const rows = [
      { end_user_id: 'c', margin_amount: '10' },
      { end_user_id: 'b', margin_amount: '-5' },
      { end_user_id: 'd', margin_amount: '9.5' },
      { end_user_id: 'a', margin_amount: '-5' },
      { end_user_id: 'e', margin_amount: '-12.5' },
      { end_user_id: 'f', margin_amount: '100000000000000000.000000000001' },
      { end_user_id: 'g', margin_amount: '100000000000000000' },
    ];
    const sorted = sortLeastProfitableFirst(rows);
    expect(sorted.map((r) => r.end_user_id)).toEqual(['e', 'a', 'b', 'd', 'c', 'g', 'f']);
    expect(sorted).toEqual([...rows].sort(leastProfitableFirst));
    expect(rows[0]!.end_user_id).toBe('c');
  });
});

describe('marginPercent rounding at the half boundary', () => {
  it.each([
    // revenue, cost → percent: (r − c)/r × 100 exactly, then half-up (away from zero) to 2 decimals
    ['3', '2.99985', 0.01], // 0.005 exactly → 0.01
    ['3', '2.9998500003', 0], // 0.00499999… → 0
    ['7', '5.6', 20], // 20 exactly
    ['7', '5.59965', 20.01], // 20.005 exactly
    ['7', '5.5996500007', 20], // 20.004999990 → 20
    ['3', '3.00015', -0.01], // −0.005 exactly → −0.01
    ['1', '0.666666666667', 33.33], // 33.3333333333
  ])('revenue %s, cost %s → %s', (rev, cost, pct) => {
    expect(marginPercent(new Big(rev), new Big(cost))).toBe(pct);
  });
});
