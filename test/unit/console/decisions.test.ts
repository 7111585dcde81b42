// The console's rules for the decision views: forecasts shown to the cent, anomalies placed on the
// chart's buckets, price advice named like the margin rows.
import { describe, expect, it } from 'vitest';
import { cents, money } from '../../../console/src/format/money.js';
import { anomalyMarkers } from '../../../console/src/pages/overview/overview.js';
import { priceAdviceRows } from '../../../console/src/pages/customers/customers.js';

describe('cents', () => {
  it('rounds half-up to the cent, from the decimal string', () => {
    expect(cents('87.49689119171')).toBe('$87.50');
    expect(cents('0.005')).toBe('$0.01');
    expect(cents('1234.994999999999')).toBe('$1,234.99');
    expect(cents('-2.345')).toBe('-$2.35');
    expect(cents(null)).toBe('—');
  });
});

describe('anomalyMarkers', () => {
  const spike = (date: string, value: string) => ({ date, dimension: 'end_user', value, cost: '8', baseline: '2' });
  it('one marker per bucket, naming every anomaly in it', () => {
    const days = ['2026-11-24T00:00:00.000Z', '2026-11-25T00:00:00.000Z', '2026-11-26T00:00:00.000Z'];
    expect(anomalyMarkers([spike('2026-11-26', 'alice'), spike('2026-11-26', 'bob')], days, money)).toEqual([
      { date: '2026-11-26T00:00:00.000Z', label: 'alice (end user): $8.00 vs $2.00 usual; bob (end user): $8.00 vs $2.00 usual' },
    ]);
  });

  it('weekly buckets: the week starting on or before the date; dates before the first bucket are left out', () => {
    const weeks = ['2026-11-16T00:00:00.000Z', '2026-11-23T00:00:00.000Z'];
    expect(anomalyMarkers([spike('2026-11-26', 'alice'), spike('2026-11-10', 'old')], weeks, money)).toEqual([
      { date: '2026-11-23T00:00:00.000Z', label: 'alice (end user): $8.00 vs $2.00 usual' },
    ]);
  });
});

describe('priceAdviceRows', () => {
  it("keeps the API's order and names customers as the margin rows do, else by external id", () => {
    const advice = (id: string, external: string | null) =>
      ({ end_user_id: id, external_id: external }) as Parameters<typeof priceAdviceRows>[0][number];
    const margin = [{ end_user_id: 'b', end_user_name: 'Bob & Co' }] as Parameters<typeof priceAdviceRows>[1];
    expect(priceAdviceRows([advice('b', 'bob'), advice('a', 'alice'), advice('c', null)], margin).map((r) => r.end_user_name)).toEqual([
      'Bob & Co',
      'alice',
      'c',
    ]);
  });
});
