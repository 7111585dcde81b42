import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endUserIdFor } from '../../core/ids.js';
import { admin, http } from '../support/http.js';
import { lakeRowsFingerprint } from '../support/processor-fixtures.js';
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

const FROM = '2024-12-01T00:00:00Z';
const CARDS = [
  {
    model_slug: 'gpt-4o',
    input_cost_per_million: '2.5',
    output_cost_per_million: '10',
    cache_read_cost_per_million: '1.25',
    effective_from: FROM,
  },
  {
    model_slug: 'gpt-4o-mini',
    input_cost_per_million: '0.15',
    output_cost_per_million: '0.6',
    cache_read_cost_per_million: '0.075',
    effective_from: FROM,
  },
  { model_slug: 'acme-small', input_cost_per_million: '1', output_cost_per_million: '2', effective_from: FROM },
];

let seq = 0;
const ev = (user: string | null, model: string, at: string, tokens: Record<string, unknown>): EventBody => ({
  idempotency_key: `w-${seq++}`,
  model,
  timestamp: at,
  ...(user ? { user_id: user } : {}),
  ...tokens,
});

// Stored cost (priced by the processor)            | as gpt-4o-mini, tokens × 1.5 rounded half-up
const EVENTS = [
  // alice a1: 1000×2.5 + 200×10 + 400×1.25 = 5000 → 0.005 | 1500×0.15 + 300×0.6 + 600×0.075 = 450 → 0.00045
  ev('alice', 'gpt-4o', '2025-01-05T10:00:00Z', {
    input_tokens: 1000,
    output_tokens: 200,
    cache_read_input_tokens: 400,
    agent_id: 'planner',
    feature: 'chat',
    metadata: { team: 'red' },
  }),
  // alice a2: 3×2.5 + 1×10 = 17.5 → 0.0000175        | 4.5→5, 1.5→2: 5×0.15 + 2×0.6 = 1.95 → 0.00000195
  ev('alice', 'gpt-4o', '2025-01-06T10:00:00Z', { input_tokens: 3, output_tokens: 1 }),
  // alice a3: acme-small 1000×1 + 500×2 = 2000 → 0.002  | not substituted: 0.002
  ev('alice', 'acme-small', '2025-01-07T10:00:00Z', { input_tokens: 1000, output_tokens: 500, feature: 'chat' }),
  // alice a4: cost_override 0.25                      | keeps its override: 0.25
  ev('alice', 'gpt-4o', '2025-01-08T10:00:00Z', { input_tokens: 100, output_tokens: 100, cost_override: '0.25' }),
  // bob b1: 2000×2.5 + 1000×10 = 15000 → 0.015         | 3000×0.15 + 1500×0.6 = 1350 → 0.00135
  ev('bob', 'gpt-4o', '2025-01-10T00:00:00Z', { input_tokens: 2000, output_tokens: 1000, agent_id: 'planner', metadata: { team: 'blue' } }),
  // bob b2: acme-small 500×1 + 250×2 = 1000 → 0.001     | 0.001
  ev('bob', 'acme-small', '2025-01-31T23:59:59.999Z', { input_tokens: 500, output_tokens: 250 }),
  // no end user: 100×2.5 + 10×10 = 350 → 0.00035       | 150×0.15 + 15×0.6 = 31.5 → 0.0000315
  ev(null, 'gpt-4o', '2025-01-02T08:00:00Z', { input_tokens: 100, output_tokens: 10 }),
  // Outside [start, end): end exclusive, start inclusive.
  ev('alice', 'gpt-4o', '2025-02-01T00:00:00Z', { input_tokens: 1000, output_tokens: 1000 }),
  ev('alice', 'gpt-4o', '2024-12-31T23:59:59.999Z', { input_tokens: 1000, output_tokens: 1000 }),
];
// alice: actual 0.005 + 0.0000175 + 0.002 + 0.25 = 0.2570175; simulated 0.00045 + 0.00000195 + 0.002 + 0.25 = 0.25245195
// bob:   actual 0.015 + 0.001 = 0.016;                         simulated 0.00135 + 0.001 = 0.00235
// total: actual 0.2570175 + 0.016 + 0.00035 = 0.2733675;      simulated 0.25245195 + 0.00235 + 0.0000315 = 0.25483345
// difference 0.25483345 − 0.2733675 = −0.01853405
// alice's revenue: 31 over January, all in the window → margins 31 − 0.2570175 = 30.7429825 and 31 − 0.25245195 = 30.74754805.
const SCENARIO = {
  start_date: '2025-01-01',
  end_date: '2025-02-01',
  substitutions: [{ from_model: 'gpt-4o', to_model: 'gpt-4o-mini', token_ratio: 1.5 }],
};

let p: Pipeline;
let t: Tenant;
let id: (ext: string) => string;
const whatIf = (key: string, body: unknown) => http(p.url, 'POST', '/v1/what-if', { token: key, json: body });

beforeAll(async () => {
  p = await startPipeline();
  t = await createTenant(p, { name: 'what-if', rateCards: CARDS });
  id = (ext) => endUserIdFor(t.organizationId, ext);
  await ingest(p, t, EVENTS);
  const imported = await admin(p.host, 'POST', `/organizations/${t.organizationId}/revenue-records`, {
    records: [{ id: 'alice-jan', user_id: 'alice', amount: '31', period_start: '2025-01-01', period_end: '2025-02-01' }],
  });
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
  await waitForLake(p, t.organizationId, EVENTS.length);
});

afterAll(async () => {
  await p?.stop();
});

describe('POST /v1/what-if', () => {
  it('prices gpt-4o as gpt-4o-mini × 1.5 with the figures worked out by hand', async () => {
    const res = await whatIf(t.readKey, SCENARIO);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [a, b] = [id('alice'), id('bob')];
    const alice = {
      end_user_id: a,
      external_id: 'alice',
      actual_cost: '0.2570175',
      simulated_cost: '0.25245195',
      actual_margin: '30.7429825',
      simulated_margin: '30.74754805',
    };
    const bob = {
      end_user_id: b,
      external_id: 'bob',
      actual_cost: '0.016',
      simulated_cost: '0.00235',
      actual_margin: null,
      simulated_margin: null,
    };
    expect(res.body).toEqual({
      actual_cost: '0.2733675',
      simulated_cost: '0.25483345',
      difference: '-0.01853405',
      end_users: a < b ? [alice, bob] : [bob, alice],
    });
  });

  it('token_ratio defaults to 1: gpt-4o → gpt-4o prices back to the stored costs', async () => {
    const res = await whatIf(t.readKey, { ...SCENARIO, substitutions: [{ from_model: 'gpt-4o', to_model: 'gpt-4o' }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ actual_cost: '0.2733675', simulated_cost: '0.2733675', difference: '0' });
  });

  it('end_user_id scopes it to one end user', async () => {
    const res = await whatIf(t.readKey, { ...SCENARIO, end_user_id: id('bob') });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      actual_cost: '0.016',
      simulated_cost: '0.00235',
      difference: '-0.01365',
      end_users: [
        {
          end_user_id: id('bob'),
          external_id: 'bob',
          actual_cost: '0.016',
          simulated_cost: '0.00235',
          actual_margin: null,
          simulated_margin: null,
        },
      ],
    });
  });

  it("agent scopes it to the agent's events (a1, b1)", async () => {
    // alice a1 0.005 → 0.00045, bob b1 0.015 → 0.00135: actual 0.02, simulated 0.0018, difference −0.0182;
    // alice's margins 31 − 0.005 = 30.995 and 31 − 0.00045 = 30.99955.
    const res = await whatIf(t.readKey, { ...SCENARIO, agent: 'planner' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ actual_cost: '0.02', simulated_cost: '0.0018', difference: '-0.0182' });
    expect(res.body.end_users.find((u: { external_id: string }) => u.external_id === 'alice')).toMatchObject({
      actual_cost: '0.005',
      simulated_cost: '0.00045',
      actual_margin: '30.995',
      simulated_margin: '30.99955',
    });
  });

  it('feature scope with a price change: acme-small +20% on input moves a3 only', async () => {
    // feature chat: a1 (gpt-4o, untouched: 0.005) and a3 (acme-small 1000 × 1.2 + 500 × 2 = 2200 → 0.0022, was 0.002).
    const res = await whatIf(t.readKey, {
      start_date: '2025-01-01',
      end_date: '2025-02-01',
      feature: 'chat',
      price_changes: [{ model: 'acme-small', token_class: 'input', percent: 20 }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ actual_cost: '0.007', simulated_cost: '0.0072', difference: '0.0002' });
    expect(res.body.end_users).toHaveLength(1);
  });

  it('dimension scope with a hypothetical gpt-4o card: team blue is b1 only', async () => {
    // b1 at 1 / 4 per million: 2000 × 1 + 1000 × 4 = 6000 → 0.006 (was 0.015).
    const res = await whatIf(t.readKey, {
      start_date: '2025-01-01',
      end_date: '2025-02-01',
      dimension: { key: 'team', value: 'blue' },
      cards: [{ model_slug: 'gpt-4o', input_cost_per_million: '1', output_cost_per_million: '4', cache_read_cost_per_million: '0.5' }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ actual_cost: '0.015', simulated_cost: '0.006', difference: '-0.009' });
    expect(res.body.end_users.map((u: { external_id: string }) => u.external_id)).toEqual(['bob']);
  });

  it("a 50% cache hit rate moves half of each gpt-4o event's input to cache reads (acme-small has no cache rate)", async () => {
    // a1: 500 × 2.5 + 200 × 10 + 900 × 1.25 = 4375 → 0.004375 (−0.000625)
    // a2: 3 × 0.5 = 1.5 → 2 moved: 1 × 2.5 + 1 × 10 + 2 × 1.25 = 15 → 0.000015 (−0.0000025)
    // a4 keeps its cost_override; b1: 1000 × 2.5 + 10000 + 1000 × 1.25 = 13750 → 0.01375 (−0.00125)
    // no end user: 50 × 2.5 + 100 + 50 × 1.25 = 287.5 → 0.0002875 (−0.0000625)
    // difference −0.00194; simulated 0.2733675 − 0.00194 = 0.2714275
    const res = await whatIf(t.readKey, { start_date: '2025-01-01', end_date: '2025-02-01', cache_hit_rate: { percent: 50 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ actual_cost: '0.2733675', simulated_cost: '0.2714275', difference: '-0.00194' });
  });

  it('changes nothing: the lake files and the cost, margin and usage reads are the same after', async () => {
    const reads = () =>
      Promise.all([
        apiGet(p, t.readKey, '/cost-data/by-end-user', { start_date: '2025-01-01', end_date: '2025-02-01' }),
        apiGet(p, t.readKey, '/cost-data/trend', { start_date: '2025-01-01', end_date: '2025-02-01' }),
        apiGet(p, t.readKey, '/margin-data/by-end-user', { start_date: '2025-01-01', end_date: '2025-02-01' }),
        apiGet(p, t.readKey, '/usage/events', { start_date: '2024-12-01', end_date: '2025-03-01', limit: 100 }),
      ]).then((all) => all.map((r) => ({ status: r.status, body: r.body })));
    // The tenant's own lake files (other test files' organizations share the lake and may still be
    // flushing), once the processor has finished compacting what the setup flushed.
    const before = { lake: await quietLakeSnapshot(p.lakeDir, t.organizationId), reads: await reads() };
    for (const r of before.reads) expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(Object.entries(before.lake).some(([f, v]) => f.endsWith('.parquet') || (f === 'events' && !v.startsWith('0:')))).toBe(true);
    expect((await whatIf(t.readKey, SCENARIO)).status).toBe(200);
    expect((await whatIf(t.readKey, { ...SCENARIO, end_user_id: id('alice') })).status).toBe(200);
    const scoped = { ...SCENARIO, agent: 'planner', price_changes: [{ percent: 20 }], cache_hit_rate: { percent: 10 } };
    expect((await whatIf(t.readKey, scoped)).status).toBe(200);
    expect(await lakeSnapshot(p.lakeDir, t.organizationId)).toEqual(before.lake);
    expect(await reads()).toEqual(before.reads);
  });
});

describe('/v1/what-if/scenarios: saved, run, compared, per organization', () => {
  const scenarios = (key: string, method: string, suffix = '', json?: unknown) =>
    http(p.url, method, `/v1/what-if/scenarios${suffix}`, { token: key, ...(json === undefined ? {} : { json }) });
  const RANGE = { start_date: '2025-01-01', end_date: '2025-02-01' };

  it('saves two, runs each with the same figures as POST /v1/what-if, lists, reads and deletes them', async () => {
    const { start_date: _s, end_date: _e, ...substitution } = SCENARIO;
    const mini = await scenarios(t.readKey, 'POST', '', { name: 'to mini', scenario: substitution });
    expect(mini.status, JSON.stringify(mini.body)).toBe(201);
    expect(mini.body).toMatchObject({ name: 'to mini', scenario: substitution });
    const cached = await scenarios(t.readKey, 'POST', '', { name: 'cache half', scenario: { cache_hit_rate: { percent: 50 } } });
    expect(cached.status, JSON.stringify(cached.body)).toBe(201);

    // Compared by running both over one range: the figures worked out above.
    const [runMini, runCached] = await Promise.all([
      scenarios(t.readKey, 'POST', `/${mini.body.id}/run`, RANGE),
      scenarios(t.readKey, 'POST', `/${cached.body.id}/run`, RANGE),
    ]);
    expect(runMini.status, JSON.stringify(runMini.body)).toBe(200);
    expect(runMini.body).toEqual((await whatIf(t.readKey, SCENARIO)).body);
    expect(runMini.body).toMatchObject({ simulated_cost: '0.25483345', difference: '-0.01853405' });
    expect(runCached.body).toMatchObject({ simulated_cost: '0.2714275', difference: '-0.00194' });

    const list = await scenarios(t.readKey, 'GET');
    expect(list.status).toBe(200);
    expect(list.body.items.map((s: { name: string }) => s.name)).toEqual(['to mini', 'cache half']);
    expect((await scenarios(t.readKey, 'GET', `/${mini.body.id}`)).body).toEqual(mini.body);

    expect((await scenarios(t.readKey, 'DELETE', `/${mini.body.id}`)).status).toBe(204);
    expect((await scenarios(t.readKey, 'GET', `/${mini.body.id}`)).status).toBe(404);
    expect((await scenarios(t.readKey, 'POST', `/${mini.body.id}/run`, RANGE)).status).toBe(404);
    expect((await scenarios(t.readKey, 'GET')).body.items.map((s: { name: string }) => s.name)).toEqual(['cache half']);
  });

  it('another organization never sees, runs or deletes them', async () => {
    const saved = await scenarios(t.readKey, 'POST', '', { name: 'mine', scenario: { price_changes: [{ percent: 10 }] } });
    expect(saved.status).toBe(201);
    const other = await createTenant(p, { name: 'what-if-other' });
    expect((await scenarios(other.readKey, 'GET')).body).toEqual({ items: [] });
    expect((await scenarios(other.readKey, 'GET', `/${saved.body.id}`)).status).toBe(404);
    expect((await scenarios(other.readKey, 'POST', `/${saved.body.id}/run`, RANGE)).status).toBe(404);
    expect((await scenarios(other.readKey, 'DELETE', `/${saved.body.id}`)).status).toBe(404);
    expect((await scenarios(t.readKey, 'GET', `/${saved.body.id}`)).status).toBe(200);
  });

  it('400 naming the field, 404 for an id that is not a UUID', async () => {
    const field = async (body: unknown) => {
      const res = await scenarios(t.readKey, 'POST', '', body);
      return [res.status, res.body?.error?.details?.field];
    };
    expect(await field({ name: ' ', scenario: { cache_hit_rate: { percent: 5 } } })).toEqual([400, 'name']);
    expect(await field({ name: 'empty', scenario: {} })).toEqual([400, 'scenario.substitutions']);
    expect(await field({ name: 'x', scenario: { agent: '', cache_hit_rate: { percent: 5 } } })).toEqual([400, 'scenario.agent']);
    expect((await scenarios(t.readKey, 'GET', '/not-a-uuid')).status).toBe(404);
    const saved = await scenarios(t.readKey, 'POST', '', { name: 'r', scenario: { cache_hit_rate: { percent: 5 } } });
    const run = await scenarios(t.readKey, 'POST', `/${saved.body.id}/run`, { start_date: '2025-02-01', end_date: '2025-01-01' });
    expect(run.status).toBe(400);
  });
});

describe('POST /v1/what-if: access', () => {
  it('a key with costs:read but not revenue:read gets the costs and null margins', async () => {
    const res = await whatIf(await issueKey(p, t, ['costs:read']), SCENARIO);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.simulated_cost).toBe('0.25483345');
    for (const u of res.body.end_users) expect(u).toMatchObject({ actual_margin: null, simulated_margin: null });
  });

  it('403 without costs:read (revenue:read alone is not enough), 401 without a key', async () => {
    for (const scopes of [['revenue:read'], ['usage:read', 'dimensions:read']]) {
      const res = await whatIf(await issueKey(p, t, scopes), SCENARIO);
      expect(res.status, scopes.join()).toBe(403);
    }
    expect((await http(p.url, 'POST', '/v1/what-if', { json: SCENARIO })).status).toBe(401);
  });
});

describe('POST /v1/what-if: bad scenarios', () => {
  const fieldOf = async (body: unknown) => {
    const res = await whatIf(t.readKey, body);
    return [res.status, res.body?.error?.code, res.body?.error?.details?.field];
  };

  it('400 naming the field', async () => {
    const { start_date: _s, ...noStart } = SCENARIO;
    expect(await fieldOf(noStart)).toEqual([400, 'VALIDATION_ERROR', 'start_date']);
    expect(await fieldOf({ ...SCENARIO, end_date: 'soon' })).toEqual([400, 'VALIDATION_ERROR', 'end_date']);
    expect((await fieldOf({ ...SCENARIO, end_date: '2025-01-01' }))[0]).toBe(400);
    expect(await fieldOf({ ...SCENARIO, end_user_id: 'alice' })).toEqual([400, 'VALIDATION_ERROR', 'end_user_id']);
    expect(await fieldOf({ ...SCENARIO, substitutions: [] })).toEqual([400, 'VALIDATION_ERROR', 'substitutions']);
    expect(await fieldOf({ ...SCENARIO, dimension: { key: 'team' } })).toEqual([400, 'VALIDATION_ERROR', 'dimension.value']);
    expect(await fieldOf({ ...SCENARIO, agent: '' })).toEqual([400, 'VALIDATION_ERROR', 'agent']);
    expect(await fieldOf({ ...SCENARIO, price_changes: [{ percent: -101 }] })).toEqual([
      400,
      'VALIDATION_ERROR',
      'price_changes[0].percent',
    ]);
    expect(await fieldOf({ ...SCENARIO, cards: [{ model_slug: 'x', input_cost_per_million: '1' }] })).toEqual([
      400,
      'VALIDATION_ERROR',
      'cards[0].output_cost_per_million',
    ]);
    expect(await fieldOf({ ...SCENARIO, substitutions: [{ from_model: 'gpt-4o', to_model: 'gpt-4o-mini', token_ratio: 0 }] })).toEqual([
      400,
      'VALIDATION_ERROR',
      'substitutions[0].token_ratio',
    ]);
    expect(await fieldOf({ ...SCENARIO, substitutions: [{ from_model: 'gpt-4o' }] })).toEqual([
      400,
      'VALIDATION_ERROR',
      'substitutions[0].to_model',
    ]);
    expect(
      await fieldOf({
        ...SCENARIO,
        substitutions: [
          { from_model: 'gpt-4o', to_model: 'gpt-4o-mini' },
          { from_model: 'gpt-4o', to_model: 'acme-small' },
        ],
      }),
    ).toEqual([400, 'VALIDATION_ERROR', 'substitutions[1].from_model']);
  });

  it('422 for a range over 12 months and for a to_model without a rate card', async () => {
    expect(await fieldOf({ ...SCENARIO, start_date: '2024-01-01', end_date: '2025-01-02' })).toEqual([
      422,
      'DATE_RANGE_TOO_LARGE',
      'end_date',
    ]);
    expect(await fieldOf({ ...SCENARIO, substitutions: [{ from_model: 'gpt-4o', to_model: 'zz-no-such-model' }] })).toEqual([
      422,
      'NO_RATE_CARD',
      'substitutions[0].to_model',
    ]);
    // acme-small has no cache-read rate: alice's a1 (400 cache-read tokens) cannot move to it.
    expect(await fieldOf({ ...SCENARIO, substitutions: [{ from_model: 'gpt-4o', to_model: 'acme-small' }] })).toEqual([
      422,
      'NO_RATE_CARD',
      'substitutions[0].to_model',
    ]);
  });
});

/** The lake's state once two looks 1.5 s apart agree (at most 30 s). */
async function quietLakeSnapshot(dir: string, organizationId: string): Promise<Record<string, string>> {
  let last = await lakeSnapshot(dir, organizationId);
  for (let waited = 0; waited < 30_000; waited += 1_500) {
    await new Promise((r) => setTimeout(r, 1_500));
    const now = await lakeSnapshot(dir, organizationId);
    if (JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
  return last;
}

/**
 * One organization's lake state: each table's rows of the organization (count and hash); the
 * lake's files are not the organization's alone and are merged by the processor's maintenance.
 */
async function lakeSnapshot(dir: string, organizationId: string): Promise<Record<string, string>> {
  return lakeRowsFingerprint(dir, organizationId);
}
