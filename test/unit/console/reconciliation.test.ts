// The Reconciliation page's totals: the API's variance rule over the compared days, worked by hand.
import { describe, expect, it } from 'vitest';
import { reconciliationTotals, sideText } from '../../../console/src/pages/reconciliation/reconciliation.js';

const day = (date: string, provider_cost: string, our_cost: string, out_of_tolerance: boolean) => ({
  date,
  providers: ['openai'],
  provider_cost,
  our_cost,
  variance: '0',
  variance_percent: 0,
  out_of_tolerance,
});

describe('reconciliationTotals', () => {
  it('sums the compared days and applies the tolerance to the sums', () => {
    const totals = reconciliationTotals({
      start_date: '2026-01-01',
      end_date: '2026-01-04',
      tolerance_percent: '1',
      rows: [],
      // Provider 10 + 2.5 = 12.5; ours 10.05 + 2.4 = 12.45; −0.05 = −0.4% of 12.5, within 1%.
      days: [day('2026-01-01', '10', '10.05', false), day('2026-01-02', '2.5', '2.4', true)],
      unreported: [{ date: '2026-01-03', provider: 'openai', our_cost: '3' }],
    });
    expect(totals).toEqual({
      provider_cost: '12.5',
      our_cost: '12.45',
      variance: '-0.05',
      variance_percent: -0.4,
      out_of_tolerance: false,
      daysOut: 1,
      days: 2,
    });
  });

  it('names what only one side has', () => {
    expect(sideText('provider_only')).toBe('only in the provider’s report');
    expect(sideText('ours_only')).toBe('only in our events');
    expect(sideText('both')).toBeNull();
  });
});
