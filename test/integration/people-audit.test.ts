// The audit trail of admin actions (PGlite and PostgreSQL): each change to keys, rate cards, unit
// rates, budgets, webhook endpoints, revenue, re-pricings and settings appears in its organization's trail
// with who made it, from where, and what changed, never a secret; rows past AUDIT_RETENTION_DAYS
// are deleted by the retention tick.
import { beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.js';
import { createLogger } from '../../core/logger.js';
import { AuditRetention } from '../../people/audit-trail.js';
import { admin, describeEachHost, type TestHost } from '../support/http.js';
import { asPerson, createOrganization, signedInPerson } from '../support/people.js';

describeEachHost('audit trail of admin actions', ({ host }) => {
  let h: TestHost;
  let org: string;

  beforeAll(async () => {
    h = host();
    org = await createOrganization(h, 'Audited');
  });

  async function ok(method: string, path: string, json?: unknown) {
    const res = await admin(h, method, `/organizations/${org}${path}`, json);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  }

  it('every admin change is recorded with the admin token as actor, its address, before and after, and no secret', async () => {
    const key = await ok('POST', '/api-keys', { scopes: ['costs:read'] });
    await ok('DELETE', `/api-keys/${key.key_id}`);
    const card = { model_slug: 'audit-model', input_cost_per_million: '1', output_cost_per_million: '2' };
    await ok('POST', '/rate-cards', card);
    await ok('POST', '/rate-cards', { ...card, output_cost_per_million: '3' });
    await ok('POST', '/unit-rates', { model: 'audit-model', metric: 'images', unit: 'image', cost_per_unit: '0.04' });
    const budget = await ok('POST', '/budgets', { name: 'monthly', scope: 'organization', period: 'monthly', amount: '100' });
    await ok('PATCH', `/budgets/${budget.id}`, { amount: '150' });
    await ok('DELETE', `/budgets/${budget.id}`);
    const endpoint = await ok('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', enabled_events: ['budget.exceeded'] });
    const rotated = await ok('PATCH', `/webhook-endpoints/${endpoint.id}`, { description: 'ops', rotate_secret: true });
    await ok('DELETE', `/webhook-endpoints/${endpoint.id}`);
    const record = { id: 'inv-1', user_id: 'alice', amount: '10', period_start: '2026-01-01', period_end: '2026-02-01' };
    await ok('POST', '/revenue-records', { records: [record] });
    const repricing = await ok('POST', '/repricings', { start_date: '2026-01-01', end_date: '2026-02-01' });

    const owner = await signedInPerson(h, org, 'owner');
    const trail = await asPerson(h, owner, 'GET', '/v1/audit-events?actor_kind=admin_token&limit=1000');
    expect(trail.status).toBe(200);
    const events = trail.body.audit_events as any[];
    const one = (action: string) => {
      const found = events.filter((e) => e.action === action);
      expect(found, action).toHaveLength(1);
      expect(found[0]).toMatchObject({ organization_id: org, actor: { kind: 'admin_token', id: null } });
      expect(found[0].address, action).toMatch(/127\.0\.0\.1/);
      return found[0].details;
    };
    expect(one('api_key.created')).toMatchObject({ after: { key_id: key.key_id, scopes: ['costs:read'], revoked_at: null } });
    expect(one('api_key.revoked').after.revoked_at).toEqual(expect.any(String));
    expect(one('rate_card.created').after).toMatchObject({ model_slug: 'audit-model', output_cost_per_million: '2' });
    expect(one('rate_card.corrected')).toMatchObject({
      before: { output_cost_per_million: '2' },
      after: { output_cost_per_million: '3' },
    });
    expect(one('unit_rate.created').after).toMatchObject({ metric: 'images' });
    expect(one('budget.created').after).toMatchObject({ id: budget.id, amount: '100' });
    expect(one('budget.updated')).toMatchObject({ before: { amount: '100' }, after: { amount: '150' } });
    expect(one('budget.deleted').before).toMatchObject({ id: budget.id });
    expect(one('webhook_endpoint.created').after).toMatchObject({ id: endpoint.id, url: 'http://127.0.0.1:9/hook' });
    expect(one('webhook_endpoint.updated')).toMatchObject({
      secret_rotated: true,
      before: { description: null },
      after: { description: 'ops' },
    });
    expect(one('webhook_endpoint.deleted').before).toMatchObject({ id: endpoint.id });
    expect(one('revenue_records.imported')).toEqual({ upserted: 1 });
    expect(one('repricing.created').after).toMatchObject({ repricing_id: repricing.repricing_id });

    // Secrets never: the key, its signing secret, the webhook secrets (first and rotated).
    const text = JSON.stringify(events);
    for (const secret of [key.api_key, key.signing_secret, endpoint.secret, rotated.secret]) {
      expect(typeof secret).toBe('string');
      expect(text).not.toContain(secret);
    }
    // Another organization's owner sees none of it.
    const other = await createOrganization(h, 'Elsewhere');
    const stranger = await signedInPerson(h, other, 'owner');
    const theirs = await asPerson(h, stranger, 'GET', '/v1/audit-events?actor_kind=admin_token&limit=1000');
    expect(theirs.body.audit_events.some((e: any) => e.organization_id === org)).toBe(false);
  });

  it("an owner's and an admin's session manage keys, cards, budgets and webhooks; the trail names the person", async () => {
    const owner = await signedInPerson(h, org, 'owner');
    const adm = await signedInPerson(h, org, 'admin');
    const base = `/v1/admin/organizations/${org}`;
    const key = await asPerson(h, owner, 'POST', `${base}/api-keys`, { json: { scopes: ['costs:read', 'usage:write'] } });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    expect(key.body.api_key).toMatch(/^mk_/);
    const card = { model_slug: 'person-model', input_cost_per_million: '1', output_cost_per_million: '2' };
    const written = await asPerson(h, adm, 'POST', `${base}/rate-cards`, { json: card });
    expect(written.status, JSON.stringify(written.body)).toBe(201);
    const budget = await asPerson(h, adm, 'POST', `${base}/budgets`, { json: { scope: 'organization', period: 'monthly', amount: '10' } });
    expect(budget.status).toBe(201);
    const hook = await asPerson(h, owner, 'POST', `${base}/webhook-endpoints`, {
      json: { url: 'http://127.0.0.1:9/person', enabled_events: ['budget.exceeded'] },
    });
    expect(hook.status).toBe(201);
    // Without the CSRF token, nothing.
    expect((await asPerson(h, owner, 'DELETE', `${base}/api-keys/${key.body.key_id}`, { csrf: null })).status).toBe(403);
    expect((await asPerson(h, owner, 'DELETE', `${base}/api-keys/${key.body.key_id}`)).status).toBe(200);

    const events = (await asPerson(h, owner, 'GET', '/v1/audit-events?actor_kind=person&limit=1000')).body.audit_events as any[];
    const by = (action: string, pred: (e: any) => boolean) => events.find((e) => e.action === action && pred(e));
    expect(by('api_key.created', (e) => e.details.after.key_id === key.body.key_id)).toMatchObject({
      actor: { kind: 'person', id: owner.personId },
    });
    expect(by('api_key.revoked', (e) => e.details.after.key_id === key.body.key_id)?.actor.id).toBe(owner.personId);
    expect(by('rate_card.created', (e) => e.details.after.model_slug === 'person-model')?.actor.id).toBe(adm.personId);
    expect(by('budget.created', (e) => e.details.after.id === budget.body.id)?.actor.id).toBe(adm.personId);
    expect(by('webhook_endpoint.created', (e) => e.details.after.id === hook.body.id)?.actor.id).toBe(owner.personId);
    const text = JSON.stringify(events);
    for (const secret of [key.body.api_key, key.body.signing_secret, hook.body.secret]) expect(text).not.toContain(secret);
    // The card remembers who wrote it.
    const cards = await admin(h, 'GET', `/organizations/${org}/rate-cards`);
    expect(cards.body.rate_cards.find((c: any) => c.model_slug === 'person-model')).toMatchObject({
      created_by: { kind: 'user', user_id: adm.personId },
    });
  });

  it('organizations, credits, dimensions, subscriptions and alert and reconciliation settings are recorded too', async () => {
    const created = await admin(h, 'POST', '/organizations', { name: 'Audited too' });
    expect(created.status).toBe(201);
    const fresh = created.body.organization_id;
    const on = async (method: string, path: string, json: unknown) => {
      const res = await admin(h, method, `/organizations/${fresh}${path}`, json);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    };
    await on('POST', '/credits', { amount: 500, note: 'welcome' });
    await on('POST', '/dimensions', { key: 'team', name: 'Team', value_type: 'string' });
    await on('POST', '/subscriptions', { plan: 'pro' });
    await on('PUT', '/alert-settings', { credits_low_balance: 20 });
    await on('PUT', '/reconciliation-settings', { tolerance_percent: '2.5' });

    const owner = await signedInPerson(h, fresh, 'owner');
    const events = (await asPerson(h, owner, 'GET', '/v1/audit-events?actor_kind=admin_token&limit=1000')).body.audit_events as any[];
    const details = (action: string) => events.find((e) => e.action === action)?.details;
    expect(details('organization.created')).toMatchObject({ after: { organization_id: fresh, name: 'Audited too' } });
    expect(details('credits.granted')).toMatchObject({ amount: 500, note: 'welcome', balance: 500 });
    expect(details('dimension.created')).toMatchObject({ after: { key: 'team' } });
    expect(details('subscription.created')).toMatchObject({ after: { plan: 'pro' } });
    expect(details('alert_settings.updated')).toMatchObject({ before: { credits_low_balance: null }, after: { credits_low_balance: 20 } });
    expect(details('reconciliation_settings.updated')).toMatchObject({
      before: { tolerance_percent: '1' },
      after: { tolerance_percent: '2.5' },
    });
  });

  it('the retention tick deletes rows older than the retention, and keeps the rest', async () => {
    await ok('POST', '/api-keys', { scopes: ['costs:read'] });
    await h.db.query(
      `INSERT INTO audit_events (organization_id, action, actor_kind, occurred_at, details)
       VALUES ($1, 'test.ancient', 'admin_token', now() - interval '31 days', '{}'),
              ($1, 'test.recent', 'admin_token', now() - interval '29 days', '{}')`,
      [org],
    );
    const retention = new AuditRetention(h.db, createLogger('silent'), { retentionDays: 30, firstPassAfterMs: 1 });
    retention.start();
    const actions = async () =>
      (await h.db.query<{ action: string }>('SELECT action FROM audit_events WHERE organization_id = $1', [org])).map((r) => r.action);
    for (let i = 0; i < 200 && (await actions()).includes('test.ancient'); i++) await new Promise((r) => setTimeout(r, 25));
    await retention.stop();
    const left = await actions();
    expect(left).not.toContain('test.ancient');
    expect(left).toEqual(expect.arrayContaining(['test.recent', 'api_key.created']));
  });
});

it('AUDIT_RETENTION_DAYS: 400 by default, 0 keeps every row, anything else refused', () => {
  const base = { MARGINAL_ADMIN_TOKEN: 'x' };
  expect(loadConfig(base).auditRetentionDays).toBe(400);
  expect(loadConfig({ ...base, AUDIT_RETENTION_DAYS: '0' }).auditRetentionDays).toBe(0);
  expect(loadConfig({ ...base, AUDIT_RETENTION_DAYS: '30' }).auditRetentionDays).toBe(30);
  expect(() => loadConfig({ ...base, AUDIT_RETENTION_DAYS: '-1' })).toThrow(/AUDIT_RETENTION_DAYS/);
});
