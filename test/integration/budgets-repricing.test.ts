// Budget spend follows re-pricing through the real pipeline (signed ingest → Kafka → processor →
// lake; the re-pricer's rewrite → control plane): events that waited for a rate card raise a
// budget's spend by exactly their cost once a card prices them, and fire the thresholds they
// cross, once; a history re-pricing with a cheaper card lowers the spend by exactly the
// difference, fires nothing and takes nothing back. Figures are worked out here from the cards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Big } from '../../core/money.js';
import { admin } from '../support/http.js';
import { apiGet, createTenant, ingest, llmEvent, startPipeline, waitForLake, type Pipeline } from '../support/pipeline.js';
import { eventually } from '../support/eventually.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const MODEL = 'late-model';
const INPUT = 100_000;
const OUTPUT = 50_000;
const costAt = (inputPerMillion: string, outputPerMillion: string) =>
  new Big(INPUT).times(inputPerMillion).div(1e6).plus(new Big(OUTPUT).times(outputPerMillion).div(1e6));
/** The card that arrives late: 100 000 × 10 / 1e6 + 50 000 × 20 / 1e6 = $2 per event. */
const FIRST = { input: '10', output: '20' };
/** The cheaper correction: 100 000 × 4 / 1e6 + 50 000 × 6 / 1e6 = $0.70 per event. */
const CHEAPER = { input: '4', output: '6' };

describe('budget spend follows re-pricing', () => {
  let p: Pipeline;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    p = await startPipeline({ api: { warmDays: 0, webhooks: { pollMs: 100 } }, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  }, 120_000);
  afterAll(async () => {
    await p?.stop();
    await receiver.stop();
  });

  it('pending events priced later raise spent by their cost and fire thresholds once; a cheaper history re-pricing lowers it by the difference', async () => {
    expect(costAt(FIRST.input, FIRST.output).toFixed()).toBe('2');
    expect(costAt(CHEAPER.input, CHEAPER.output).toFixed()).toBe('0.7');
    const t = await createTenant(p, { name: 'budget-repricing' });
    const org = t.organizationId;
    expect(
      (await admin(p.host, 'POST', `/organizations/${org}/webhook-endpoints`, { url: receiver.url, enabled_events: ['*'] })).status,
    ).toBe(201);
    const orgBudget = (
      await admin(p.host, 'POST', `/organizations/${org}/budgets`, { scope: 'organization', period: 'monthly', amount: '5' })
    ).body;
    const ginaBudget = (
      await admin(p.host, 'POST', `/organizations/${org}/budgets`, { scope: 'end_user', user_id: 'gina', period: 'monthly', amount: '10' })
    ).body;
    const budget = async (id: string) => (await apiGet(p, t.readKey, `/budgets/${id}`)).body;
    const budgetEvents = async () =>
      ((await admin(p.host, 'GET', `/organizations/${org}/webhook-events?limit=1000`)).body.events as Array<{ type: string; data: any }>)
        .filter((e) => e.type.startsWith('budget.'))
        .reverse();

    // Two events no card prices yet: stored as pending_rate_card, cost 0.
    const sentAt = new Date();
    const events = [1, 2].map((n) => llmEvent(`late-${n}`, { model: MODEL, input_tokens: INPUT, output_tokens: OUTPUT, user_id: 'gina' }));
    const accepted = await ingest(p, t, events);
    expect(accepted.map((r) => r.status)).toEqual(['accepted_flagged', 'accepted_flagged']);
    await waitForLake(p, org, 2, 60_000);
    expect(await budget(orgBudget.id)).toMatchObject({ spent: '0', percent: 0, thresholds_crossed: [] });

    // The card arrives: the re-pricer prices both, $4 in all = 80% of $5 (50 and 80 crossed, not 100); 40% of gina's $10.
    const spent = costAt(FIRST.input, FIRST.output).times(2);
    expect(spent.toFixed()).toBe('4');
    expect(
      (
        await admin(p.host, 'POST', `/organizations/${org}/rate-cards`, {
          model_slug: MODEL,
          input_cost_per_million: FIRST.input,
          output_cost_per_million: FIRST.output,
        })
      ).status,
    ).toBe(201);
    await eventually(
      async () => (await budget(orgBudget.id)).spent === spent.toFixed(),
      30_000,
      'spend after the pending events were priced',
    );
    expect(await budget(orgBudget.id)).toMatchObject({
      spent: '4',
      remaining: '1',
      percent: 80,
      thresholds_crossed: [50, 80],
      exhausted: false,
    });
    expect(await budget(ginaBudget.id)).toMatchObject({ spent: '4', remaining: '6', percent: 40, thresholds_crossed: [] });
    const crossed = await eventually(
      async () => {
        const list = await budgetEvents();
        return list.length >= 2 ? list : false;
      },
      15_000,
      'threshold events',
    );
    expect(crossed.map((e) => [e.type, e.data.budget_id, e.data.threshold ?? null, e.data.spent])).toEqual([
      ['budget.threshold_crossed', orgBudget.id, 50, '4'],
      ['budget.threshold_crossed', orgBudget.id, 80, '4'],
    ]);

    // A cheaper card effective before the events, and a history re-pricing over their range:
    // 2 × $0.70 = $1.40, spent lower by exactly 2 × (2 − 0.70) = $2.60.
    const cheaper = await admin(p.host, 'POST', `/organizations/${org}/rate-cards`, {
      model_slug: MODEL,
      input_cost_per_million: CHEAPER.input,
      output_cost_per_million: CHEAPER.output,
      effective_from: '2020-01-01',
    });
    expect(cheaper.status).toBe(201);
    const range = {
      start_date: new Date(sentAt.getTime() - 3_600_000).toISOString(),
      end_date: new Date(Date.now() + 3_600_000).toISOString(),
    };
    const job = await admin(p.host, 'POST', `/organizations/${org}/repricings`, range);
    expect(job.status).toBe(202);
    await eventually(
      async () => (await admin(p.host, 'GET', `/organizations/${org}/repricings/${job.body.repricing_id}`)).body.status === 'completed',
      60_000,
      'history re-pricing',
    );
    const lowered = costAt(CHEAPER.input, CHEAPER.output).times(2);
    expect(spent.minus(lowered).toFixed()).toBe('2.6');
    // The revision is applied before the job records the partition done.
    expect(await budget(orgBudget.id)).toMatchObject({ spent: lowered.toFixed(), remaining: '3.6', percent: 28 });
    expect(await budget(ginaBudget.id)).toMatchObject({ spent: '1.4', remaining: '8.6', percent: 14 });
    const check = await apiGet(p, t.readKey, '/budgets/check', { user_id: 'gina' });
    expect(check.body.budgets.map((b: { spent: string }) => b.spent).sort()).toEqual(['1.4', '1.4']);
    // The lake's own figure agrees.
    const costs = await apiGet(p, t.readKey, '/cost-data/by-end-user', range);
    expect(costs.body.total_cost).toBe('1.4');
    // Nothing fired again, nothing was taken back.
    expect((await budgetEvents()).map((e) => [e.type, e.data.threshold ?? null])).toEqual([
      ['budget.threshold_crossed', 50],
      ['budget.threshold_crossed', 80],
    ]);
  }, 150_000);
});
