// Read API, tenant isolation, scopes and the read rate limits: end to end over the shared data set
// (test/support/read-dataset.ts); every figure is worked out there from the data set and its rates,
// never by calling the api code.
import { describe, expect, it } from 'vitest';
import { apiGet, createTenant, issueKey, startPipeline } from '../support/pipeline.js';
import {
  A,
  B,
  B_EVENTS,
  B_RATES,
  completed,
  endUserId,
  expectNotFound,
  get,
  money,
  OCT,
  p,
  sumOf,
  useReadDataset,
} from '../support/read-dataset.js';

useReadDataset();

describe('tenant isolation: B never sees A, whatever ids it passes', () => {
  it('B’s figures are B’s alone', async () => {
    const evs = completed(B_EVENTS, OCT.start_date, OCT.end_date, B_RATES);
    const res = await get(B.readKey, '/cost-data/by-end-user', OCT);
    expect(res.body.total_cost).toBe(money(sumOf(evs, B_RATES)));
    expect(res.body.end_users.map((u: any) => [u.end_user_id, u.end_user_name, u.event_count])).toEqual([
      [endUserId(B.organizationId, 'alice'), 'alice', 3],
      [endUserId(B.organizationId, 'dave'), 'dave', 2],
    ]);
    const usage = await get(B.readKey, '/usage/events', OCT);
    expect(usage.body.total).toBe(B_EVENTS.length);
    const summary = await get(B.readKey, '/cost-data/summary');
    expect(summary.body.status_counts).toEqual({ completed: 5, pending: 0, pending_rate_card: 0, failed: 0 });
    expect(summary.body.current_period_cost).toBe(
      money(sumOf(completed(B_EVENTS, '2026-10-01', '2026-10-20T12:00:00Z', B_RATES), B_RATES)),
    );
  });

  it('A’s end users, subscriptions and dimensions are not found with B’s key', async () => {
    expectNotFound(await get(B.readKey, '/end-user-costs/carol/summary', OCT));
    const alice = await get(B.readKey, '/end-user-costs/alice/summary', OCT);
    expect(alice.body.end_user_id).toBe(endUserId(B.organizationId, 'alice'));
    expect(alice.body.total_cost).toBe(
      money(
        sumOf(
          B_EVENTS.filter((e) => e.user === 'alice'),
          B_RATES,
        ),
      ),
    );
    expectNotFound(await get(B.readKey, '/usage/events', { ...OCT, subscription_id: A.subscriptionId! }));
    expectNotFound(await get(B.readKey, '/dimension-data/cost-breakdown', { ...OCT, dimension_key: 'team' }));
    const byTeam = await get(B.readKey, '/end-user-costs/alice/by-dimension', { ...OCT, dimension: 'team' });
    expect(byTeam.body.items.map((i: any) => [i.attribution_value, i.event_count])).toEqual([['red', 3]]);
  });
});

describe('scopes and the read rate limit', () => {
  it('403 without the endpoint’s scope; 401 without a key', async () => {
    const usageOnly = await issueKey(p, A, ['usage:read']);
    const costsOnly = await issueKey(p, A, ['costs:read']);
    expect((await get(usageOnly, '/usage/events', OCT)).status).toBe(200);
    expect((await get(usageOnly, '/cost-data/summary')).status).toBe(403);
    expect((await get(usageOnly, '/end-user-costs/alice/trend', OCT)).status).toBe(403);
    expect((await get(usageOnly, '/rates')).status).toBe(403);
    expect((await get(costsOnly, '/usage/summary', OCT)).status).toBe(403);
    expect((await get(costsOnly, '/dimension-data/definitions')).status).toBe(403);
    expect((await get(costsOnly, '/dimension-data/cost-trend', OCT)).status).toBe(200);
    const none = await apiGet(p, '', '/usage/events', OCT);
    expect(none.status).toBe(401);
  });

  it('every read carries RateLimit-* headers', async () => {
    const res = await get(A.readKey, '/cost-data/by-end-user', OCT);
    expect(res.headers.get('ratelimit-limit')).toBe('100000');
    expect(Number(res.headers.get('ratelimit-remaining'))).toBeGreaterThan(0);
  });
});

describe('the general read tier: 429 with Retry-After and RateLimit-* past the limit', () => {
  it('allows RATE_LIMIT_READ_PER_15_MINUTES reads per key, then 429', async () => {
    const q = await startPipeline({ ingest: false, processor: false, env: { RATE_LIMIT_READ_PER_15_MINUTES: '2' } });
    try {
      const t = await createTenant(q);
      const first = await apiGet(q, t.readKey, '/cost-data/by-end-user', OCT);
      expect(first.status).toBe(200);
      expect(first.headers.get('ratelimit-limit')).toBe('2');
      expect(first.headers.get('ratelimit-remaining')).toBe('1');
      expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
      expect((await apiGet(q, t.readKey, '/end-user-costs/nobody/summary', OCT)).status).toBe(404);
      const limited = await apiGet(q, t.readKey, '/cost-data/summary');
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.headers.get('ratelimit-limit')).toBe('2');
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
      // Per key: another key of the same organization still reads.
      expect((await apiGet(q, await issueKey(q, t, ['costs:read']), '/cost-data/summary')).status).toBe(200);
    } finally {
      await q.stop();
    }
  });
});
