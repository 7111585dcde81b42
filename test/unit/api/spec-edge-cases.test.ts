// Spec edge cases of issue 16 that are pure rules, each quoting the spec.
import { describe, expect, it } from 'vitest';
import { capDistinctValues } from '../../../api/attribution/attribution.js';
import { marginFigures } from '../../../revenue/profitability.js';
import { Big } from '../../../core/money.js';

describe('margin_percent and profitability_category never disagree', () => {
  // Spec: profitable above 20, break-even 0 to 20, unprofitable below 0. With net-negative revenue
  // (refunds exceeding sales) (revenue - cost) / revenue flips sign; the percent is taken over
  // |revenue| so it says the same as the category.
  it.each([
    ['-10', '0', '-10', -100],
    ['-10', '5', '-15', -150],
    ['-0.5', '0.25', '-0.75', -150],
  ])('revenue %s, cost %s: margin %s, %s %, unprofitable', (revenue, cost, margin, pct) => {
    const f = marginFigures(revenue, cost);
    expect(f).toMatchObject({ margin_amount: margin, margin_percent: pct, profitability_category: 'unprofitable' });
  });

  it('for every sign of revenue and cost, the category is what the percent says', () => {
    const values = ['-100', '-1', '0', '0.5', '1', '80', '100', '120'];
    for (const revenue of values) {
      for (const cost of values.filter((c) => !c.startsWith('-'))) {
        const f = marginFigures(revenue, cost);
        if (f.margin_percent === null) continue;
        const expected = f.margin_percent > 20 ? 'profitable' : f.margin_percent >= 0 ? 'break-even' : 'unprofitable';
        expect(f.profitability_category, `revenue ${revenue} cost ${cost} -> ${f.margin_percent}`).toBe(expected);
        expect(Math.sign(f.margin_percent)).toBe(new Big(f.margin_amount).eq(0) ? 0 : new Big(f.margin_amount).gt(0) ? 1 : -1);
      }
    }
  });
});

describe('distinct-value lists: "truncated (boolean, required, true when the value cap was reached)"', () => {
  it('exactly the cap of values is truncated; one fewer is not', () => {
    expect(capDistinctValues(['a', 'b', 'c'], 3)).toEqual({ values: ['a', 'b', 'c'], truncated: true });
    expect(capDistinctValues(['a', 'b'], 3)).toEqual({ values: ['a', 'b'], truncated: false });
    expect(capDistinctValues(['a', 'b', 'c', 'd'], 3)).toEqual({ values: ['a', 'b', 'c'], truncated: true });
  });
});
