import { describe, expect, it } from 'vitest';
import { marginByEndUser, marginTrend, type MarginRevenueRecord } from '../../../revenue/margin.js';

const d = (s: string) => new Date(s);
const A = '00000000-0000-5000-8000-00000000000a';
const B = '00000000-0000-5000-8000-00000000000b';
const C = '00000000-0000-5000-8000-00000000000c';
const D = '00000000-0000-5000-8000-00000000000d';

function rec(
  endUserId: string | null,
  externalUserId: string | null,
  amount: string,
  start: string,
  end: string,
  customerName: string | null = null,
): MarginRevenueRecord {
  return { endUserId, externalUserId, customerName, amount, periodStart: d(start), periodEnd: d(end) };
}

describe('marginByEndUser', () => {
  // Window: January 2026 (31 days).
  const window = { start: d('2026-01-01'), end: d('2026-02-01') };
  const records = [
    rec(A, 'alice', '310', '2026-01-01', '2026-02-01'), // 310, wholly inside
    rec(A, 'alice', '-31', '2026-01-01', '2026-02-01'), // refund −31 → alice 279
    rec(B, 'bob', '600', '2025-12-15', '2026-02-15'), // 62 days, 31 in January → 300
    rec(C, 'carol', '100', '2026-01-20', '2026-02-20', 'Carol LLC'), // 31 days, 12 inside → 1200/31
    rec(null, null, '62', '2026-01-16', '2026-02-16'), // unattributed, 16 of 31 days → 32; starts inside
    rec(null, null, '50', '2025-12-01', '2026-01-01'), // unattributed, outside the window
    rec(null, null, '40', '2025-12-20', '2026-01-19'), // unattributed, 18 of 30 days → 24; starts before
  ];
  const costs = {
    byEndUser: [
      { endUserId: A, externalId: 'alice', cost: '100', eventCount: 10 },
      { endUserId: B, externalId: 'bob', cost: '290', eventCount: 5 },
      { endUserId: D, externalId: 'dave', cost: '12.5', eventCount: 3 },
    ],
    unattributed: { cost: '7.5', eventCount: 2 },
  };
  const endUsers = new Map([
    [A, { externalId: 'alice', name: 'Alice Corp' }],
    [B, { externalId: 'bob', name: null }],
    [D, { externalId: 'dave', name: null }],
  ]);

  it('rows per end user with revenue, cost or both, least profitable first', () => {
    const m = marginByEndUser({ window, records, costs, endUsers, connected: true });
    expect(m.end_users).toEqual([
      {
        end_user_id: D,
        end_user_name: 'dave',
        revenue: '0',
        cost: '12.5',
        margin_amount: '-12.5',
        margin_percent: null,
        profitability_category: 'unprofitable',
      },
      // 10 / 300 = 3.33 %
      {
        end_user_id: B,
        end_user_name: 'bob',
        revenue: '300',
        cost: '290',
        margin_amount: '10',
        margin_percent: 3.33,
        profitability_category: 'break-even',
      },
      // 1200/31 = 38.709677419354838… → 38.709677419355
      {
        end_user_id: C,
        end_user_name: 'Carol LLC',
        revenue: '38.709677419355',
        cost: '0',
        margin_amount: '38.709677419355',
        margin_percent: 100,
        profitability_category: 'profitable',
      },
      // 179 / 279 = 64.1577… %
      {
        end_user_id: A,
        end_user_name: 'Alice Corp',
        revenue: '279',
        cost: '100',
        margin_amount: '179',
        margin_percent: 64.16,
        profitability_category: 'profitable',
      },
    ]);
  });

  it('org_total holds all revenue and cost; unattributed revenue is the raw sum of records starting in the window', () => {
    const m = marginByEndUser({ window, records, costs, endUsers, connected: true });
    // revenue 279 + 300 + 1200/31 + 32 + 24 = 673.709677419354838… ; cost 100 + 290 + 12.5 + 7.5 = 410
    // margin 263.709677419355, 263.709677419355 / 673.709677419355 = 39.14 %
    expect(m.org_total).toEqual({
      total_revenue: '673.709677419355',
      total_cost: '410',
      margin_amount: '263.709677419355',
      margin_percent: 39.14,
      profitability_category: 'profitable',
      revenue_record_count: 6,
      cost_record_count: 20,
      unattributed_revenue: '62',
      unattributed_cost: '7.5',
    });
    expect(m.warnings.map((w) => [w.type, w.count])).toEqual([
      ['unattributed_revenue', 2],
      ['unattributed_cost', 2],
    ]);
    expect(m.warnings[0]!.message).toContain('56 USD'); // 32 + 24 recognized
  });

  it('without a connection: "0" revenue and the revenue_not_connected warning', () => {
    const m = marginByEndUser({ window, records: [], costs, endUsers, connected: false });
    expect(m.org_total).toMatchObject({
      total_revenue: '0',
      total_cost: '410',
      margin_amount: '-410',
      margin_percent: null,
      profitability_category: 'unprofitable',
      revenue_record_count: 0,
      unattributed_revenue: '0',
    });
    expect(m.warnings.map((w) => [w.type, w.count])).toEqual([
      ['unattributed_cost', 2],
      ['revenue_not_connected', 0],
    ]);
  });

  it('no activity at all is break-even with no rows and no warnings when connected', () => {
    const m = marginByEndUser({
      window,
      records: [],
      costs: { byEndUser: [], unattributed: { cost: '0', eventCount: 0 } },
      endUsers,
      connected: true,
    });
    expect(m).toEqual({
      end_users: [],
      org_total: {
        total_revenue: '0',
        total_cost: '0',
        margin_amount: '0',
        margin_percent: null,
        profitability_category: 'break-even',
        revenue_record_count: 0,
        cost_record_count: 0,
        unattributed_revenue: '0',
        unattributed_cost: '0',
      },
      warnings: [],
    });
  });
});

describe('marginTrend', () => {
  it('recognizes each bucket over bucket ∩ window, omits empty buckets', () => {
    // Weekly buckets start Mondays: Jan 5, 12, 19, 26 (2026). Window Wed Jan 7 → Wed Jan 28.
    // Slices: [7,12) 5 days, [12,19) 7 days, [19,26) 7 days, [26,28) 2 days.
    // 140 over [Jan 1, Jan 15) = 10/day: 50 in slice 1, 30 in slice 2 (12, 13, 14).
    // Refund −20 over [Jan 19, Jan 23) = −5/day: −20 in slice 3.
    const out = marginTrend({
      window: { start: d('2026-01-07'), end: d('2026-01-28') },
      granularity: 'weekly',
      records: [
        { amount: '140', periodStart: d('2026-01-01'), periodEnd: d('2026-01-15') },
        { amount: '-20', periodStart: d('2026-01-19'), periodEnd: d('2026-01-23') },
      ],
      costs: [
        { bucket: d('2026-01-05'), cost: '20', eventCount: 2 },
        { bucket: d('2026-01-19'), cost: '5', eventCount: 1 },
      ],
    });
    expect(out).toEqual({
      granularity: 'weekly',
      data_points: [
        { date: '2026-01-05T00:00:00.000Z', revenue: '50', cost: '20', margin_amount: '30', margin_percent: 60 },
        { date: '2026-01-12T00:00:00.000Z', revenue: '30', cost: '0', margin_amount: '30', margin_percent: 100 },
        // (−20 − 5) / |−20| × 100 = −125: over |revenue| the percent says the loss (issue 16)
        { date: '2026-01-19T00:00:00.000Z', revenue: '-20', cost: '5', margin_amount: '-25', margin_percent: -125 },
      ],
    });
  });

  it('a bucket with events but zero revenue has a null percent', () => {
    const out = marginTrend({
      window: { start: d('2026-01-01'), end: d('2026-01-03') },
      granularity: 'daily',
      records: [],
      costs: [{ bucket: d('2026-01-02'), cost: '0.5', eventCount: 4 }],
    });
    expect(out.data_points).toEqual([
      { date: '2026-01-02T00:00:00.000Z', revenue: '0', cost: '0.5', margin_amount: '-0.5', margin_percent: null },
    ]);
  });
});
