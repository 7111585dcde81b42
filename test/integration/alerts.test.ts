// Budgets and alerts through the real pipeline (signed ingest → Kafka → processor flush → control
// plane → outbox → signed webhook to a receiver on 127.0.0.1). Each event type must fire exactly
// when its condition becomes true and not again; the expected figures are worked out here from
// the rate card (never read back from the service).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Big } from '../../core/money.js';
import { admin, http } from '../support/http.js';
import { apiGet, createTenant, ingest, llmEvent, startPipeline, waitForLake, type Pipeline, type Tenant } from '../support/pipeline.js';
import { eventually } from '../support/eventually.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

// $10 per million input tokens, $20 per million output tokens.
const CARD = { model_slug: 'acme-model', input_cost_per_million: '10', output_cost_per_million: '20' };
const INPUT = 100_000;
const OUTPUT = 50_000;
/** Cost of one event: 100 000 × 10 / 1e6 + 50 000 × 20 / 1e6 = 1 + 1 = $2. */
const EVENT_COST = new Big(INPUT).times(10).div(1e6).plus(new Big(OUTPUT).times(20).div(1e6));

describe('budgets and alerts, end to end', () => {
  let p: Pipeline;
  const receiver = new WebhookReceiver();
  let seq = 0;

  beforeAll(async () => {
    await receiver.start();
    p = await startPipeline({ api: { warmDays: 0, webhooks: { pollMs: 100 } }, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  }, 120_000);
  afterAll(async () => {
    await p?.stop();
    await receiver.stop();
  });

  async function tenant(spec: Parameters<typeof createTenant>[1] = {}): Promise<Tenant> {
    const t = await createTenant(p, { rateCards: [CARD], ...spec });
    const ep = await admin(p.host, 'POST', `/organizations/${t.organizationId}/webhook-endpoints`, {
      url: receiver.url,
      enabled_events: ['*'],
    });
    expect(ep.status).toBe(201);
    return t;
  }
  const outbox = async (t: Tenant) =>
    (
      (await admin(p.host, 'GET', `/organizations/${t.organizationId}/webhook-events?limit=1000`)).body.events as Array<{
        id: string;
        type: string;
        data: any;
      }>
    ).reverse();
  const lakeCount = new Map<string, number>();
  /** Sends n events of $2 for the user and waits until the lake holds them (evaluation runs before the lake write). */
  async function spend(t: Tenant, n: number, fields: Record<string, unknown> = {}): Promise<void> {
    const events = Array.from({ length: n }, () =>
      llmEvent(`e-${++seq}`, { model: 'acme-model', input_tokens: INPUT, output_tokens: OUTPUT, ...fields }),
    );
    await ingest(p, t, events);
    const total = (lakeCount.get(t.organizationId) ?? 0) + n;
    lakeCount.set(t.organizationId, total);
    await waitForLake(p, t.organizationId, total, 60_000);
  }

  it('an end-user budget sends each threshold once per period, then budget.exceeded once; reads and check agree', async () => {
    const t = await tenant();
    const created = await admin(p.host, 'POST', `/organizations/${t.organizationId}/budgets`, {
      name: 'alice monthly',
      scope: 'end_user',
      user_id: 'alice',
      period: 'monthly',
      amount: '5',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ scope: 'end_user', user_id: 'alice', amount: '5', thresholds: [50, 80, 100] });
    const budgetId = created.body.id;

    await spend(t, 1, { user_id: 'alice' }); // $2 = 40%: nothing
    await spend(t, 1, { user_id: 'bob' }); // another user: not this budget
    expect((await outbox(t)).filter((e) => e.type.startsWith('budget.'))).toEqual([]);

    await spend(t, 1, { user_id: 'alice' }); // $4 = 80%: 50 and 80 crossed
    let budgetEvents = (await outbox(t)).filter((e) => e.type.startsWith('budget.'));
    expect(budgetEvents.map((e) => [e.type, e.data.threshold])).toEqual([
      ['budget.threshold_crossed', 50],
      ['budget.threshold_crossed', 80],
    ]);
    expect(budgetEvents[1]!.data).toMatchObject({
      budget_id: budgetId,
      user_id: 'alice',
      amount: '5',
      spent: EVENT_COST.times(2).toFixed(),
      percent: 80,
      period: 'monthly',
    });

    await spend(t, 1, { user_id: 'alice' }); // $6 = 120%: 100 crossed and exceeded
    await spend(t, 1, { user_id: 'alice' }); // $8: nothing new
    budgetEvents = (await outbox(t)).filter((e) => e.type.startsWith('budget.'));
    expect(budgetEvents.map((e) => [e.type, e.data.threshold ?? null])).toEqual([
      ['budget.threshold_crossed', 50],
      ['budget.threshold_crossed', 80],
      ['budget.threshold_crossed', 100],
      ['budget.exceeded', null],
    ]);
    expect(budgetEvents[3]!.data).toMatchObject({ spent: EVENT_COST.times(3).toFixed(), percent: 120 });

    const now = new Date();
    const read = await apiGet(p, t.readKey, `/budgets/${budgetId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      spent: EVENT_COST.times(4).toFixed(),
      remaining: '0',
      percent: 160,
      thresholds_crossed: [50, 80, 100],
      exhausted: true,
      period_start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    });
    expect((await apiGet(p, t.readKey, '/budgets')).body.total).toBe(1);
    const aliceCheck = await apiGet(p, t.readKey, '/budgets/check', { user_id: 'alice' });
    expect(aliceCheck.body).toMatchObject({
      user_id: 'alice',
      allowed: false,
      budgets: [{ budget_id: budgetId, spent: '8', remaining: '0', exhausted: true }],
    });
    const bobCheck = await apiGet(p, t.readKey, '/budgets/check', { user_id: 'bob' });
    expect(bobCheck.body).toEqual({ user_id: 'bob', allowed: true, budgets: [] });
    expect((await apiGet(p, t.readKey, '/budgets/check')).status).toBe(400);

    // Every outbox event reaches the receiver, once per id at least.
    const ids = (await outbox(t)).map((e) => e.id);
    await eventually(() => ids.every((id) => receiver.received.some((r) => r.headers['marginal-event-id'] === id)), 15_000, 'deliveries');
  });

  it('an each-end-user budget fires per end user; an organization budget sums everyone', async () => {
    const t = await tenant();
    await admin(p.host, 'POST', `/organizations/${t.organizationId}/budgets`, {
      scope: 'each_end_user',
      period: 'daily',
      amount: '3',
      thresholds: [100],
    });
    const org = (
      await admin(p.host, 'POST', `/organizations/${t.organizationId}/budgets`, {
        scope: 'organization',
        period: 'weekly',
        amount: '10',
        thresholds: [50],
      })
    ).body;
    await spend(t, 1, { user_id: 'bob' }); // bob $2
    await spend(t, 1, { user_id: 'carol' }); // carol $2; organization $4
    expect((await outbox(t)).filter((e) => e.type.startsWith('budget.'))).toEqual([]);
    await spend(t, 1, { user_id: 'bob' }); // bob $4 ≥ $3: 100 and exceeded for bob; organization $6 ≥ 50% of $10
    const events = (await outbox(t)).filter((e) => e.type.startsWith('budget.'));
    expect(events.map((e) => [e.type, e.data.scope, e.data.user_id, e.data.threshold ?? null]).sort()).toEqual(
      [
        ['budget.exceeded', 'each_end_user', 'bob', null],
        ['budget.threshold_crossed', 'each_end_user', 'bob', 100],
        ['budget.threshold_crossed', 'organization', null, 50],
      ].sort(),
    );
    const orgEvent = events.find((e) => e.data.scope === 'organization')!;
    expect(orgEvent.data).toMatchObject({ budget_id: org.id, spent: EVENT_COST.times(3).toFixed(), percent: 60 });
    const check = await apiGet(p, t.readKey, '/budgets/check', { user_id: 'carol' });
    expect(check.body.allowed).toBe(true);
    expect((await apiGet(p, t.readKey, '/budgets/check', { user_id: 'bob' })).body.allowed).toBe(false);
  });

  it('credits.low and credits.exhausted fire in the transaction of the spend, once until a grant', async () => {
    const t = await tenant({ credits: 5 });
    expect((await admin(p.host, 'PUT', `/organizations/${t.organizationId}/alert-settings`, { credits_low_balance: 2 })).status).toBe(200);
    const types = async () => (await outbox(t)).filter((e) => e.type.startsWith('credits.')).map((e) => [e.type, e.data.balance]);
    const one = async () => ingest(p, t, [llmEvent(`c-${++seq}`, { model: 'acme-model' })]);
    await one();
    await one(); // balance 3
    expect(await types()).toEqual([]);
    await one(); // balance 2: at the level
    expect(await types()).toEqual([['credits.low', 2]]);
    await one(); // 1
    await one(); // 0
    expect(await types()).toEqual([
      ['credits.low', 2],
      ['credits.exhausted', 0],
    ]);
    await admin(p.host, 'POST', `/organizations/${t.organizationId}/credits`, { amount: 10 }); // balance 10: both re-armed
    await one(); // 9: nothing
    expect(await types()).toHaveLength(2);
  });

  it('rate_card.missing fires once per model per day with a count and a sample event id', async () => {
    const t = await tenant();
    const first = await ingest(
      p,
      t,
      [1, 2, 3].map((i) => llmEvent(`m-${++seq}-${i}`, { model: 'mystery-model' })),
    );
    await waitForLake(p, t.organizationId, 3, 60_000);
    await ingest(p, t, [llmEvent(`m-${++seq}`, { model: 'mystery-model' })]);
    await waitForLake(p, t.organizationId, 4, 60_000);
    // Evaluated before each lake write; under load an evaluation may be retried, so allow a moment.
    const missingOf = async () => (await outbox(t)).filter((e) => e.type === 'rate_card.missing');
    let missing = await eventually(async () => ((await missingOf()).length > 0 ? missingOf() : false), 15_000, 'rate_card.missing');
    expect(missing).toHaveLength(1);
    expect(missing[0]!.data).toMatchObject({ model: 'mystery-model', date: new Date().toISOString().slice(0, 10) });
    expect(missing[0]!.data.count).toBeGreaterThanOrEqual(1);
    expect(missing[0]!.data.count).toBeLessThanOrEqual(3);
    expect(first.map((r) => r.event_id)).toContain(missing[0]!.data.sample_event_id);
    await ingest(p, t, [llmEvent(`m-${++seq}`, { model: 'other-unknown' })]);
    await waitForLake(p, t.organizationId, 5, 60_000);
    missing = await eventually(async () => ((await missingOf()).length > 1 ? missingOf() : false), 15_000, 'second rate_card.missing');
    expect(missing.map((e) => e.data.model)).toEqual(['mystery-model', 'other-unknown']);
  });

  it('end-user margin alerts follow the trailing 30-day margin: margin_below, unprofitable, profitable on recovery', async () => {
    const t = await tenant();
    expect(
      (await admin(p.host, 'PUT', `/organizations/${t.organizationId}/alert-settings`, { margin_below_percent: 50 })).body,
    ).toMatchObject({ margin_below_percent: 50 });
    const day = 86_400_000;
    const today = Math.floor(Date.now() / day) * day;
    // A billing period wholly inside the trailing window recognizes its whole amount.
    const importRevenue = (id: string, amount: string) =>
      admin(p.host, 'POST', `/organizations/${t.organizationId}/revenue-records`, {
        records: [
          {
            id,
            user_id: 'dave',
            amount,
            period_start: new Date(today - 5 * day).toISOString(),
            period_end: new Date(today - 4 * day).toISOString(),
          },
        ],
      });
    expect((await importRevenue('r1', '3')).status).toBeLessThan(300); // revenue 3, cost 0: nothing
    const margins = async () =>
      (await outbox(t)).filter((e) => e.type.startsWith('end_user.')).map((e) => [e.type, e.data.user_id, e.data.margin_percent]);
    expect(await margins()).toEqual([]);
    await spend(t, 1, { user_id: 'dave' }); // cost 2: margin 1 = 33.33% < 50
    expect(await margins()).toEqual([['end_user.margin_below', 'dave', 33.33]]);
    const below = (await outbox(t)).find((e) => e.type === 'end_user.margin_below')!;
    expect(below.data).toMatchObject({
      revenue: '3',
      cost: EVENT_COST.toFixed(),
      margin_amount: '1',
      profitability_category: 'profitable',
      threshold_percent: 50,
    });
    await spend(t, 1, { user_id: 'dave' }); // cost 4: margin -1 = -33.33%: unprofitable
    await spend(t, 1, { user_id: 'erin' }); // cost with no revenue: unprofitable
    expect(await margins()).toEqual([
      ['end_user.margin_below', 'dave', 33.33],
      ['end_user.unprofitable', 'dave', -33.33],
      ['end_user.unprofitable', 'erin', null],
    ]);
    await importRevenue('r2', '5'); // revenue 8, cost 4: 50%: profitable again, margin_below re-armed
    await spend(t, 1, { user_id: 'dave' }); // cost 6: 25% < 50: margin_below again
    expect(await margins()).toEqual([
      ['end_user.margin_below', 'dave', 33.33],
      ['end_user.unprofitable', 'dave', -33.33],
      ['end_user.unprofitable', 'erin', null],
      ['end_user.profitable', 'dave', 50],
      ['end_user.margin_below', 'dave', 25],
    ]);
  });

  it('budget reads need costs:read and validate their input, naming the field', async () => {
    const t = await tenant();
    const bad = [
      [{ scope: 'end_user', period: 'monthly', amount: '5' }, 'user_id'],
      [{ scope: 'organization', user_id: 'x', period: 'monthly', amount: '5' }, 'user_id'],
      [{ scope: 'organization', period: 'monthly', amount: '0' }, 'amount'],
      [{ scope: 'organization', period: 'monthly', amount: 'abc' }, 'amount'],
      [{ scope: 'organization', period: 'yearly', amount: '5' }, 'period'],
      [{ scope: 'dimension', dimension_key: 'team', period: 'daily', amount: '5' }, 'dimension_value'],
      [{ scope: 'organization', period: 'daily', amount: '5', thresholds: [0] }, 'thresholds.0'],
    ] as const;
    for (const [body, field] of bad) {
      const res = await admin(p.host, 'POST', `/organizations/${t.organizationId}/budgets`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(String(res.body.error.details.field)).toContain(field);
    }
    const created = (
      await admin(p.host, 'POST', `/organizations/${t.organizationId}/budgets`, {
        scope: 'agent',
        agent_id: 'a1',
        period: 'daily',
        amount: '1.5',
      })
    ).body;
    const patched = await admin(p.host, 'PATCH', `/organizations/${t.organizationId}/budgets/${created.id}`, { scope: 'organization' });
    expect(patched.body).toMatchObject({ scope: 'organization', agent_id: null, amount: '1.5' });
    const usageOnly = (await admin(p.host, 'POST', `/organizations/${t.organizationId}/api-keys`, { scopes: ['usage:read'] })).body.api_key;
    expect((await http(p.url, 'GET', '/v1/budgets', { token: usageOnly })).status).toBe(403);
    expect((await admin(p.host, 'DELETE', `/organizations/${t.organizationId}/budgets/${created.id}`)).status).toBe(200);
    expect((await apiGet(p, t.readKey, `/budgets/${created.id}`)).status).toBe(404);
  });
});
