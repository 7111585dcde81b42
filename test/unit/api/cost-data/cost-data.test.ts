import { describe, expect, it } from 'vitest';
import { costChange, endUserBreakdown, statusCounts } from '../../../../api/cost-data/cost-data.js';
import type { KeyedCostGroupRow } from '../../../../api/costs/costs.queries.js';

describe('costChange', () => {
  it('is current minus previous, and the change in percent of previous', () => {
    expect(costChange('12.5', '10')).toEqual({ change_amount: '2.5', change_percent: 25 });
    expect(costChange('1', '3')).toEqual({ change_amount: '-2', change_percent: -66.67 });
  });
  it('has a null percentage when previous is 0', () => {
    expect(costChange('4', '0')).toEqual({ change_amount: '4', change_percent: null });
  });
});

describe('statusCounts', () => {
  it('counts ledger events not yet stored as pending', () => {
    expect(statusCounts({ completed: 5, pending_rate_card: 2, failed: 1 }, 11)).toEqual({
      completed: 5,
      pending: 3,
      pending_rate_card: 2,
      failed: 1,
    });
  });
  it('never goes below zero (lake rows without a ledger row)', () => {
    expect(statusCounts({ completed: 5, pending_rate_card: 0, failed: 1 }, 5).pending).toBe(0);
  });
});

describe('endUserBreakdown', () => {
  const g = (group_value: string | null, external_id: string | null, total_cost: string): KeyedCostGroupRow => ({
    group_value,
    external_id,
    event_count: 1,
    input_tokens: 10,
    output_tokens: 1,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    reasoning_tokens: null,
    input_cost: total_cost,
    output_cost: '0',
    cache_creation_cost: null,
    cache_read_cost: null,
    reasoning_cost: null,
    total_cost,
  });

  it('names end users from the control plane, else by external id, and buckets the rest as unassigned', () => {
    const known = new Map([['id-a', { id: 'id-a', organizationId: 'o', externalId: 'alice', name: 'Alice Inc', createdAt: new Date() }]]);
    const out = endUserBreakdown([g('id-a', 'alice', '1'), g('id-b', 'bob', '2'), g(null, null, '1')], known);
    expect(out.total_cost).toBe('4');
    expect(out.end_users.map((u) => [u.end_user_id, u.end_user_name, u.total_cost, u.percent_of_total])).toEqual([
      ['id-b', 'bob', '2', 50],
      // Equal costs: by grouping value in code-unit order ("Unassigned" < "id-a").
      ['unassigned', 'Unassigned', '1', 25],
      ['id-a', 'Alice Inc', '1', 25],
    ]);
  });
});
