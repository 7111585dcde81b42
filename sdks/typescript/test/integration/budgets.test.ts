// budgetAllows against the real service: a $3 daily budget of one end user, two events of $2
// (1,000,000 input tokens at $2 per million each): allowed after the first ($2 < $3), refused
// after the second ($4 ≥ $3); another end user stays allowed.
import { beforeAll, describe, expect, it } from 'vitest';
import { Marginal } from '../../src/client.js';
import { admin, createTenant, waitFor, type Tenant } from '../support/tenant.js';

let tenant: Tenant;
let writer: Marginal;
let reader: Marginal;

beforeAll(async () => {
  tenant = await createTenant({ rateCards: [{ model_slug: 'budget-model', input_cost_per_million: '2', output_cost_per_million: '0' }] });
  await admin('POST', `/organizations/${tenant.organizationId}/budgets`, {
    scope: 'end_user',
    user_id: 'alice',
    period: 'daily',
    amount: '3',
  });
  writer = new Marginal({ apiKey: tenant.apiKey, signingSecret: tenant.signingSecret, baseUrl: tenant.url, flushOnExit: false });
  reader = new Marginal({ apiKey: tenant.readKey, baseUrl: tenant.url, flushOnExit: false });
});

describe('budgetAllows', () => {
  it('turns false once a budget covering the end user is exhausted', async () => {
    const event = { model: 'budget-model', input_tokens: 1_000_000, output_tokens: 0, user_id: 'alice' };
    await writer.send(event);
    await waitFor('$2 counted', async () => (await reader.budgetCheck({ user_id: 'alice' })).budgets[0]?.spent === '2');
    expect(await reader.budgetAllows('alice')).toBe(true);
    await writer.send(event);
    await waitFor('$4 counted', async () => !(await reader.budgetAllows('alice')));
    const check = await reader.budgetCheck({ user_id: 'alice' });
    expect(check.budgets[0]).toMatchObject({ amount: '3', spent: '4', remaining: '0', exhausted: true });
    expect(await reader.budgetAllows('bob')).toBe(true);
  });
});
