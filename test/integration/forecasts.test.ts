// Forecasts and price advice through the whole pipeline: signed events of two end users priced by
// the processor at a hand-set card, revenue records through the admin API, the api's clock fixed at
// Saturday 2025-03-15 12:00 UTC, then GET /v1/forecasts and /v1/forecasts/price-advice. Every
// figure is worked out by hand below from the forecast method's rule (api/forecasts/forecast-method.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endUserIdFor } from '../../core/ids.js';
import { DAY_MS, utcDate } from '../../core/time.js';
import { admin } from '../support/http.js';
import {
  apiGet,
  createTenant,
  ingest,
  issueKey,
  llmEvent,
  startPipeline,
  waitForLake,
  type EventBody,
  type Pipeline,
  type Tenant,
} from '../support/pipeline.js';

// $10 per million input tokens: 100 000 input tokens cost $1.
const CARD = {
  model_slug: 'fc-model',
  input_cost_per_million: '10',
  output_cost_per_million: '20',
  effective_from: '2024-01-01T00:00:00Z',
};
const NOW = new Date('2025-03-15T12:00:00Z'); // a Saturday
const TODAY = Date.parse('2025-03-15T00:00:00Z');

// History: the 56 complete days before today (Saturday 2025-01-18 to Friday 2025-03-14).
//  - alice: $1 at noon every day, and $1 today at 06:00;
//  - bob: $2 at noon on weekdays, nothing at weekends (nor today).
const events: EventBody[] = [];
for (let n = 56; n >= 0; n--) {
  const day = TODAY - n * DAY_MS;
  const weekday = new Date(day).getUTCDay();
  const hour = n === 0 ? 6 : 12;
  events.push(
    llmEvent(`alice-${n}`, {
      user_id: 'alice',
      model: 'fc-model',
      input_tokens: 100_000,
      output_tokens: 0,
      timestamp: new Date(day + hour * 3_600_000).toISOString(),
    }),
  );
  if (n > 0 && weekday !== 0 && weekday !== 6) {
    events.push(
      llmEvent(`bob-${n}`, {
        user_id: 'bob',
        model: 'fc-model',
        input_tokens: 200_000,
        output_tokens: 0,
        timestamp: new Date(day + 12 * 3_600_000).toISOString(),
      }),
    );
  }
}

// Revenue: alice 62 for March; bob 30 for [Mar 10, Apr 10) (31 days); 10 for March naming no end user.
const RECORDS = [
  { id: 'alice-mar', user_id: 'alice', amount: '62', period_start: '2025-03-01', period_end: '2025-04-01' },
  { id: 'bob-mar', user_id: 'bob', amount: '30', period_start: '2025-03-10', period_end: '2025-04-10' },
  { id: 'anon-mar', amount: '10', period_start: '2025-03-01', period_end: '2025-04-01' },
];

let p: Pipeline;
let t: Tenant;
let alice: string;
let bob: string;
const exact = (v: string) => ({ value: v, low: v, high: v });

beforeAll(async () => {
  p = await startPipeline({ now: () => NOW });
  t = await createTenant(p, { name: 'forecasts', rateCards: [CARD] });
  [alice, bob] = [endUserIdFor(t.organizationId, 'alice'), endUserIdFor(t.organizationId, 'bob')];
  await ingest(p, t, events);
  const imported = await admin(p.host, 'POST', `/organizations/${t.organizationId}/revenue-records`, { records: RECORDS });
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
  await waitForLake(p, t.organizationId, events.length, 90_000);
}, 180_000);

afterAll(async () => {
  await p?.stop();
});

describe('GET /v1/forecasts', () => {
  // The fit: alice's days are all 1 (every weekday factor 1, slope 0): 1 a day. Bob's centred
  // 7-day means are all 10/7 (5 weekdays of 2), weekday factors 2/(10/7) = 1.4 and 0 (they
  // average 1), cost ÷ factor = 10/7: 2 on weekdays, 0 at weekends. The organization's days are
  // 3 on weekdays and 1 at weekends (means 17/7, factors 21/17 and 7/17): 3 and 1. Every backtest
  // cut forecasts its days exactly, so every interval is the value itself.
  it('month-end: March so far exactly, the rest by weekday and trend; revenue from the known periods', async () => {
    const res = await apiGet(p, t.readKey, '/forecasts', { horizon: 'month-end' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Observed Mar 1–14 and today so far: alice 14 + 1 = 15, bob 10 weekdays × 2 = 20; org 35.
    // To come: today's second half (Saturday) and Mar 16–31 (11 weekdays, 5 weekend days).
    //  alice: 0.5 × 1 + 16 × 1 = 16.5 → 31.5;  bob: 0.5 × 0 + 11 × 2 = 22 → 42;
    //  org: 0.5 × 1 + 11 × 3 + 5 × 1 = 38.5 → 73.5.
    // Revenue in March: alice 62; bob 30 × 22/31 (Mar 10–31 of his 31 days) = 21.290322580645…;
    // org 62 + 10 + 21.290322580645… = 93.290322580645…
    expect(res.body).toEqual({
      horizon: 'month-end',
      as_of: NOW.toISOString(),
      start_date: '2025-03-01',
      end_date: '2025-04-01',
      method: 'weekday-factors-theil-sen-v1',
      observed_cost: '35',
      cost: exact('73.5'),
      revenue: exact('93.290322580645'),
      // 93.2903225806451612… − 73.5
      margin: exact('19.790322580645'),
      end_users: [
        { end_user_id: alice, external_id: 'alice', cost: exact('31.5'), revenue: exact('62'), margin: exact('30.5') },
        // 21.2903225806451612… − 42
        { end_user_id: bob, external_id: 'bob', cost: exact('42'), revenue: exact('21.290322580645'), margin: exact('-20.709677419355') },
      ].sort((a, b) => (a.end_user_id < b.end_user_id ? -1 : 1)),
    });
  });

  it('next-30-days: today and the 29 days after it (Mar 15 to Apr 13)', async () => {
    const res = await apiGet(p, t.readKey, '/forecasts', { horizon: 'next-30-days' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Observed: today's $1 of alice. To come: today's half (0.5 for alice, 0 for bob) and Mar 16 –
    // Apr 13: 20 weekdays, 9 weekend days. alice 1 + 0.5 + 29 = 30.5; bob 20 × 2 = 40;
    // org 1 + 0.5 + 20 × 3 + 9 = 70.5.
    // Revenue in [Mar 15, Apr 14): alice 62 × 17/31 = 34; bob 30 × 26/31 (Mar 15 – Apr 9) =
    // 25.161290322580645…; unattributed 10 × 17/31 = 5.483870967741935…; org 64.645161290322580…
    expect(res.body).toMatchObject({
      horizon: 'next-30-days',
      start_date: '2025-03-15',
      end_date: '2025-04-14',
      observed_cost: '1',
      cost: exact('70.5'),
      revenue: exact('64.645161290323'),
      // 64.6451612903225806… − 70.5
      margin: exact('-5.854838709677'),
    });
    const byId = new Map(res.body.end_users.map((e: { end_user_id: string }) => [e.end_user_id, e]));
    expect(byId.get(alice)).toMatchObject({ cost: exact('30.5'), revenue: exact('34'), margin: exact('3.5') });
    // 25.1612903225806451… − 40
    expect(byId.get(bob)).toMatchObject({ cost: exact('40'), revenue: exact('25.161290322581'), margin: exact('-14.838709677419') });
  });

  it('without revenue:read, revenue and margins are null; without costs:read 403; a bad horizon 400 naming it', async () => {
    const costsOnly = await issueKey(p, t, ['costs:read']);
    const res = await apiGet(p, costsOnly, '/forecasts', {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ horizon: 'month-end', cost: exact('73.5'), revenue: null, margin: null });
    expect(res.body.end_users.map((e: { revenue: unknown; margin: unknown }) => [e.revenue, e.margin])).toEqual([
      [null, null],
      [null, null],
    ]);
    expect((await apiGet(p, await issueKey(p, t, ['revenue:read']), '/forecasts', {})).status).toBe(403);
    for (const horizon of ['year-end', '', 'MONTH-END']) {
      const bad = await apiGet(p, t.readKey, '/forecasts', { horizon });
      expect(bad.status, horizon).toBe(400);
      expect(bad.body.error.details.field).toBe('horizon');
    }
  });
});

describe('GET /v1/forecasts/price-advice', () => {
  it('per customer, the price per billing period that reaches the target margin under the forecast cost', async () => {
    const res = await apiGet(p, t.readKey, '/forecasts/price-advice', { target_margin_percent: '40' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // bob's period [Mar 10, Apr 10): observed Mar 10–14 = 5 × 2 = 10; to come Mar 17 – Apr 9 has
    // 18 weekdays: 36; cost 46. Price 30: 46 / 0.6 = 76.666… → 76.67 up to the cent; (30 − 46)/30 = −53.33%.
    // alice's March: cost 31.5 (as month-end), price 62: 31.5 / 0.6 = 52.5; (62 − 31.5)/62 = 49.19%.
    expect(res.body).toEqual({
      as_of: NOW.toISOString(),
      target_margin_percent: 40,
      method: 'weekday-factors-theil-sen-v1',
      customers: [
        {
          end_user_id: bob,
          external_id: 'bob',
          period_start: '2025-03-10',
          period_end: '2025-04-10',
          current_price: '30',
          forecast_cost: exact('46'),
          forecast_margin_percent: -53.33,
          required_price: '76.67',
          reaches_target: false,
        },
        {
          end_user_id: alice,
          external_id: 'alice',
          period_start: '2025-03-01',
          period_end: '2025-04-01',
          current_price: '62',
          forecast_cost: exact('31.5'),
          forecast_margin_percent: 49.19,
          required_price: '52.50',
          reaches_target: true,
        },
      ],
    });
  });

  it('at 50%: alice needs 31.5 / 0.5 = 63.00 and her 62 misses it; the default target is 40', async () => {
    const res = await apiGet(p, t.readKey, '/forecasts/price-advice', { target_margin_percent: '50' });
    expect(
      res.body.customers.map((c: { external_id: string; required_price: string; reaches_target: boolean }) => [
        c.external_id,
        c.required_price,
        c.reaches_target,
      ]),
    ).toEqual(
      // Both miss it: ordered by end_user_id.
      [
        [alice, 'alice', '63.00', false],
        [bob, 'bob', '92.00', false],
      ]
        .sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1))
        .map(([, ...rest]) => rest),
    );
    expect((await apiGet(p, t.readKey, '/forecasts/price-advice', {})).body.target_margin_percent).toBe(40);
  });

  it('needs revenue:read as well as costs:read; a target outside [0, 100) is 400 naming it', async () => {
    expect((await apiGet(p, await issueKey(p, t, ['costs:read']), '/forecasts/price-advice', {})).status).toBe(403);
    // Edges the document allows answer 200: a vanishing target (the price is the cost up to the cent) and the highest.
    const tiny = await apiGet(p, t.readKey, '/forecasts/price-advice', { target_margin_percent: '1e-300' });
    expect(tiny.status).toBe(200);
    expect(tiny.body.customers.find((c: { external_id: string }) => c.external_id === 'bob').required_price).toBe('46.00');
    const highest = await apiGet(p, t.readKey, '/forecasts/price-advice', { target_margin_percent: '99.99' });
    // 46 / 0.0001 = 460000.
    expect(highest.body.customers.find((c: { external_id: string }) => c.external_id === 'bob').required_price).toBe('460000.00');
    for (const target of ['100', '-1', 'lots', '99.995', 'Infinity', 'NaN']) {
      const bad = await apiGet(p, t.readKey, '/forecasts/price-advice', { target_margin_percent: target });
      expect(bad.status, target).toBe(400);
      expect(bad.body.error.details.field).toBe('target_margin_percent');
    }
  });
});

// The date helper is the one the dates above were written with.
expect(utcDate(new Date(TODAY))).toBe('2025-03-15');
