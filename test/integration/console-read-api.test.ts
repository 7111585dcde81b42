// The read endpoints added for the console: cost over time by a typed column
// (/cost-data/trend), models waiting for a rate card (/cost-data/pending-rate-card), the end-user
// directory (/end-users) and the organization's own rate-card slugs (/rates/own). Events go in
// through signed ingest; expected figures are worked out here from the events sent.
import Big from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const W = { start_date: '2025-03-01', end_date: '2025-03-04' };
const ts = (day: number, hour: number) => `2025-03-0${day}T${String(hour).padStart(2, '0')}:00:00.000Z`;

// model, provider, cost, day
const PRICED: Array<[string, string | undefined, string, number]> = [
  ['m-a', 'p-1', '1.5', 1],
  ['m-a', 'p-1', '0.25', 2],
  ['m-b', 'p-2', '3', 1],
  ['m-c', undefined, '0.125', 3],
  ['m-d', 'p-2', '0.5', 3],
];

let p: Pipeline;
let t: Tenant;

beforeAll(async () => {
  p = await startPipeline();
  t = await createTenant(p, { rateCards: [{ model_slug: 'own-model', input_cost_per_million: '1', output_cost_per_million: '2' }] });
  const events: EventBody[] = PRICED.map(([model, provider, cost, day], i) =>
    llmEvent(`e-${i}`, {
      model,
      ...(provider ? { provider } : {}),
      cost_override: cost,
      timestamp: ts(day, 10 + i),
      user_id: i % 2 ? 'bob' : 'alice',
    }),
  );
  events.push(llmEvent('u-1', { model: 'unpriced-x', provider: 'nobody', timestamp: ts(2, 9) }));
  events.push(llmEvent('u-2', { model: 'unpriced-x', provider: 'nobody', timestamp: ts(3, 9) }));
  events.push(llmEvent('u-3', { model: 'unpriced-y', timestamp: ts(3, 9), user_id: 'carol' }));
  events.push(llmEvent('outside', { model: 'unpriced-y', timestamp: '2025-03-05T00:00:00.000Z' }));
  // Sessions on 10 March (outside W): alice alone in sa-1, alice and bob in shared, bob alone in sb-1.
  const inSession = (key: string, user: string, session: string, cost: string, hour: number) =>
    llmEvent(key, {
      user_id: user,
      session_id: session,
      cost_override: cost,
      model: 'm-s',
      timestamp: `2025-03-10T${String(hour).padStart(2, '0')}:00:00.000Z`,
    });
  events.push(inSession('sa-1', 'alice', 'sa-1', '0.5', 8), inSession('sa-2', 'alice', 'sa-1', '0.25', 9));
  events.push(inSession('sh-1', 'alice', 'shared', '1', 10), inSession('sh-2', 'bob', 'shared', '2', 12));
  events.push(inSession('sb-1', 'bob', 'sb-1', '4', 11));
  await ingest(p, t, events);
  await waitForLake(p, t.organizationId, events.length);
});

afterAll(async () => {
  await p?.stop();
});

const day = (d: number) => `2025-03-0${d}T00:00:00.000Z`;

describe('GET /cost-data/trend', () => {
  it('splits cost per day by model, costliest first, with exact sums', async () => {
    const res = await apiGet(p, t.readKey, '/cost-data/trend', { ...W, group_by: 'model' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.granularity).toBe('daily');
    expect(res.body.group_by).toBe('model');
    // Totals: m-b 3, m-a 1.75, m-d 0.5, m-c 0.125.
    expect(res.body.series).toEqual([
      { key: 'm-b', label: 'm-b', data_points: [{ date: day(1), cost: '3', event_count: 1 }] },
      {
        key: 'm-a',
        label: 'm-a',
        data_points: [
          { date: day(1), cost: '1.5', event_count: 1 },
          { date: day(2), cost: '0.25', event_count: 1 },
        ],
      },
      { key: 'm-d', label: 'm-d', data_points: [{ date: day(3), cost: '0.5', event_count: 1 }] },
      { key: 'm-c', label: 'm-c', data_points: [{ date: day(3), cost: '0.125', event_count: 1 }] },
    ]);
  });

  it('top values plus Other, and Unassigned for events without the column', async () => {
    const res = await apiGet(p, t.readKey, '/cost-data/trend', { ...W, group_by: 'provider', top: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // p-2: 3 + 0.5 = 3.5; p-1: 1.75; Unassigned (m-c): 0.125 → Other = p-1 + Unassigned.
    expect(res.body.series).toEqual([
      {
        key: 'p-2',
        label: 'p-2',
        data_points: [
          { date: day(1), cost: '3', event_count: 1 },
          { date: day(3), cost: '0.5', event_count: 1 },
        ],
      },
      {
        key: 'other',
        label: 'Other',
        data_points: [
          { date: day(1), cost: '1.5', event_count: 1 },
          { date: day(2), cost: '0.25', event_count: 1 },
          { date: day(3), cost: '0.125', event_count: 1 },
        ],
      },
    ]);
    const all = await apiGet(p, t.readKey, '/cost-data/trend', { ...W, group_by: 'provider' });
    expect(all.body.series.map((s: any) => s.key)).toEqual(['p-2', 'p-1', 'Unassigned']);
  });

  it('without group_by: one total series equal to the sum of the events', async () => {
    const res = await apiGet(p, t.readKey, '/cost-data/trend', W);
    expect(res.body.series).toHaveLength(1);
    expect(res.body.series[0].key).toBe('total');
    const sum = res.body.series[0].data_points.reduce((a: Big, pt: any) => a.plus(pt.cost), new Big(0));
    expect(sum.eq(PRICED.reduce((a, [, , c]) => a.plus(c), new Big(0)))).toBe(true);
  });

  it('rejects bad parameters with the envelope naming the field, and checks the scope', async () => {
    const bad = await apiGet(p, t.readKey, '/cost-data/trend', { ...W, group_by: 'team' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('group_by');
    const top = await apiGet(p, t.readKey, '/cost-data/trend', { ...W, top: 21 });
    expect(top.status).toBe(400);
    expect(top.body.error.details.field).toBe('top');
    const dates = await apiGet(p, t.readKey, '/cost-data/trend', { start_date: W.end_date, end_date: W.start_date });
    expect(dates.status).toBe(400);
    const usageOnly = await issueKey(p, t, ['usage:read']);
    expect((await apiGet(p, usageOnly, '/cost-data/trend', W)).status).toBe(403);
    expect((await apiGet(p, 'mk_live_nope', '/cost-data/trend', W)).status).toBe(401);
  });
});

describe('GET /cost-data/pending-rate-card', () => {
  it('counts the events waiting for a rate card per model and provider in the range', async () => {
    const res = await apiGet(p, t.readKey, '/cost-data/pending-rate-card', W);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      items: [
        { model: 'unpriced-x', provider: 'nobody', event_count: 2 },
        { model: 'unpriced-y', provider: null, event_count: 1 },
      ],
      total_events: 3,
      period_start: '2025-03-01T00:00:00.000Z',
      period_end: '2025-03-04T00:00:00.000Z',
    });
    const bad = await apiGet(p, t.readKey, '/cost-data/pending-rate-card', { start_date: 'soon', end_date: W.end_date });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('start_date');
  });
});

describe('GET /end-users', () => {
  it('lists every end user with the internal id that cost rows carry and the external id', async () => {
    const res = await apiGet(p, t.readKey, '/end-users');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.total).toBe(3);
    expect(res.body.end_users.map((u: any) => [u.external_id, u.end_user_name])).toEqual([
      ['alice', 'alice'],
      ['bob', 'bob'],
      ['carol', 'carol'],
    ]);
    const costs = await apiGet(p, t.readKey, '/cost-data/by-end-user', W);
    const costIds = new Set(costs.body.end_users.map((u: any) => u.end_user_id));
    const alice = res.body.end_users.find((u: any) => u.external_id === 'alice');
    expect(costIds.has(alice.end_user_id)).toBe(true);
    const summary = await apiGet(p, t.readKey, '/end-user-costs/alice/summary', W);
    expect(summary.body.end_user_id).toBe(alice.end_user_id);
    const one = await apiGet(p, t.readKey, '/end-users', { end_user_id: alice.end_user_id });
    expect(one.body).toEqual({ end_users: [alice], total: 1 });
    for (const other of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      expect((await apiGet(p, t.readKey, '/end-users', { end_user_id: other })).body).toEqual({ end_users: [], total: 0 });
    }
  });
});

describe('GET /rates/own', () => {
  it('names the slugs priced by the organization’s own cards', async () => {
    const res = await apiGet(p, t.readKey, '/rates/own');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ model_slugs: ['own-model'] });
    const table = await apiGet(p, t.readKey, '/rates');
    expect(table.body.items.some((i: any) => i.model_slug === 'own-model')).toBe(true);
  });
});

describe('GET /end-user-costs/{externalId}/sessions', () => {
  const S = { start_date: '2025-03-10', end_date: '2025-03-11' };

  it('the sessions the end user took part in, with whole-session totals, most recent first', async () => {
    const res = await apiGet(p, t.readKey, '/end-user-costs/alice/sessions', S);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.total).toBe(2);
    // shared holds alice's 1 and bob's 2; its last event (12:00) is the most recent.
    expect(res.body.sessions.map((s: any) => [s.session_id, s.total_cost, s.event_count, s.last_event_at])).toEqual([
      ['shared', '3', 2, '2025-03-10T12:00:00.000Z'],
      ['sa-1', '0.75', 2, '2025-03-10T09:00:00.000Z'],
    ]);
    const bob = await apiGet(p, t.readKey, '/end-user-costs/bob/sessions', { ...S, limit: 1, offset: 1 });
    expect(bob.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(bob.body.sessions.map((s: any) => s.session_id)).toEqual(['sb-1']);
    const carol = await apiGet(p, t.readKey, '/end-user-costs/carol/sessions', S);
    expect(carol.body).toEqual({ sessions: [], total: 0, limit: 100, offset: 0 });
  });

  it('404 for an unknown end user, 400 for bad dates', async () => {
    const res = await apiGet(p, t.readKey, '/end-user-costs/nobody/sessions', S);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    const bad = await apiGet(p, t.readKey, '/end-user-costs/alice/sessions', { start_date: S.end_date, end_date: S.start_date });
    expect(bad.status).toBe(400);
  });
});
