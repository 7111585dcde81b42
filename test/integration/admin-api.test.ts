// The admin API (DESIGN "Admin surface") over HTTP, on PGlite and on PostgreSQL: every endpoint's
// response fields, the key it issues working (and failing once revoked), 400s naming the field,
// 404/409/401; and the CLI driving a live host as a child process.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../core/paths.js';
import { admin, describeEachHost, http, startTestHost, type TestHost } from '../support/http.js';

const run = promisify(execFile);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const EPOCH = '1970-01-01T00:00:00.000Z';

/** An ISO 8601 UTC timestamp (as Date#toISOString writes it) within a few seconds of now. */
function expectRecentIso(value: unknown): void {
  expect(typeof value).toBe('string');
  expect(new Date(value as string).toISOString()).toBe(value);
  expect(Math.abs(Date.now() - Date.parse(value as string))).toBeLessThan(60_000);
}

/** A 201 whose `idField` is a fresh UUID, whose created_at is now, and whose other fields are exactly `fields`. */
function expectCreated(res: { status: number; body: any }, idField: string, fields: Record<string, unknown>): void {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body[idField]).toMatch(UUID);
  expectRecentIso(res.body.created_at);
  expect({ ...res.body, [idField]: 'ID', created_at: 'T' }).toEqual({ [idField]: 'ID', ...fields, created_at: 'T' });
}

function expectValidationError(res: { status: number; body: any }, field: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
  expect(res.body.error.details.field).toBe(field);
  expect(res.body.error.message.startsWith(`${field}: `), res.body.error.message).toBe(true);
}

describeEachHost('admin API', ({ host }) => {
  let h: TestHost;
  let orgId: string;
  beforeAll(async () => {
    h = host();
    const res = await admin(h, 'POST', '/organizations', { name: '  Acme Corp  ', plan: 'starter' });
    expect(res.status).toBe(201);
    orgId = res.body.organization_id;
  });
  const org = (suffix = '') => `/organizations/${orgId}${suffix}`;

  describe('admin token', () => {
    it.each([
      ['no Authorization header', undefined],
      ['a wrong token', 'mk_admin_wrong'],
      ['a malformed header', 'Basic abc'],
    ])('answers 401 UNAUTHORIZED with %s', async (_label, header) => {
      const res = await http(h.url, 'GET', '/v1/admin/organizations', header ? { headers: { authorization: header } } : {});
      expect(res.status).toBe(401);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    });

    it('does not accept an API key as the admin token', async () => {
      const key = await admin(h, 'POST', org('/api-keys'), { scopes: ['usage:read'] });
      const res = await http(h.url, 'GET', '/v1/admin/organizations', { token: key.body.api_key });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    });
  });

  describe('organizations', () => {
    it('creates one with exactly the documented fields (name trimmed)', async () => {
      const res = await admin(h, 'POST', '/organizations', { name: 'Globex' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['created_at', 'name', 'organization_id']);
      expect(res.body.organization_id).toMatch(UUID);
      expect(res.body.name).toBe('Globex');
      expectRecentIso(res.body.created_at);

      const got = await admin(h, 'GET', `/organizations/${res.body.organization_id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(res.body);
      const first = await admin(h, 'GET', org());
      expect(first.body.name).toBe('Acme Corp');
    });

    it('lists every organization oldest first with a total', async () => {
      const res = await admin(h, 'GET', '/organizations');
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(res.body.organizations.length);
      expect(res.body.organizations[0].organization_id).toBe(orgId);
      expect(res.body.organizations.map((o: { name: string }) => o.name)).toContain('Globex');
    });

    it('answers 404 NOT_FOUND for an unknown id and for a non-UUID', async () => {
      for (const id of [crypto.randomUUID(), 'not-a-uuid']) {
        const res = await admin(h, 'GET', `/organizations/${id}`);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
    });

    it('opens the organization with a zero balance and an active subscription on the given plan', async () => {
      const credits = await admin(h, 'GET', org('/credits'));
      expect(credits.body).toEqual({ organization_id: orgId, balance: 0, grants: [] });
      const subs = await admin(h, 'GET', org('/subscriptions'));
      expect(subs.body.total).toBe(1);
      expect(subs.body.subscriptions[0]).toMatchObject({ organization_id: orgId, status: 'active', plan: 'starter', ended_at: null });
    });
  });

  describe('API keys', () => {
    it('issues a key shown once that authenticates GET /v1/ping, lists it without secrets, and revokes it', async () => {
      const owner = crypto.randomUUID();
      const created = await admin(h, 'POST', org('/api-keys'), { scopes: ['usage:read', 'costs:read'], owner_user_id: owner });
      expect(created.status).toBe(201);
      const k = created.body;
      expect(Object.keys(k).sort()).toEqual(
        ['api_key', 'created_at', 'key_id', 'key_prefix', 'organization_id', 'owner_user_id', 'scopes', 'signing_secret'].sort(),
      );
      expect(k.key_id).toMatch(UUID);
      expect(k.organization_id).toBe(orgId);
      // 'mk_live_' + 32 bytes base64url (43 characters); 'mks_' + 32 bytes for the secret.
      expect(k.api_key).toMatch(/^mk_live_[A-Za-z0-9_-]{43}$/);
      expect(k.signing_secret).toMatch(/^mks_[A-Za-z0-9_-]{43}$/);
      expect(k.key_prefix).toBe(k.api_key.slice(0, 'mk_live_'.length + 6));
      expect(k.scopes).toEqual(['usage:read', 'costs:read']);
      expect(k.owner_user_id).toBe(owner);
      expectRecentIso(k.created_at);

      const ping = await http(h.url, 'GET', '/v1/ping', { token: k.api_key });
      expect(ping.status).toBe(200);
      expect(ping.body).toEqual({ ok: true, organization_id: orgId });

      const list = await admin(h, 'GET', org('/api-keys'));
      expect(list.status).toBe(200);
      const listed = list.body.api_keys.find((x: { key_id: string }) => x.key_id === k.key_id);
      expect(listed).toEqual({
        key_id: k.key_id,
        organization_id: orgId,
        key_prefix: k.key_prefix,
        scopes: ['usage:read', 'costs:read'],
        owner_user_id: owner,
        created_at: k.created_at,
        revoked_at: null,
      });
      expect(JSON.stringify(list.body)).not.toContain(k.api_key);
      expect(JSON.stringify(list.body)).not.toContain(k.signing_secret);
      expect(list.body.total).toBe(list.body.api_keys.length);

      const revoked = await admin(h, 'DELETE', org(`/api-keys/${k.key_id}`));
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({ key_id: k.key_id, organization_id: orgId, scopes: ['usage:read', 'costs:read'] });
      expectRecentIso(revoked.body.revoked_at);

      const after = await http(h.url, 'GET', '/v1/ping', { token: k.api_key });
      expect(after.status).toBe(401);
      expect(after.body.error.code).toBe('UNAUTHORIZED');

      const again = await admin(h, 'DELETE', org(`/api-keys/${k.key_id}`));
      expect(again.status).toBe(200);
      expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    });

    it('gives a key without owner_user_id a fresh owner UUID', async () => {
      const res = await admin(h, 'POST', org('/api-keys'), { scopes: ['usage:write'] });
      expect(res.status).toBe(201);
      expect(res.body.owner_user_id).toMatch(UUID);
    });

    it('answers 404 for an unknown key or organization', async () => {
      const unknownKey = await admin(h, 'DELETE', org(`/api-keys/${crypto.randomUUID()}`));
      expect(unknownKey.status).toBe(404);
      const otherOrg = await admin(h, 'POST', `/organizations/${crypto.randomUUID()}/api-keys`, { scopes: ['usage:read'] });
      expect(otherOrg.status).toBe(404);
      expect(otherOrg.body.error.code).toBe('NOT_FOUND');
    });
  });

  describe('credits', () => {
    it('grants credits, returns the running balance and lists the grants', async () => {
      const g = await admin(h, 'POST', `/organizations`, { name: 'Credits Inc' });
      const id = g.body.organization_id;
      const first = await admin(h, 'POST', `/organizations/${id}/credits`, { amount: 100 });
      expect(first.status).toBe(201);
      expect(Object.keys(first.body).sort()).toEqual(['balance', 'grant_id', 'organization_id']);
      expect(first.body).toMatchObject({ organization_id: id, balance: 100 });
      expect(first.body.grant_id).toMatch(UUID);
      const second = await admin(h, 'POST', `/organizations/${id}/credits`, { amount: 50, note: 'trial' });
      expect(second.body.balance).toBe(150);

      const res = await admin(h, 'GET', `/organizations/${id}/credits`);
      expect(res.status).toBe(200);
      expect(res.body.organization_id).toBe(id);
      expect(res.body.balance).toBe(150);
      expect(res.body.grants.map((x: object) => ({ ...x, created_at: 'T' }))).toEqual([
        { grant_id: first.body.grant_id, amount: 100, balance_after: 100, note: null, created_at: 'T' },
        { grant_id: second.body.grant_id, amount: 50, balance_after: 150, note: 'trial', created_at: 'T' },
      ]);
      for (const grant of res.body.grants) expectRecentIso(grant.created_at);
    });
  });

  describe('rate cards', () => {
    it('stores rates exactly as decimal strings, lowercases the slug, defaults effective_from to always', async () => {
      const res = await admin(h, 'POST', org('/rate-cards'), {
        model_slug: 'GPT-4o',
        input_cost_per_million: '2.50',
        output_cost_per_million: 10,
        cache_read_cost_per_million: 1.25,
        cache_creation_cost_per_million: null,
      });
      expectCreated(res, 'rate_card_id', {
        organization_id: orgId,
        model_slug: 'gpt-4o',
        input_cost_per_million: '2.5',
        output_cost_per_million: '10',
        cache_creation_cost_per_million: null,
        cache_read_cost_per_million: '1.25',
        reasoning_cost_per_million: null,
        cache_creation_1h_cost_per_million: null,
        service_tier: 'standard',
        tiers: [],
        time_of_day_windows: [],
        effective_from: EPOCH,
        created_by: { kind: 'admin_token', user_id: null },
        superseded_at: null,
        superseded_by_rate_card_id: null,
        superseded_by: null,
        // The organization's first gpt-4o card replaces the standard ones' whole history: every event time.
        supersedes_rate_card_id: null,
        affected_range: { start_date: EPOCH, end_date: null },
        repricing: {
          method: 'POST',
          path: `/v1/admin/organizations/${orgId}/repricings`,
          body: { start_date: '2000-01-01T00:00:00.000Z', end_date: '2100-01-01T00:00:00.000Z' },
        },
      });
    });

    it('takes JSON numbers by their decimal text and keeps 12 fractional digits exactly', async () => {
      const res = await admin(h, 'POST', org('/rate-cards'), {
        model_slug: 'claude-3-5-haiku',
        input_cost_per_million: 0.1,
        output_cost_per_million: '0.000000000001',
        reasoning_cost_per_million: '12345678901234.123456789012',
        effective_from: '2025-03-01T12:00:00+02:00',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.input_cost_per_million).toBe('0.1');
      expect(res.body.output_cost_per_million).toBe('0.000000000001');
      expect(res.body.reasoning_cost_per_million).toBe('12345678901234.123456789012');
      expect(res.body.effective_from).toBe('2025-03-01T10:00:00.000Z');
    });

    it('lists cards by slug then effective_from; a card with an existing identity supersedes it (history on request)', async () => {
      const later = await admin(h, 'POST', org('/rate-cards'), {
        model_slug: 'gpt-4o',
        input_cost_per_million: '2',
        output_cost_per_million: '8',
        effective_from: '2025-06-01',
      });
      expect(later.status).toBe(201);
      expect(later.body.effective_from).toBe('2025-06-01T00:00:00.000Z');
      expect(later.body.affected_range).toEqual({ start_date: '2025-06-01T00:00:00.000Z', end_date: null });
      const fix = await admin(h, 'POST', org('/rate-cards'), {
        model_slug: 'GPT-4O',
        input_cost_per_million: '1',
        output_cost_per_million: '1',
        effective_from: '2025-06-01T00:00:00Z',
      });
      expect(fix.status).toBe(201);
      expect(fix.body).toMatchObject({
        supersedes_rate_card_id: later.body.rate_card_id,
        superseded_at: null,
        affected_range: { start_date: '2025-06-01T00:00:00.000Z', end_date: null },
        repricing: { body: { start_date: '2025-06-01T00:00:00.000Z', end_date: '2100-01-01T00:00:00.000Z' } },
      });

      const list = await admin(h, 'GET', org('/rate-cards'));
      expect(list.status).toBe(200);
      expect(list.body.total).toBe(3);
      expect(
        list.body.rate_cards.map((c: { model_slug: string; effective_from: string; rate_card_id: string }) => [
          c.model_slug,
          c.effective_from,
          c.rate_card_id,
        ]),
      ).toEqual([
        ['claude-3-5-haiku', '2025-03-01T10:00:00.000Z', expect.any(String)],
        ['gpt-4o', EPOCH, expect.any(String)],
        ['gpt-4o', '2025-06-01T00:00:00.000Z', fix.body.rate_card_id],
      ]);
      const history = await admin(h, 'GET', org('/rate-cards?include_superseded=true'));
      expect(history.status).toBe(200);
      expect(history.body.total).toBe(4);
      const june = history.body.rate_cards.filter((c: { effective_from: string }) => c.effective_from === '2025-06-01T00:00:00.000Z');
      expect(
        june.map((c: Record<string, unknown>) => [c.rate_card_id, c.input_cost_per_million, c.superseded_by_rate_card_id, c.superseded_by]),
      ).toEqual([
        [later.body.rate_card_id, '2', fix.body.rate_card_id, { kind: 'admin_token', user_id: null }],
        [fix.body.rate_card_id, '1', null, null],
      ]);
      expect(june[0].superseded_at).toBe(fix.body.created_at);
      expectValidationError(await admin(h, 'GET', org('/rate-cards?include_superseded=maybe')), 'include_superseded');
    });
  });

  describe('unit rates', () => {
    it('creates model- and provider-keyed rates (names lowercased, unit kept) and lists them', async () => {
      const byModel = await admin(h, 'POST', org('/unit-rates'), {
        model: 'DALL-E-3',
        metric: 'Image_Generation',
        unit: 'Image',
        cost_per_unit: '0.040',
        effective_from: '2025-01-01',
      });
      expectCreated(byModel, 'unit_rate_id', {
        organization_id: orgId,
        model: 'dall-e-3',
        provider: null,
        metric: 'image_generation',
        unit: 'Image',
        cost_per_unit: '0.04',
        effective_from: '2025-01-01T00:00:00.000Z',
      });
      const byProvider = await admin(h, 'POST', org('/unit-rates'), {
        provider: 'Deepgram',
        metric: 'transcription',
        unit: 'minute',
        cost_per_unit: 0.0043,
      });
      expect(byProvider.status).toBe(201);
      expect(byProvider.body).toMatchObject({ model: null, provider: 'deepgram', cost_per_unit: '0.0043', effective_from: EPOCH });

      const list = await admin(h, 'GET', org('/unit-rates'));
      expect(list.body.total).toBe(2);
      expect(list.body.unit_rates.map((r: { metric: string }) => r.metric)).toEqual(['image_generation', 'transcription']);
    });
  });

  describe('dimensions', () => {
    it('creates the spec dimension definition shape, refuses a duplicate key with 409, lists by key', async () => {
      const res = await admin(h, 'POST', org('/dimensions'), {
        key: 'team',
        name: 'Team',
        value_type: 'string',
        is_required: true,
        description: 'Owning team',
      });
      expectCreated(res, 'id', {
        organization_id: orgId,
        name: 'Team',
        key: 'team',
        description: 'Owning team',
        value_type: 'string',
        is_required: true,
      });
      const plain = await admin(h, 'POST', org('/dimensions'), { key: 'batch_size', name: 'Batch size', value_type: 'number' });
      expect(plain.status).toBe(201);
      expect(Object.keys(plain.body).sort()).toEqual(['created_at', 'id', 'is_required', 'key', 'name', 'organization_id', 'value_type']);
      expect(plain.body.is_required).toBe(false);

      const dup = await admin(h, 'POST', org('/dimensions'), { key: 'team', name: 'Team again', value_type: 'string' });
      expect(dup.status).toBe(409);
      expect(dup.body.error.code).toBe('CONFLICT');

      const list = await admin(h, 'GET', org('/dimensions'));
      expect(list.body.total).toBe(2);
      expect(list.body.dimensions.map((d: { key: string }) => d.key)).toEqual(['batch_size', 'team']);
    });
  });

  describe('subscriptions', () => {
    it('starts, lists and changes subscriptions; a second active one replaces the first', async () => {
      const o = await admin(h, 'POST', '/organizations', { name: 'Subs Ltd' });
      const id = o.body.organization_id;
      const [initial] = (await admin(h, 'GET', `/organizations/${id}/subscriptions`)).body.subscriptions;
      expect(initial).toMatchObject({ status: 'active', plan: 'default', ended_at: null });

      const pro = await admin(h, 'POST', `/organizations/${id}/subscriptions`, { plan: 'pro' });
      expect(pro.status).toBe(201);
      expect(Object.keys(pro.body).sort()).toEqual(
        ['created_at', 'ended_at', 'organization_id', 'plan', 'started_at', 'status', 'subscription_id'].sort(),
      );
      expect(pro.body).toMatchObject({ organization_id: id, status: 'active', plan: 'pro', ended_at: null });
      expectRecentIso(pro.body.started_at);

      const list = await admin(h, 'GET', `/organizations/${id}/subscriptions`);
      expect(list.body.total).toBe(2);
      const old = list.body.subscriptions.find((s: { subscription_id: string }) => s.subscription_id === initial.subscription_id);
      expect(old.status).toBe('canceled');
      expectRecentIso(old.ended_at);

      const paused = await admin(h, 'PATCH', `/organizations/${id}/subscriptions/${pro.body.subscription_id}`, { status: 'inactive' });
      expect(paused.status).toBe(200);
      expect(paused.body).toMatchObject({ subscription_id: pro.body.subscription_id, status: 'inactive', ended_at: null });

      const spare = await admin(h, 'POST', `/organizations/${id}/subscriptions`, { plan: 'spare', status: 'inactive' });
      expect(spare.status).toBe(201);
      expect(spare.body.status).toBe('inactive');
      const resumed = await admin(h, 'PATCH', `/organizations/${id}/subscriptions/${pro.body.subscription_id}`, { status: 'active' });
      expect(resumed.status).toBe(200);
      const conflict = await admin(h, 'PATCH', `/organizations/${id}/subscriptions/${spare.body.subscription_id}`, { status: 'active' });
      expect(conflict.status).toBe(409);

      const unknown = await admin(h, 'PATCH', `/organizations/${id}/subscriptions/${crypto.randomUUID()}`, { status: 'canceled' });
      expect(unknown.status).toBe(404);
    });
  });

  describe('bad input answers 400 naming the field', () => {
    const cases: Array<[string, string, string, unknown, string]> = [
      ['org name missing', 'POST', '', {}, 'name'],
      ['org name blank', 'POST', '', { name: '   ' }, 'name'],
      ['org name too long', 'POST', '', { name: 'x'.repeat(201) }, 'name'],
      ['org name not a string', 'POST', '', { name: 42 }, 'name'],
      ['unknown org field', 'POST', '', { name: 'x', nickname: 'y' }, 'nickname'],
      ['scopes missing', 'POST', '/api-keys', {}, 'scopes'],
      ['scopes empty', 'POST', '/api-keys', { scopes: [] }, 'scopes'],
      ['unknown scope', 'POST', '/api-keys', { scopes: ['usage:read', 'admin:all'] }, 'scopes'],
      ['owner_user_id not a UUID', 'POST', '/api-keys', { scopes: ['usage:read'], owner_user_id: 'bob' }, 'owner_user_id'],
      ['amount zero', 'POST', '/credits', { amount: 0 }, 'amount'],
      ['amount negative', 'POST', '/credits', { amount: -5 }, 'amount'],
      ['amount fractional', 'POST', '/credits', { amount: 1.5 }, 'amount'],
      ['amount beyond 2^53', 'POST', '/credits', { amount: 2 ** 60 }, 'amount'],
      ['amount not a number', 'POST', '/credits', { amount: 'lots' }, 'amount'],
      ['model_slug missing', 'POST', '/rate-cards', { input_cost_per_million: '1', output_cost_per_million: '1' }, 'model_slug'],
      [
        'input rate negative',
        'POST',
        '/rate-cards',
        { model_slug: 'm', input_cost_per_million: '-1', output_cost_per_million: '1' },
        'input_cost_per_million',
      ],
      [
        'input rate not decimal',
        'POST',
        '/rate-cards',
        { model_slug: 'm', input_cost_per_million: '1e3', output_cost_per_million: '1' },
        'input_cost_per_million',
      ],
      [
        'input rate a boolean',
        'POST',
        '/rate-cards',
        { model_slug: 'm', input_cost_per_million: true, output_cost_per_million: '1' },
        'input_cost_per_million',
      ],
      [
        'output rate float noise',
        'POST',
        '/rate-cards',
        { model_slug: 'm', input_cost_per_million: '1', output_cost_per_million: 0.1 + 0.2 },
        'output_cost_per_million',
      ],
      [
        'output rate too large',
        'POST',
        '/rate-cards',
        { model_slug: 'm', input_cost_per_million: '1', output_cost_per_million: '1000000000000000' },
        'output_cost_per_million',
      ],
      [
        'cache read rate negative',
        'POST',
        '/rate-cards',
        { model_slug: 'm', input_cost_per_million: '1', output_cost_per_million: '1', cache_read_cost_per_million: -0.5 },
        'cache_read_cost_per_million',
      ],
      [
        'effective_from not ISO',
        'POST',
        '/rate-cards',
        { model_slug: 'm', input_cost_per_million: '1', output_cost_per_million: '1', effective_from: 'yesterday' },
        'effective_from',
      ],
      [
        'effective_from impossible date',
        'POST',
        '/rate-cards',
        { model_slug: 'm', input_cost_per_million: '1', output_cost_per_million: '1', effective_from: '2025-02-30' },
        'effective_from',
      ],
      [
        'unknown rate-card field',
        'POST',
        '/rate-cards',
        { model_slug: 'm', input_cost_per_million: '1', output_cost_per_million: '1', cached_cost: '1' },
        'cached_cost',
      ],
      [
        'both model and provider',
        'POST',
        '/unit-rates',
        { model: 'a', provider: 'b', metric: 'm', unit: 'u', cost_per_unit: '1' },
        'model',
      ],
      ['neither model nor provider', 'POST', '/unit-rates', { metric: 'm', unit: 'u', cost_per_unit: '1' }, 'model'],
      ['metric missing', 'POST', '/unit-rates', { model: 'a', unit: 'u', cost_per_unit: '1' }, 'metric'],
      ['cost_per_unit negative', 'POST', '/unit-rates', { model: 'a', metric: 'm', unit: 'u', cost_per_unit: '-0.01' }, 'cost_per_unit'],
      ['dimension key not snake_case', 'POST', '/dimensions', { key: 'Team', name: 'Team', value_type: 'string' }, 'key'],
      ['dimension key starts with a digit', 'POST', '/dimensions', { key: '1team', name: 'Team', value_type: 'string' }, 'key'],
      ['dimension key too long', 'POST', '/dimensions', { key: 'k'.repeat(65), name: 'Team', value_type: 'string' }, 'key'],
      ['dimension name blank', 'POST', '/dimensions', { key: 'team2', name: ' ', value_type: 'string' }, 'name'],
      ['dimension value_type unknown', 'POST', '/dimensions', { key: 'team2', name: 'Team', value_type: 'text' }, 'value_type'],
      [
        'is_required not boolean',
        'POST',
        '/dimensions',
        { key: 'team2', name: 'Team', value_type: 'string', is_required: 'yes' },
        'is_required',
      ],
      ['subscription status unknown', 'POST', '/subscriptions', { status: 'paused' }, 'status'],
      ['subscription plan blank', 'POST', '/subscriptions', { plan: '' }, 'plan'],
    ];
    it.each(cases)('%s', async (_label, method, suffix, body, field) => {
      const res = await admin(h, method, suffix === '' ? '/organizations' : org(suffix), body);
      expectValidationError(res, field);
    });

    it('names every unknown field in details.unknownFields', async () => {
      const res = await admin(h, 'POST', '/organizations', { name: 'x', colour: 'red', size: 3 });
      expectValidationError(res, 'colour');
      expect(res.body.error.details.unknownFields).toEqual(['colour', 'size']);
    });

    it('says which scope is unknown', async () => {
      const res = await admin(h, 'POST', org('/api-keys'), { scopes: ['usage:read', 'admin:all'] });
      expect(res.body.error.message).toBe(
        'scopes: item 1 must be one of: usage:write, usage:read, costs:read, revenue:read, dimensions:read',
      );
    });

    it('PATCH subscription with an unknown status names status', async () => {
      const subs = await admin(h, 'GET', org('/subscriptions'));
      const res = await admin(h, 'PATCH', org(`/subscriptions/${subs.body.subscriptions[0].subscription_id}`), { status: 'paused' });
      expectValidationError(res, 'status');
    });
  });

  describe('unknown organization', () => {
    const missing = crypto.randomUUID();
    it.each([
      ['GET', '/api-keys', undefined],
      ['GET', '/credits', undefined],
      ['POST', '/credits', { amount: 5 }],
      ['GET', '/rate-cards', undefined],
      ['POST', '/rate-cards', { model_slug: 'm', input_cost_per_million: '1', output_cost_per_million: '1' }],
      ['GET', '/unit-rates', undefined],
      ['POST', '/unit-rates', { model: 'a', metric: 'm', unit: 'u', cost_per_unit: '1' }],
      ['GET', '/dimensions', undefined],
      ['POST', '/dimensions', { key: 'team', name: 'Team', value_type: 'string' }],
      ['GET', '/subscriptions', undefined],
      ['POST', '/subscriptions', { plan: 'pro' }],
    ])('%s %s answers 404 NOT_FOUND', async (method, suffix, body) => {
      const res = await admin(h, method, `/organizations/${missing}${suffix}`, body);
      expect(res.status).toBe(404);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('NOT_FOUND');
    });
  });
});

describe('CLI against a live host', () => {
  let h: TestHost;
  let dataDir: string;
  beforeAll(async () => {
    h = await startTestHost();
    // The CLI's fallback: the admin token from $DATA_DIR/instance-secrets.json, as `npm start` writes it.
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-cli-'));
    fs.writeFileSync(path.join(dataDir, 'instance-secrets.json'), JSON.stringify({ adminToken: h.adminToken, masterKey: 'x' }));
  });
  afterAll(async () => {
    await h?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env: NodeJS.ProcessEnv = { ...process.env, MARGINAL_URL: h.url, DATA_DIR: dataDir };
    delete env.MARGINAL_ADMIN_TOKEN;
    try {
      const { stdout, stderr } = await run('npm', ['run', '--silent', 'cli', '--', ...args], { cwd: projectRoot, env, timeout: 60_000 });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code?: number; stdout: string; stderr: string };
      return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout, stderr: e.stderr };
    }
  }

  /** The JSON document in a stream (npm may add warning lines before it). */
  const json = (text: string) => JSON.parse(text.slice(text.indexOf('{')));

  it('creates an organization and a key whose api_key pings', async () => {
    const org = await cli(['orgs', 'create', '--name', 'CLI Co']);
    expect(org.code, org.stderr).toBe(0);
    const created = json(org.stdout);
    expect(created.organization_id).toMatch(UUID);
    expect(created.name).toBe('CLI Co');

    const key = await cli(['keys', 'create', '--org', created.organization_id, '--scopes', 'usage:write,costs:read']);
    expect(key.code, key.stderr).toBe(0);
    const issued = json(key.stdout);
    expect(issued.organization_id).toBe(created.organization_id);
    expect(issued.scopes).toEqual(['usage:write', 'costs:read']);
    const ping = await http(h.url, 'GET', '/v1/ping', { token: issued.api_key });
    expect(ping.body).toEqual({ ok: true, organization_id: created.organization_id });
  });

  it('prints the API error to stderr and exits 1; a bad command line exits 2', async () => {
    const missing = await cli(['credits', 'grant', '--org', crypto.randomUUID(), '--amount', '5']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(json(missing.stderr).error.code).toBe('NOT_FOUND');

    const usage = await cli(['credits', 'grant', '--amount', '5']);
    expect(usage.code).toBe(2);
    expect(json(usage.stderr).error.message).toContain('missing --org');
  });
});
