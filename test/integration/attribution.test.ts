// Attribution through the whole pipeline: events with agent, workflow and metadata go in through
// signed ingest with cost_override (exact costs), the api groups them. Percentages are worked out
// here by largest remainder over hundredths; the 1000-group and 1000-value caps with 1005 agents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Big } from '../../core/money.js';
import { http } from '../support/http.js';
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

const W = { start_date: '2025-03-01', end_date: '2025-03-08' };

let seq = 0;
function event(at: string, cost: string | null, fields: Record<string, unknown> = {}): EventBody {
  return {
    idempotency_key: `a-${seq++}`,
    model: cost === null ? 'mystery-model-x' : 'gpt-4o', // no rate card and no override: pending
    input_tokens: 3,
    output_tokens: 2,
    timestamp: at,
    ...(cost === null ? {} : { cost_override: cost }),
    ...fields,
  };
}

/** A breakdown item of `n` events costing `cost` in total (override: token-class costs are 0). */
function item(value: string, cost: string, n: number, percent: number) {
  return {
    attribution_value: value,
    total_cost: cost,
    input_tokens: 3 * n,
    output_tokens: 2 * n,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    reasoning_tokens: null,
    input_cost: '0',
    output_cost: '0',
    cache_creation_cost: null,
    cache_read_cost: null,
    reasoning_cost: null,
    event_count: n,
    percent_of_total: percent,
  };
}

let p: Pipeline;
let t: Tenant;
let many: Tenant;

beforeAll(async () => {
  p = await startPipeline();
  t = await createTenant(p, { name: 'attribution' });
  many = await createTenant(p, { name: 'many agents' });
  const events = [
    event('2025-03-01T00:00:00Z', '0.5', { agent_id: 'a1', workflow_id: 'w1', metadata: { team: 'red' } }),
    event('2025-03-02T12:00:00Z', '0.25', { agent_id: 'a1', workflow_id: 'w1', metadata: { team: 'red' } }),
    event('2025-03-03T00:00:00Z', '1', { agent_id: 'a2', workflow_id: 'w2', metadata: { team: 'blue' } }),
    // The top-level agent_id wins over metadata's.
    event('2025-03-04T00:00:00Z', '0.125', { agent_id: 'a3', metadata: { agent_id: 'zzz', team: 'red' } }),
    event('2025-03-05T00:00:00Z', '0.0625', { workflow_id: 'w1' }),
    // Pending (no rate card): not cost, but its agent and team exist.
    event('2025-03-06T00:00:00Z', null, { agent_id: 'a4', metadata: { team: 'green' } }),
    // Outside [Mar 1, Mar 8): nowhere.
    event('2025-03-08T00:00:00Z', '7', { agent_id: 'a5', workflow_id: 'w5', metadata: { team: 'late' } }),
    event('2025-02-28T23:59:59.999Z', '7', { agent_id: 'a0', metadata: { team: 'early' } }),
  ];
  await ingest(p, t, events);
  // 1005 agents, agent-i costing (i+1)/1000.
  const crowd = Array.from({ length: 1005 }, (_, i) =>
    event('2025-03-02T00:00:00Z', new Big(i + 1).div(1000).toFixed(), { agent_id: `agent-${String(i).padStart(4, '0')}` }),
  );
  await ingest(p, many, crowd);
  await waitForLake(p, t.organizationId, events.length);
  await waitForLake(p, many.organizationId, crowd.length);
});

afterAll(async () => {
  await p?.stop();
});

describe('GET /attribution-data/by-agent', () => {
  it('groups completed cost by agent with Unassigned; shares by largest remainder sum to 100', async () => {
    const res = await apiGet(p, t.readKey, '/attribution-data/by-agent', W);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Total 1.9375. Hundredths of a percent: a2 5161.29…, a1 3870.96…, a3 645.16…, Unassigned
    // 322.58… → floors sum to 9998; the two largest remainders (a1 .96, Unassigned .58) get one.
    expect(res.body).toEqual({
      items: [item('a2', '1', 1, 51.61), item('a1', '0.75', 2, 38.71), item('a3', '0.125', 1, 6.45), item('Unassigned', '0.0625', 1, 3.23)],
      total_cost: '1.9375',
      total_groups: 4,
      truncated: false,
    });
  });

  it('keeps the costliest 1000 of 1005 groups; total_cost covers all of them', async () => {
    const res = await apiGet(p, many.readKey, '/attribution-data/by-agent', W);
    expect(res.status).toBe(200);
    expect(res.body.total_groups).toBe(1005);
    expect(res.body.truncated).toBe(true);
    expect(res.body.items).toHaveLength(1000);
    // Σ(1..1005)/1000 = 505.515; the five cheapest (0.001..0.005) are dropped.
    expect(res.body.total_cost).toBe('505.515');
    expect(res.body.items[0]).toMatchObject({ attribution_value: 'agent-1004', total_cost: '1.005' });
    expect(res.body.items[999]).toMatchObject({ attribution_value: 'agent-0005', total_cost: '0.006' });
    const hundredths = res.body.items.reduce((s: number, i: any) => s + Math.round(i.percent_of_total * 100), 0);
    expect(hundredths).toBe(10_000);
    // Each share within 0.01 of exact: agent-1004 is 1.005 / (505.515 − 0.015) = 0.19881…%.
    expect(Math.abs(res.body.items[0].percent_of_total - 0.19881)).toBeLessThanOrEqual(0.01);
  });
});

describe('GET /attribution-data/agents and /workflows', () => {
  it('distinct values of the range, sorted, any status', async () => {
    expect((await apiGet(p, t.readKey, '/attribution-data/agents', W)).body).toEqual({
      values: ['a1', 'a2', 'a3', 'a4'],
      truncated: false,
    });
    expect((await apiGet(p, t.readKey, '/attribution-data/workflows', W)).body).toEqual({ values: ['w1', 'w2'], truncated: false });
  });

  it('caps at 1000 values and says so', async () => {
    const res = await apiGet(p, many.readKey, '/attribution-data/agents', W);
    expect(res.body.truncated).toBe(true);
    expect(res.body.values).toHaveLength(1000);
    expect(res.body.values[0]).toBe('agent-0000');
    expect(res.body.values[999]).toBe('agent-0999');
    expect((await apiGet(p, many.readKey, '/attribution-data/workflows', W)).body).toEqual({ values: [], truncated: false });
  });
});

describe('GET /attribution-data/by-dimension', () => {
  it('groups by a metadata key', async () => {
    const res = await apiGet(p, t.readKey, '/attribution-data/by-dimension', { ...W, dimension: 'team' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // blue 1, red 0.875, Unassigned 0.0625 of 1.9375: 5161.29…, 4516.12…, 322.58… → the one
    // missing hundredth goes to Unassigned (.58).
    expect(res.body).toEqual({
      dimension: 'team',
      items: [item('blue', '1', 1, 51.61), item('red', '0.875', 3, 45.16), item('Unassigned', '0.0625', 1, 3.23)],
      total_cost: '1.9375',
      total_groups: 3,
      truncated: false,
    });
  });

  it('filters by another key (Unassigned matches events without it)', async () => {
    const red = await apiGet(p, t.readKey, '/attribution-data/by-dimension', {
      ...W,
      dimension: 'team',
      filter_key: 'agent_id',
      filter_value: 'a1',
    });
    expect(red.body).toMatchObject({ items: [item('red', '0.75', 2, 100)], total_cost: '0.75', total_groups: 1 });
    const w1 = await apiGet(p, t.readKey, '/attribution-data/by-dimension', {
      ...W,
      dimension: 'agent_id',
      filter_key: 'workflow_id',
      filter_value: 'w1',
    });
    // 0.75 / 0.8125 = 92.307…%, 0.0625 / 0.8125 = 7.692…%
    expect(w1.body.items).toEqual([item('a1', '0.75', 2, 92.31), item('Unassigned', '0.0625', 1, 7.69)]);
    const none = await apiGet(p, t.readKey, '/attribution-data/by-dimension', {
      ...W,
      dimension: 'team',
      filter_key: 'team',
      filter_value: 'Unassigned',
    });
    expect(none.body.items).toEqual([item('Unassigned', '0.0625', 1, 100)]);
  });

  it('exports CSV with format=csv or Accept: text/csv', async () => {
    const expected = [
      'attribution_value,total_cost,input_tokens,output_tokens,cache_creation_input_tokens,cache_read_input_tokens,reasoning_tokens,input_cost,output_cost,cache_creation_cost,cache_read_cost,reasoning_cost,event_count,percent_of_total',
      'blue,1,3,2,,,,0,0,,,,1,51.61',
      'red,0.875,9,6,,,,0,0,,,,3,45.16',
      'Unassigned,0.0625,3,2,,,,0,0,,,,1,3.23',
      '',
    ].join('\r\n');
    const qs = new URLSearchParams({ ...W, dimension: 'team' }).toString();
    const byParam = await fetch(`${p.url}/v1/attribution-data/by-dimension?${qs}&format=csv`, {
      headers: { authorization: `Bearer ${t.readKey}` },
    });
    expect(byParam.status).toBe(200);
    expect(byParam.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(byParam.headers.get('x-total-cost')).toBe('1.9375');
    expect(await byParam.text()).toBe(expected);
    const byAccept = await http(p.url, 'GET', `/v1/attribution-data/by-dimension?${qs}`, {
      token: t.readKey,
      headers: { accept: 'text/csv' },
    });
    expect(byAccept.body).toBe(expected);
    const json = await http(p.url, 'GET', `/v1/attribution-data/by-dimension?${qs}`, {
      token: t.readKey,
      headers: { accept: 'application/json, text/csv;q=0.5' },
    });
    expect(json.body.total_cost).toBe('1.9375');
  });

  it('400 naming the parameter', async () => {
    const missing = await apiGet(p, t.readKey, '/attribution-data/by-dimension', W);
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.field).toBe('dimension');
    const half = await apiGet(p, t.readKey, '/attribution-data/by-dimension', { ...W, dimension: 'team', filter_key: 'agent_id' });
    expect(half.status).toBe(400);
    expect(half.body.error.details.field).toBe('filter_value');
    const badFormat = await apiGet(p, t.readKey, '/attribution-data/by-dimension', { ...W, dimension: 'team', format: 'xml' });
    expect(badFormat.status).toBe(400);
  });
});

describe('GET /attribution-data/dimension-values', () => {
  it('distinct values of a metadata key or field in the range, any status', async () => {
    expect((await apiGet(p, t.readKey, '/attribution-data/dimension-values', { ...W, dimension: 'team' })).body).toEqual({
      dimension: 'team',
      values: ['blue', 'green', 'red'],
      truncated: false,
    });
    expect((await apiGet(p, t.readKey, '/attribution-data/dimension-values', { ...W, dimension: 'agent_id' })).body.values).toEqual([
      'a1',
      'a2',
      'a3',
      'a4',
    ]);
    expect((await apiGet(p, t.readKey, '/attribution-data/dimension-values', { ...W, dimension: 'nobody-has-it' })).body).toEqual({
      dimension: 'nobody-has-it',
      values: [],
      truncated: false,
    });
  });
});

describe('auth and isolation', () => {
  it('401 without a key, 403 without costs:read, and one tenant never sees another', async () => {
    expect((await apiGet(p, 'mk_live_nope', '/attribution-data/by-agent', W)).status).toBe(401);
    const key = await issueKey(p, t, ['usage:read', 'revenue:read']);
    for (const path of ['/attribution-data/by-agent', '/attribution-data/agents', '/attribution-data/workflows']) {
      expect((await apiGet(p, key, path, W)).status).toBe(403);
    }
    expect((await apiGet(p, key, '/attribution-data/by-dimension', { ...W, dimension: 'team' })).status).toBe(403);
    const theirs = await apiGet(p, many.readKey, '/attribution-data/dimension-values', { ...W, dimension: 'team' });
    expect(theirs.body.values).toEqual([]);
  });

  it('400 when start is not before end', async () => {
    const res = await apiGet(p, t.readKey, '/attribution-data/by-agent', { start_date: '2025-03-08', end_date: '2025-03-01' });
    expect(res.status).toBe(400);
  });
});
