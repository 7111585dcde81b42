// Margin through the whole pipeline: costs ingested as signed events (cost_override, so each is
// known exactly), revenue imported through the admin API, margin read over HTTP. Expected
// figures are worked out here by whole days (amount × days in the window / days in the period),
// independently of the millisecond rule in the code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endUserIdFor } from '../../core/ids.js';
import { Big } from '../../core/money.js';
import { admin, http, startTestHost } from '../support/http.js';
import {
  apiGet,
  createTenant,
  ingest,
  issueKey,
  startPipeline,
  waitForLake,
  type EventBody,
  type Pipeline,
  type Tenant,
} from '../support/pipeline.js';

const DAY = 86_400_000;
const days = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / DAY;
/** amount × (days of [from, to) inside [wFrom, wTo)) / (days of [from, to)), exact. */
function recognized(amount: string, from: string, to: string, wFrom: string, wTo: string): Big {
  const start = Math.max(Date.parse(from), Date.parse(wFrom));
  const end = Math.min(Date.parse(to), Date.parse(wTo));
  if (end <= start) return new Big(0);
  return new Big(amount).times((end - start) / DAY).div(days(from, to));
}
const money = (b: Big) => {
  const s = b
    .round(12, Big.roundHalfUp)
    .toFixed(12)
    .replace(/\.?0+$/, '');
  return s === '' || s === '-0' ? '0' : s;
};
const pct = (rev: Big, cost: Big) => Number(rev.minus(cost).times(100).div(rev).round(2, Big.roundHalfUp).toFixed(2));

let seq = 0;
function costEvent(user: string | null, at: string, cost: string, extra: Record<string, unknown> = {}): EventBody {
  return {
    idempotency_key: `m-${seq++}`,
    model: 'gpt-4o',
    input_tokens: 1,
    output_tokens: 1,
    cost_override: cost,
    timestamp: at,
    ...(user ? { user_id: user } : {}),
    ...extra,
  };
}

const REVENUE = [
  { id: 'alice-jan', user_id: 'alice', customer_name: 'Alice Ltd', amount: '310', period_start: '2025-01-01', period_end: '2025-02-01' },
  { id: 'alice-refund', user_id: 'alice', amount: '-31', period_start: '2025-01-01', period_end: '2025-02-01' },
  { id: 'bob-2m', user_id: 'bob', amount: '600', period_start: '2024-12-15', period_end: '2025-02-15' },
  { id: 'carol', user_id: 'carol', customer_name: 'Carol LLC', amount: '100', period_start: '2025-01-20', period_end: '2025-02-20' },
  { id: 'u-1', user_id: null, amount: '62', period_start: '2025-01-16', period_end: '2025-02-16' },
  { id: 'u-2', user_id: null, amount: '40', period_start: '2024-12-20', period_end: '2025-01-19' },
  { id: 'u-3', user_id: null, amount: '50', period_start: '2024-12-01', period_end: '2025-01-01' },
];

const W = { start_date: '2025-01-01', end_date: '2025-02-01' };

let p: Pipeline;
let t: Tenant;
let bare: Tenant;
let id: (ext: string) => string;

beforeAll(async () => {
  p = await startPipeline();
  t = await createTenant(p, { name: 'margin' });
  bare = await createTenant(p, { name: 'no revenue source' });
  id = (ext) => endUserIdFor(t.organizationId, ext);
  const events = [
    costEvent('alice', '2025-01-05T10:00:00Z', '40'),
    costEvent('alice', '2025-01-20T10:00:00Z', '60'),
    costEvent('bob', '2025-01-10T00:00:00Z', '90'),
    costEvent('bob', '2025-01-31T23:59:59.999Z', '200'),
    costEvent('dave', '2025-01-15T12:00:00Z', '12.5'),
    costEvent(null, '2025-01-02T08:00:00Z', '7.5'),
    // Outside the window (end exclusive, start inclusive):
    costEvent('alice', '2025-02-01T00:00:00Z', '1000'),
    costEvent('alice', '2024-12-31T23:59:59.999Z', '1000'),
    // Not completed (no rate card for this model, no override): not cost.
    {
      idempotency_key: `m-${seq++}`,
      model: 'mystery-model-x',
      input_tokens: 5,
      output_tokens: 5,
      user_id: 'alice',
      timestamp: '2025-01-07T00:00:00Z',
    },
  ];
  await ingest(p, t, events);
  await ingest(p, bare, [costEvent('zed', '2025-01-03T00:00:00Z', '5')]);
  const imported = await admin(p.host, 'POST', `/organizations/${t.organizationId}/revenue-records`, { records: REVENUE });
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
  await waitForLake(p, t.organizationId, events.length);
  await waitForLake(p, bare.organizationId, 1);
});

afterAll(async () => {
  await p?.stop();
});

describe('GET /margin-data/by-end-user', () => {
  it('rows for revenue-only, cost-only and both, least profitable first, with figures by hand', async () => {
    const res = await apiGet(p, t.readKey, '/margin-data/by-end-user', W);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // alice 310 − 31 = 279 (wholly in January) vs cost 40 + 60 = 100.
    // bob 600 over 62 days, 31 in January → 300, vs 90 + 200 = 290.
    // carol 100 over 31 days, 12 in January → 1200/31; no cost. dave: cost 12.5 only.
    const carolRevenue = new Big(1200).div(31);
    expect(res.body.end_users).toEqual([
      {
        end_user_id: id('dave'),
        end_user_name: 'dave',
        revenue: '0',
        cost: '12.5',
        margin_amount: '-12.5',
        margin_percent: null,
        profitability_category: 'unprofitable',
      },
      {
        end_user_id: id('bob'),
        end_user_name: 'bob',
        revenue: '300',
        cost: '290',
        margin_amount: '10',
        margin_percent: pct(new Big(300), new Big(290)),
        profitability_category: 'break-even',
      },
      {
        end_user_id: id('carol'),
        end_user_name: 'Carol LLC',
        revenue: money(carolRevenue),
        cost: '0',
        margin_amount: money(carolRevenue),
        margin_percent: 100,
        profitability_category: 'profitable',
      },
      {
        end_user_id: id('alice'),
        end_user_name: 'Alice Ltd',
        revenue: '279',
        cost: '100',
        margin_amount: '179',
        margin_percent: 64.16,
        profitability_category: 'profitable',
      },
    ]);
    expect(res.body.end_users[1].margin_percent).toBe(3.33);
  });

  it('org_total holds all revenue and cost; warnings name what no row holds', async () => {
    const res = await apiGet(p, t.readKey, '/margin-data/by-end-user', W);
    const revenue = REVENUE.reduce(
      (s, r) => s.plus(recognized(r.amount, r.period_start, r.period_end, W.start_date, W.end_date)),
      new Big(0),
    );
    const shown = new Big(money(revenue));
    // 279 + 300 + 1200/31 + 62×16/31 + 40×18/30 = 673.709677419354838…
    expect(money(revenue)).toBe('673.709677419355');
    expect(res.body.org_total).toEqual({
      total_revenue: '673.709677419355',
      total_cost: '410', // 100 + 290 + 12.5 + 7.5
      margin_amount: money(shown.minus(410)),
      margin_percent: pct(shown, new Big(410)),
      profitability_category: 'profitable',
      revenue_record_count: 6, // all but u-3, which ends where the window starts
      cost_record_count: 6,
      unattributed_revenue: '62', // u-1 only starts inside the window
      unattributed_cost: '7.5',
    });
    expect(res.body.org_total.margin_percent).toBe(39.14);
    expect(res.body.warnings.map((w: any) => [w.type, w.count])).toEqual([
      ['unattributed_revenue', 2],
      ['unattributed_cost', 1],
    ]);
  });

  it('without a revenue source: "0" revenue, revenue_not_connected, and no other tenant\'s revenue', async () => {
    const res = await apiGet(p, bare.readKey, '/margin-data/by-end-user', W);
    expect(res.status).toBe(200);
    expect(res.body.end_users).toEqual([
      {
        end_user_id: endUserIdFor(bare.organizationId, 'zed'),
        end_user_name: 'zed',
        revenue: '0',
        cost: '5',
        margin_amount: '-5',
        margin_percent: null,
        profitability_category: 'unprofitable',
      },
    ]);
    expect(res.body.org_total).toMatchObject({
      total_revenue: '0',
      total_cost: '5',
      margin_percent: null,
      revenue_record_count: 0,
      unattributed_revenue: '0',
    });
    expect(res.body.warnings).toEqual([{ type: 'revenue_not_connected', count: 0, message: expect.any(String) }]);
  });

  it('a range with no activity is break-even with no rows', async () => {
    const res = await apiGet(p, t.readKey, '/margin-data/by-end-user', { start_date: '2023-01-01', end_date: '2023-02-01' });
    expect(res.body.end_users).toEqual([]);
    expect(res.body.org_total).toMatchObject({
      total_revenue: '0',
      total_cost: '0',
      margin_amount: '0',
      margin_percent: null,
      profitability_category: 'break-even',
    });
    expect(res.body.warnings).toEqual([]);
  });

  it('422 beyond 12 months, 400 on bad dates, 403 without revenue:read', async () => {
    const tooLong = await apiGet(p, t.readKey, '/margin-data/by-end-user', {
      start_date: '2024-01-01',
      end_date: '2025-01-01T00:00:00.001Z',
    });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error.code).toBe('DATE_RANGE_TOO_LARGE');
    expect((await apiGet(p, t.readKey, '/margin-data/by-end-user', { start_date: '2024-01-01', end_date: '2025-01-01' })).status).toBe(200);
    const bad = await apiGet(p, t.readKey, '/margin-data/by-end-user', { start_date: 'soon', end_date: '2025-01-01' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('start_date');
    const costsOnly = await issueKey(p, t, ['costs:read']);
    expect((await apiGet(p, costsOnly, '/margin-data/by-end-user', W)).status).toBe(403);
    expect((await apiGet(p, costsOnly, '/margin-data/trend', W)).status).toBe(403);
    expect((await apiGet(p, costsOnly, '/margin-data/summary', W)).status).toBe(403);
  });
});

describe('GET /margin-data/summary', () => {
  it('is the org_total of by-end-user', async () => {
    const [summary, full] = await Promise.all([
      apiGet(p, t.readKey, '/margin-data/summary', W),
      apiGet(p, t.readKey, '/margin-data/by-end-user', W),
    ]);
    expect(summary.status).toBe(200);
    expect(summary.body).toEqual(full.body.org_total);
  });
});

describe('GET /margin-data/trend', () => {
  // January (31 days) is weekly: Monday buckets Dec 30, Jan 6, 13, 20, 27, clipped to the window.
  const slices: Array<[string, string, string]> = [
    ['2024-12-30T00:00:00.000Z', '2025-01-01', '2025-01-06'],
    ['2025-01-06T00:00:00.000Z', '2025-01-06', '2025-01-13'],
    ['2025-01-13T00:00:00.000Z', '2025-01-13', '2025-01-20'],
    ['2025-01-20T00:00:00.000Z', '2025-01-20', '2025-01-27'],
    ['2025-01-27T00:00:00.000Z', '2025-01-27', '2025-02-01'],
  ];
  const costByBucket: Record<string, string> = {
    '2024-12-30T00:00:00.000Z': '47.5', // 7.5 (Jan 2) + 40 (Jan 5)
    '2025-01-06T00:00:00.000Z': '90',
    '2025-01-13T00:00:00.000Z': '12.5',
    '2025-01-20T00:00:00.000Z': '60',
    '2025-01-27T00:00:00.000Z': '200',
  };

  function expectedPoint(date: string, revenue: Big, cost: string) {
    const rev = new Big(money(revenue));
    return {
      date,
      revenue: money(rev),
      cost,
      margin_amount: money(rev.minus(cost)),
      margin_percent: rev.eq(0) ? null : pct(rev, new Big(cost)),
    };
  }

  it('recognizes revenue per bucket over bucket ∩ window; costs fall in the bucket of their event', async () => {
    const res = await apiGet(p, t.readKey, '/margin-data/trend', W);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.granularity).toBe('weekly');
    const expected = slices.map(([date, from, to]) =>
      expectedPoint(
        date,
        REVENUE.reduce((s, r) => s.plus(recognized(r.amount, r.period_start, r.period_end, from, to)), new Big(0)),
        costByBucket[date]!,
      ),
    );
    expect(res.body.data_points).toEqual(expected);
    // The first bucket by hand: alice 279×5/31 = 45, bob 600×5/62, u-2 40×5/30.
    expect(expected[0]!.revenue).toBe(money(new Big(45).plus(new Big(3000).div(62)).plus(new Big(200).div(30))));
  });

  it('for one end user (internal id) only its revenue and cost', async () => {
    const res = await apiGet(p, t.readKey, '/margin-data/trend', { ...W, end_user_id: id('alice') });
    // alice: 279 over 31 days = 9 a day → 45, 63, 63, 63, 45; costs 40 (Jan 5) and 60 (Jan 20).
    expect(res.body.data_points).toEqual([
      { date: '2024-12-30T00:00:00.000Z', revenue: '45', cost: '40', margin_amount: '5', margin_percent: 11.11 },
      { date: '2025-01-06T00:00:00.000Z', revenue: '63', cost: '0', margin_amount: '63', margin_percent: 100 },
      { date: '2025-01-13T00:00:00.000Z', revenue: '63', cost: '0', margin_amount: '63', margin_percent: 100 },
      { date: '2025-01-20T00:00:00.000Z', revenue: '63', cost: '60', margin_amount: '3', margin_percent: 4.76 },
      { date: '2025-01-27T00:00:00.000Z', revenue: '45', cost: '0', margin_amount: '45', margin_percent: 100 },
    ]);
    const dave = await apiGet(p, t.readKey, '/margin-data/trend', { ...W, end_user_id: id('dave') });
    expect(dave.body.data_points).toEqual([
      { date: '2025-01-13T00:00:00.000Z', revenue: '0', cost: '12.5', margin_amount: '-12.5', margin_percent: null },
    ]);
    const nobody = await apiGet(p, t.readKey, '/margin-data/trend', { ...W, end_user_id: '00000000-0000-5000-8000-000000000000' });
    expect(nobody.body.data_points).toEqual([]);
    const bad = await apiGet(p, t.readKey, '/margin-data/trend', { ...W, end_user_id: 'alice' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('end_user_id');
  });

  it('12 months is monthly; months without revenue or cost are omitted; 422 beyond', async () => {
    const year = { start_date: '2024-06-01', end_date: '2025-06-01' };
    const res = await apiGet(p, t.readKey, '/margin-data/trend', year);
    expect(res.status).toBe(200);
    expect(res.body.granularity).toBe('monthly');
    const month = (date: string, from: string, to: string, cost: string) =>
      expectedPoint(
        date,
        REVENUE.reduce((s, r) => s.plus(recognized(r.amount, r.period_start, r.period_end, from, to)), new Big(0)),
        cost,
      );
    expect(res.body.data_points).toEqual([
      month('2024-12-01T00:00:00.000Z', '2024-12-01', '2025-01-01', '1000'),
      month('2025-01-01T00:00:00.000Z', '2025-01-01', '2025-02-01', '410'),
      month('2025-02-01T00:00:00.000Z', '2025-02-01', '2025-03-01', '1000'),
    ]);
    // December by hand: bob 600×17/62, u-2 40×12/30 = 16, u-3 50.
    expect(res.body.data_points[0].revenue).toBe(money(new Big(600).times(17).div(62).plus(66)));
    const tooLong = await apiGet(p, t.readKey, '/margin-data/trend', { start_date: '2024-06-01', end_date: '2025-06-02' });
    expect(tooLong.status).toBe(422);
  });
});

describe('rate limit', () => {
  it('429 with Retry-After and RateLimit-* once the read tier is spent, on margin and attribution alike', async () => {
    const h = await startTestHost({ env: { RATE_LIMIT_READ_PER_15_MINUTES: '2' } });
    try {
      const org = (await admin(h, 'POST', '/organizations', { name: 'limited' })).body.organization_id;
      const key = (await admin(h, 'POST', `/organizations/${org}/api-keys`, { scopes: ['costs:read', 'revenue:read'] })).body.api_key;
      const get = (path: string) => http(h.url, 'GET', `/v1${path}?start_date=2025-01-01&end_date=2025-02-01`, { token: key });
      expect((await get('/margin-data/summary')).status).toBe(200);
      expect((await get('/attribution-data/agents')).status).toBe(200);
      const limited = await get('/margin-data/by-end-user');
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.headers.get('ratelimit-limit')).toBe('2');
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
      expect((await get('/attribution-data/by-agent')).status).toBe(429);
    } finally {
      await h.stop();
    }
  });
});
