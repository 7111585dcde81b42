import { describe, expect, it } from 'vitest';
import { addRows, breakdownItems, costMeasures } from '../../../../api/costs/cost-breakdown.js';
import type { CostGroupRow } from '../../../../api/costs/costs.queries.js';

const row = (fields: Partial<CostGroupRow>): CostGroupRow => ({
  event_count: 1,
  input_tokens: null,
  output_tokens: null,
  cache_creation_input_tokens: null,
  cache_read_input_tokens: null,
  reasoning_tokens: null,
  input_cost: null,
  output_cost: null,
  cache_creation_cost: null,
  cache_read_cost: null,
  reasoning_cost: null,
  total_cost: '0',
  ...fields,
});

describe('costMeasures', () => {
  it('keeps unreported optional classes null and reports input/output as 0', () => {
    expect(costMeasures(row({ total_cost: '0.040000000000', event_count: 2 }))).toEqual({
      total_cost: '0.04',
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      reasoning_tokens: null,
      input_cost: '0',
      output_cost: '0',
      cache_creation_cost: null,
      cache_read_cost: null,
      reasoning_cost: null,
      event_count: 2,
    });
  });

  it('reports a class with zero tokens as 0, not null, with its cost', () => {
    const m = costMeasures(
      row({ cache_read_input_tokens: 0, cache_read_cost: '0.000000000000', reasoning_tokens: 10, reasoning_cost: '0.000150000000' }),
    );
    expect(m.cache_read_input_tokens).toBe(0);
    expect(m.cache_read_cost).toBe('0');
    expect(m.reasoning_cost).toBe('0.00015');
  });
});

describe('breakdownItems', () => {
  it('orders costliest first, names NULL Unassigned, and gives each share rounded to 2 decimals', () => {
    const { items, total } = breakdownItems([
      { group_value: 'b', ...row({ total_cost: '1.000000000000' }) },
      { group_value: null, ...row({ total_cost: '1.000000000000' }) },
      { group_value: 'a', ...row({ total_cost: '1.000000000000' }) },
      { group_value: 'c', ...row({ total_cost: '3.000000000000' }) },
    ]);
    expect(total.toFixed()).toBe('6');
    expect(items.map((i) => [i.attribution_value, i.total_cost, i.percent_of_total])).toEqual([
      ['c', '3', 50],
      ['Unassigned', '1', 16.67],
      ['a', '1', 16.67],
      ['b', '1', 16.67],
    ]);
  });

  it('merges NULL with a literal Unassigned value', () => {
    const { items } = breakdownItems([
      { group_value: null, ...row({ total_cost: '1', event_count: 1, cache_read_input_tokens: 5, cache_read_cost: '0.1' }) },
      { group_value: 'Unassigned', ...row({ total_cost: '2', event_count: 2 }) },
    ]);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      attribution_value: 'Unassigned',
      total_cost: '3',
      event_count: 3,
      cache_read_input_tokens: 5,
      cache_read_cost: '0.1',
      percent_of_total: 100,
    });
  });

  it('gives 0 percent when everything is free', () => {
    const { items } = breakdownItems([{ group_value: 'x', ...row({ total_cost: '0' }) }]);
    expect(items[0]!.percent_of_total).toBe(0);
  });
});

describe('addRows', () => {
  it('keeps null only when both sides are null', () => {
    const sum = addRows(row({ reasoning_tokens: null, input_tokens: 3 }), row({ reasoning_tokens: 4, input_tokens: null }));
    expect(sum.reasoning_tokens).toBe(4);
    expect(sum.input_tokens).toBe(3);
    expect(sum.cache_read_input_tokens).toBeNull();
  });
});
