// Read API part 1 end to end (spec "GET /usage/events" … "GET /dimension-data/cost-breakdown",
// "Conventions", "Errors", "Limits"; DESIGN.md "Decisions"): a fixed data set goes through the
// real signed ingest, Kafka, the processor and the lake; every endpoint is checked against
// figures this file works out itself from the data set and the rates it gave the admin API
// (big.js, written out below), never by calling the api code.
import Big from 'big.js';
import { Kafka, logLevel } from 'kafkajs';
import { v5 as uuidv5 } from 'uuid';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { costByEndUser, costSummary } from '../../api/cost-data/cost-data.service.js';
import { dimensionCostTrend } from '../../api/dimension-data/dimension-data.service.js';
import { LakeQuery } from '../../api/lake/lake-query.js';
import type { ReadContext } from '../../api/lake/read-context.js';
import { RateBook } from '../../pricing/rate-book.js';
import {
  apiGet,
  createTenant,
  ingest,
  issueKey,
  lakeEventCount,
  llmEvent,
  metricEvent,
  startPipeline,
  switchSubscription,
  waitForLake,
  type EventBody,
  type Pipeline,
  type Tenant,
} from '../support/pipeline.js';

// ---------------------------------------------------------------------------------------------
// The data set

const NOW = new Date('2026-10-20T12:00:00.000Z');

/** Org A's own cards (USD per million tokens) and its per-unit image rate. */
const A_RATES: Record<string, { input: string; output: string; cc: string | null; cr: string | null; rs: string | null }> = {
  'acme-large': { input: '3', output: '15', cc: '3.75', cr: '0.3', rs: '12' },
  'acme-small': { input: '0.5', output: '1.5', cc: null, cr: null, rs: null },
};
const B_RATES: typeof A_RATES = { 'acme-large': { input: '1', output: '2', cc: null, cr: null, rs: null } };
const IMAGE_RATE = '0.04';

interface Ev {
  key: string;
  ts: string;
  user: string | null;
  model?: string;
  provider?: string;
  input?: number;
  output?: number;
  cc?: number;
  cr?: number;
  rs?: number;
  metric?: string;
  unit?: string;
  quantity?: number;
  override?: string;
  feature?: string;
  agent?: string;
  metadata?: Record<string, unknown>;
  /** Which subscription of A was active when it was sent. */
  sub?: 'first' | 'second';
}

const TEAMS = ['red', 'blue', 'green', 'gold', 'gray', 'pink', 'teal'];
const USERS = ['alice', 'bob', 'carol', null];
const iso = (m: number, d: number, h = 0, min = 0): string => new Date(Date.UTC(2026, m - 1, d, h, min)).toISOString();

const A_EVENTS: Ev[] = [];
// October 1–19: three LLM calls a day at 01:xx, 09:xx and 17:xx.
for (let i = 0; i < 57; i++) {
  const large = i % 5 !== 0;
  const metadata: Record<string, unknown> = { region: i % 2 ? 'eu' : 'us' };
  if (i % 9 !== 4) metadata.team = TEAMS[i % 7];
  if (i % 8 !== 3) metadata.latency_ms = (i % 10) * 10 + 0.5;
  if (i % 5 === 3) metadata.feature = 'summarize'; // no top-level feature: metadata's is used
  A_EVENTS.push({
    key: `oct-${i}`,
    ts: iso(10, 1 + Math.floor(i / 3), (i % 3) * 8 + 1, i % 60),
    user: USERS[i % 4]!,
    model: large ? 'acme-large-2026' : 'acme-small',
    provider: large ? 'acme' : undefined,
    input: 1000 + 37 * i,
    output: 200 + 11 * i,
    cr: large && i % 3 === 0 ? 500 + i : undefined,
    cc: large && i % 6 === 2 ? 50 + i : undefined,
    rs: large && i % 4 === 1 ? 100 + i : undefined,
    feature: i % 5 === 3 ? undefined : i % 2 ? 'chat' : 'search',
    agent: i % 3 === 0 ? 'planner' : undefined,
    metadata,
  });
}
A_EVENTS.push(
  // A metric event priced per unit (3 × 0.04); its model is absent.
  { key: 'img-1', ts: iso(10, 5, 10, 30), user: 'alice', metric: 'Image_Generation', unit: 'image', quantity: 3, provider: 'imagegen', metadata: { team: 'red' } },
  // cost_override on a model without a card: completed at the override, class costs 0.
  { key: 'ovr-1', ts: iso(10, 6, 11), user: 'bob', model: 'mystery-model-x', input: 10, output: 10, override: '0.123456789012', metadata: { team: 'blue' } },
  // No card: pending_rate_card. A class the card cannot price: pending_rate_card.
  { key: 'pend-1', ts: iso(10, 7, 12), user: 'carol', model: 'mystery-model-x', input: 10, output: 5 },
  { key: 'pend-2', ts: iso(10, 8, 13), user: 'alice', model: 'acme-small', input: 10, output: 5, cr: 7 },
  // Exactly on the bounds of [2026-10-10, 2026-10-12).
  { key: 'edge-start', ts: '2026-10-10T00:00:00.000Z', user: 'alice', model: 'acme-large', provider: 'acme', input: 1, output: 1, metadata: { team: 'red', latency_ms: 7 } },
  { key: 'edge-end', ts: '2026-10-12T00:00:00.000Z', user: 'alice', model: 'acme-large', provider: 'acme', input: 2, output: 2, metadata: { team: 'red', latency_ms: 9 } },
);
// September (the previous period of October) and August.
for (let d = 1; d <= 25; d++) {
  A_EVENTS.push({ key: `sep-${d}`, ts: iso(9, d, 6), user: d % 2 ? 'alice' : 'bob', model: 'acme-large', provider: 'acme', input: 2000 + d, output: 300 + d, metadata: { team: 'gold' } });
}
for (const d of [10, 20, 30]) {
  A_EVENTS.push({ key: `aug-${d}`, ts: iso(8, d, 15), user: 'alice', model: 'acme-small', input: 4000 + d, output: 800 });
}
for (const A of A_EVENTS) A.sub ??= 'first';
// Sent after A switched to its second subscription.
const A_LATE: Ev[] = [0, 1, 2].map((i) => ({
  key: `late-${i}`,
  ts: iso(10, 18, 20 + i),
  user: 'bob',
  model: 'acme-large',
  provider: 'acme',
  input: 500 + i,
  output: 50,
  metadata: { team: 'teal', latency_ms: 100 + i },
  sub: 'second',
}));
const ALL_A = [...A_EVENTS, ...A_LATE];

const B_EVENTS: Ev[] = [0, 1, 2, 3, 4].map((i) => ({
  key: `b-${i}`,
  ts: iso(10, 2 + i, 9),
  user: i < 3 ? 'alice' : 'dave',
  model: 'acme-large',
  provider: 'acme',
  input: 3000 + i,
  output: 100,
  metadata: { team: 'red' },
}));

function body(e: Ev): EventBody {
  const f: Record<string, unknown> = { timestamp: e.ts };
  if (e.user !== null) f.user_id = e.user;
  const opt: Array<[string, unknown]> = [
    ['model', e.model],
    ['provider', e.provider],
    ['input_tokens', e.input],
    ['output_tokens', e.output],
    ['cache_creation_input_tokens', e.cc],
    ['cache_read_input_tokens', e.cr],
    ['reasoning_tokens', e.rs],
    ['unit', e.unit],
    ['quantity', e.quantity],
    ['cost_override', e.override],
    ['feature', e.feature],
    ['agent_id', e.agent],
    ['metadata', e.metadata],
  ];
  for (const [k, v] of opt) if (v !== undefined) f[k] = v;
  if (e.metric) return metricEvent(e.key, { ...f, metric: e.metric });
  return llmEvent(e.key, f);
}

// ---------------------------------------------------------------------------------------------
// Expected figures, worked out here

interface Priced {
  status: 'completed' | 'pending_rate_card';
  total: Big;
  /** Per class: null when the event did not report it. */
  input: Big | null;
  output: Big | null;
  cc: Big | null;
  cr: Big | null;
  rs: Big | null;
}

function cardFor(rates: typeof A_RATES, model: string) {
  const slug = Object.keys(rates)
    .filter((s) => model.toLowerCase().startsWith(s))
    .sort((a, b) => b.length - a.length)[0];
  return slug ? rates[slug]! : null;
}

function price(e: Ev, rates: typeof A_RATES): Priced {
  const tokens = { input: e.input, output: e.output, cc: e.cc, cr: e.cr, rs: e.rs };
  const zero = (t: number | undefined) => (t === undefined ? null : new Big(0));
  const zeros = { input: zero(tokens.input), output: zero(tokens.output), cc: zero(tokens.cc), cr: zero(tokens.cr), rs: zero(tokens.rs) };
  if (e.override) return { status: 'completed', total: new Big(e.override), ...zeros };
  if (e.metric) return { status: 'completed', total: new Big(e.quantity!).times(IMAGE_RATE), ...zeros };
  const card = cardFor(rates, e.model!);
  const pending: Priced = { status: 'pending_rate_card', total: new Big(0), input: null, output: null, cc: null, cr: null, rs: null };
  if (!card) return pending;
  const cls = (t: number | undefined, rate: string | null): Big | null | 'unpriceable' => {
    if (t === undefined) return null;
    if (rate === null) return t > 0 ? 'unpriceable' : new Big(0);
    return new Big(t).times(rate).div(1_000_000);
  };
  const parts = {
    input: cls(tokens.input, card.input),
    output: cls(tokens.output, card.output),
    cc: cls(tokens.cc, card.cc),
    cr: cls(tokens.cr, card.cr),
    rs: cls(tokens.rs, card.rs),
  };
  if (Object.values(parts).includes('unpriceable')) return pending;
  const p = parts as Record<keyof typeof parts, Big | null>;
  const total = Object.values(p).reduce<Big>((s, v) => (v ? s.plus(v) : s), new Big(0));
  return { status: 'completed', total, ...p };
}

const priceA = (e: Ev) => price(e, A_RATES);
const money = (b: Big): string => {
  const s = b.round(12, Big.roundHalfUp).toFixed(12).replace(/\.?0+$/, '');
  return s === '' || s === '-0' ? '0' : s;
};
const pct = (part: Big, total: Big): number => (total.eq(0) ? 0 : Number(part.times(100).div(total).round(2, Big.roundHalfUp).toFixed(2)));
const within = (e: Ev, start: string, end: string) => e.ts >= new Date(start).toISOString() && e.ts < new Date(end).toISOString();
const completed = (evs: Ev[], start: string, end: string, rates = A_RATES) =>
  evs.filter((e) => within(e, start, end) && price(e, rates).status === 'completed');
const sumOf = (evs: Ev[], rates = A_RATES) => evs.reduce((s, e) => s.plus(price(e, rates).total), new Big(0));

/** The spec's cost fields of a group of completed events. */
function measures(evs: Ev[], rates = A_RATES) {
  const ps = evs.map((e) => price(e, rates));
  const tok = (f: (e: Ev) => number | undefined) => {
    const reported = evs.map(f).filter((v): v is number => v !== undefined);
    return reported.length === 0 ? null : reported.reduce((a, b) => a + b, 0);
  };
  const cost = (f: (p: Priced) => Big | null) => {
    const reported = ps.map(f).filter((v): v is Big => v !== null);
    return reported.length === 0 ? null : money(reported.reduce((a, b) => a.plus(b), new Big(0)));
  };
  return {
    total_cost: money(sumOf(evs, rates)),
    input_tokens: tok((e) => e.input) ?? 0,
    output_tokens: tok((e) => e.output) ?? 0,
    cache_creation_input_tokens: tok((e) => e.cc),
    cache_read_input_tokens: tok((e) => e.cr),
    reasoning_tokens: tok((e) => e.rs),
    input_cost: cost((p) => p.input) ?? '0',
    output_cost: cost((p) => p.output) ?? '0',
    cache_creation_cost: cost((p) => p.cc),
    cache_read_cost: cost((p) => p.cr),
    reasoning_cost: cost((p) => p.rs),
    event_count: evs.length,
  };
}

/** Items grouped by `value` (undefined → Unassigned), costliest first, ties by value. */
function breakdown(evs: Ev[], value: (e: Ev) => string | undefined, rates = A_RATES) {
  const groups = new Map<string, Ev[]>();
  for (const e of evs) {
    const v = value(e) ?? 'Unassigned';
    groups.set(v, [...(groups.get(v) ?? []), e]);
  }
  const total = sumOf(evs, rates);
  const items = [...groups]
    .map(([v, g]) => ({ attribution_value: v, ...measures(g, rates), percent_of_total: pct(sumOf(g, rates), total) }))
    .sort((a, b) => new Big(b.total_cost).cmp(new Big(a.total_cost)) || (a.attribution_value < b.attribution_value ? -1 : 1));
  return { items, total_cost: money(total) };
}

const dayOf = (ts: string) => `${ts.slice(0, 10)}T00:00:00.000Z`;
const mondayOf = (ts: string) => {
  const d = new Date(ts.slice(0, 10));
  return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * 86_400_000).toISOString();
};
/** Points of buckets that have events, in time order. */
function points(evs: Ev[], bucket: (ts: string) => string, rates = A_RATES) {
  const by = new Map<string, Ev[]>();
  for (const e of evs) by.set(bucket(e.ts), [...(by.get(bucket(e.ts)) ?? []), e]);
  return [...by.keys()].sort().map((date) => ({ date, cost: money(sumOf(by.get(date)!, rates)), event_count: by.get(date)!.length }));
}

const endUserId = (org: string, user: string) => uuidv5(`end-user:${user}`, org);
const eventId = (org: string, key: string) => uuidv5(key, org);
const metaString = (e: Ev, key: string): string | undefined => {
  const v = e.metadata?.[key];
  return v === undefined || v === null ? undefined : typeof v === 'string' ? v : JSON.stringify(v);
};
/** The typed feature: the top-level field, else metadata.feature. */
const featureOf = (e: Ev) => e.feature ?? metaString(e, 'feature');

// ---------------------------------------------------------------------------------------------

let p: Pipeline;
let A: Tenant;
let B: Tenant;
let aSecondSub: string;

beforeAll(async () => {
  p = await startPipeline({ now: () => NOW });
  const cards = (rates: typeof A_RATES) =>
    Object.entries(rates).map(([slug, r]) => ({
      model_slug: slug,
      input_cost_per_million: r.input,
      output_cost_per_million: r.output,
      cache_creation_cost_per_million: r.cc,
      cache_read_cost_per_million: r.cr,
      reasoning_cost_per_million: r.rs,
    }));
  A = await createTenant(p, {
    name: 'A',
    rateCards: cards(A_RATES),
    unitRates: [{ provider: 'imagegen', metric: 'image_generation', unit: 'image', cost_per_unit: IMAGE_RATE }],
    dimensions: [
      { key: 'team', value_type: 'string' },
      { key: 'latency_ms', value_type: 'number' },
      { key: 'region', value_type: 'string' },
    ],
  });
  B = await createTenant(p, { name: 'B', rateCards: cards(B_RATES) });
  await ingest(p, A, A_EVENTS.map(body));
  await ingest(p, B, B_EVENTS.map(body));
  aSecondSub = await switchSubscription(p, A);
  await new Promise((r) => setTimeout(r, 400)); // ingest's settings cache (100 ms TTL) sees it
  await ingest(p, A, A_LATE.map(body));
  // An undecodable record keyed by A: the processor stores a `failed` stand-in row for it.
  const kafka = new Kafka({ clientId: 'read-api-test', brokers: inject('kafkaBrokers').split(','), logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'usage-events', messages: [{ key: A.organizationId, value: Buffer.from('not avro') }] });
  await producer.disconnect();
  await waitForLake(p, A.organizationId, ALL_A.length);
  await waitForLake(p, B.organizationId, B_EVENTS.length);
  // The stand-in row follows its dead letter; the test below fails if it never comes.
  await waitForLake(p, A.organizationId, ALL_A.length + 1, 30_000).catch(() => undefined);
}, 300_000);

afterAll(async () => {
  await p?.stop();
});

const get = (key: string, path: string, query: Record<string, string | number | undefined> = {}) => apiGet(p, key, path, query);
const OCT = { start_date: '2026-10-01', end_date: '2026-10-20' };

function expectValidation(res: { status: number; body: any }, field: string): void {
  expect(res.status).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
  expect(res.body.error.details.field).toBe(field);
  expect(res.body.error.message).toContain(field);
}

function expectNotFound(res: { status: number; body: any }): void {
  expect(res.status).toBe(404);
  expect(res.body.error.code).toBe('NOT_FOUND');
}

describe('the lake holds the data set', () => {
  it('every event of A (plus the failed stand-in) and of B, nothing else', async () => {
    expect(await lakeEventCount(p, A.organizationId)).toBe(ALL_A.length + 1);
    expect(await lakeEventCount(p, B.organizationId)).toBe(B_EVENTS.length);
  });
});

// ---------------------------------------------------------------------------------------------

describe('GET /v1/usage/events', () => {
  const processed = (start: string, end: string) =>
    ALL_A.filter((e) => within(e, start, end)).sort((a, b) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : 0));

  it('pages events newest first with the total of all matches', async () => {
    const expected = processed(OCT.start_date, OCT.end_date);
    expect(expected.length).toBe(57 + 6 + 3);
    const res = await get(A.readKey, '/usage/events', { ...OCT, limit: 10, offset: 5 });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(expected.length);
    expect(res.body.limit).toBe(10);
    expect(res.body.offset).toBe(5);
    expect(res.body.events.map((e: any) => e.id)).toEqual(expected.slice(5, 15).map((e) => eventId(A.organizationId, e.key)));
    const all = await get(A.readKey, '/usage/events', OCT);
    expect(all.body.limit).toBe(100);
    expect(all.body.offset).toBe(0);
    expect(all.body.events).toHaveLength(expected.length);
  });

  it('shows an LLM call as ai.inference tokens with input + output and the mapped metadata', async () => {
    const e = A_EVENTS.find((x) => x.key === 'oct-7')!; // team red, latency 70.5, region eu, top-level feature chat
    const res = await get(A.readKey, '/usage/events', { start_date: e.ts, end_date: new Date(Date.parse(e.ts) + 1).toISOString() });
    expect(e.ts).toBe('2026-10-03T09:07:00.000Z');
    expect(res.body.events).toEqual([
      {
        id: eventId(A.organizationId, 'oct-7'),
        event_type: 'ai.inference',
        metric_name: 'tokens',
        quantity: 1000 + 37 * 7 + (200 + 11 * 7),
        event_timestamp: e.ts,
        metadata: { region: 'eu', team: 'red', latency_ms: '70.5', provider: 'acme', feature: 'chat' },
      },
    ]);
  });

  it('shows a metric event with its lowercased name, quantity and unit', async () => {
    const res = await get(A.readKey, '/usage/events', { ...OCT, metric_name: 'image_generation' });
    expect(res.body.total).toBe(1);
    expect(res.body.events).toEqual([
      {
        id: eventId(A.organizationId, 'img-1'),
        event_type: 'ai.inference',
        metric_name: 'image_generation',
        quantity: 3,
        event_timestamp: iso(10, 5, 10, 30),
        metadata: { team: 'red', provider: 'imagegen', units: 'image' },
      },
    ]);
    const tokens = await get(A.readKey, '/usage/events', { ...OCT, metric_name: 'tokens', limit: 1 });
    expect(tokens.body.total).toBe(processed(OCT.start_date, OCT.end_date).length - 1);
    const upper = await get(A.readKey, '/usage/events', { ...OCT, metric_name: 'Image_Generation' });
    expect(upper.body.total).toBe(0); // exact match on the stored lowercase name
  });

  it('date-only bounds are UTC midnight, start inclusive and end exclusive (offsets honoured)', async () => {
    const expected = processed('2026-10-10', '2026-10-12').map((e) => e.key);
    expect(expected).toContain('edge-start');
    expect(expected).not.toContain('edge-end');
    const res = await get(A.readKey, '/usage/events', { start_date: '2026-10-10', end_date: '2026-10-12' });
    expect(res.body.events.map((e: any) => e.id)).toEqual(expected.map((k) => eventId(A.organizationId, k)));
    const offset = await get(A.readKey, '/usage/events', { start_date: '2026-10-10T02:00:00+02:00', end_date: '2026-10-11T20:00:00-04:00' });
    expect(offset.body.total).toBe(expected.length);
  });

  it('filters by subscription; an unknown or foreign subscription is 404', async () => {
    const second = await get(A.readKey, '/usage/events', { ...OCT, subscription_id: aSecondSub });
    expect(second.body.events.map((e: any) => e.id).sort()).toEqual(A_LATE.map((e) => eventId(A.organizationId, e.key)).sort());
    const first = await get(A.readKey, '/usage/events', { ...OCT, subscription_id: A.subscriptionId!, limit: 1 });
    expect(first.body.total).toBe(processed(OCT.start_date, OCT.end_date).length - A_LATE.length);
    expectNotFound(await get(A.readKey, '/usage/events', { ...OCT, subscription_id: B.subscriptionId! }));
    expectNotFound(await get(A.readKey, '/usage/events', { ...OCT, subscription_id: '00000000-0000-4000-8000-000000000000' }));
    expectNotFound(await get(A.readKey, '/usage/events', { ...OCT, subscription_id: 'not-a-uuid' }));
  });

  it('caps the range at 90 days', async () => {
    expect((await get(A.readKey, '/usage/events', { start_date: '2026-07-01', end_date: '2026-09-29' })).status).toBe(200); // 90 days
    expectValidation(await get(A.readKey, '/usage/events', { start_date: '2026-07-01', end_date: '2026-09-29T00:00:00.001Z' }), 'end_date');
  });

  it('rejects limit outside 1–1000 and a negative offset, naming the parameter', async () => {
    expect((await get(A.readKey, '/usage/events', { ...OCT, limit: 1000 })).status).toBe(200);
    expectValidation(await get(A.readKey, '/usage/events', { ...OCT, limit: 0 }), 'limit');
    expectValidation(await get(A.readKey, '/usage/events', { ...OCT, limit: 1001 }), 'limit');
    expectValidation(await get(A.readKey, '/usage/events', { ...OCT, limit: 'ten' }), 'limit');
    expectValidation(await get(A.readKey, '/usage/events', { ...OCT, offset: -1 }), 'offset');
  });

  it('rejects bad dates: missing, malformed, start not strictly before end', async () => {
    expectValidation(await get(A.readKey, '/usage/events', { start_date: '2026-10-01' }), 'end_date');
    expectValidation(await get(A.readKey, '/usage/events', { start_date: '2026-13-01', end_date: '2026-10-02' }), 'start_date');
    expectValidation(await get(A.readKey, '/usage/events', { start_date: '2026-10-02', end_date: '2026-10-02' }), 'start_date');
    expectValidation(await get(A.readKey, '/usage/events', { start_date: '2026-10-03', end_date: '2026-10-02' }), 'start_date');
  });
});

describe('GET /v1/usage/summary and /v1/usage/aggregation', () => {
  const inOct = ALL_A.filter((e) => within(e, OCT.start_date, OCT.end_date));
  const tokenEvents = inOct.filter((e) => !e.metric);
  const tokenQuantity = tokenEvents.reduce((s, e) => s + (e.input ?? 0) + (e.output ?? 0), 0);

  it('sums quantity per metric for the key owner', async () => {
    const res = await get(A.readKey, '/usage/summary', OCT);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user_id: A.ownerUserId,
      period_start: '2026-10-01T00:00:00.000Z',
      period_end: '2026-10-20T00:00:00.000Z',
      total_events: inOct.length,
      metrics: [
        { metric_name: 'image_generation', total_quantity: 3, event_count: 1 },
        { metric_name: 'tokens', total_quantity: tokenQuantity, event_count: tokenEvents.length },
      ],
    });
  });

  it('adds first and last event times per metric', async () => {
    const res = await get(A.readKey, '/usage/aggregation', OCT);
    const times = tokenEvents.map((e) => e.ts).sort();
    expect(res.body).toEqual({
      aggregations: [
        { metric_name: 'image_generation', total_quantity: 3, event_count: 1, first_event_at: iso(10, 5, 10, 30), last_event_at: iso(10, 5, 10, 30) },
        { metric_name: 'tokens', total_quantity: tokenQuantity, event_count: tokenEvents.length, first_event_at: times[0], last_event_at: times.at(-1) },
      ],
      period_start: '2026-10-01T00:00:00.000Z',
      period_end: '2026-10-20T00:00:00.000Z',
      total_events: inOct.length,
    });
    expectValidation(await get(A.readKey, '/usage/summary', { start_date: '2026-10-05', end_date: '2026-10-01' }), 'start_date');
  });
});

// ---------------------------------------------------------------------------------------------

describe('GET /v1/cost-data/summary', () => {
  const lakeCompleted = ALL_A.filter((e) => priceA(e).status === 'completed').length;

  function expectedSummary(cur: [string, string], prev: [string, string]) {
    const c = sumOf(completed(ALL_A, ...cur));
    const pv = sumOf(completed(ALL_A, ...prev));
    return {
      current_period_cost: money(c),
      previous_period_cost: money(pv),
      change_amount: money(c.minus(pv)),
      change_percent: pv.eq(0) ? null : pct(c.minus(pv), pv),
      period_start: new Date(cur[0]).toISOString(),
      period_end: new Date(cur[1]).toISOString(),
      event_count: completed(ALL_A, ...cur).length,
      status_counts: { completed: lakeCompleted, pending: 0, pending_rate_card: 2, failed: 1 },
    };
  }

  it('current-period (default): month to date against the same span of last month', async () => {
    const res = await get(A.readKey, '/cost-data/summary');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expectedSummary(['2026-10-01', '2026-10-20T12:00:00Z'], ['2026-09-01', '2026-09-20T12:00:00Z']));
    expect(res.body.change_percent).not.toBeNull();
  });

  it('last-period: last calendar month against the one before', async () => {
    const res = await get(A.readKey, '/cost-data/summary', { time_window: 'last-period' });
    expect(res.body).toEqual(expectedSummary(['2026-09-01', '2026-10-01'], ['2026-08-01', '2026-09-01']));
  });

  it('last-7-days: a rolling window with sub-day bounds against the 7 days before', async () => {
    const res = await get(A.readKey, '/cost-data/summary', { time_window: 'last-7-days' });
    expect(res.body).toEqual(expectedSummary(['2026-10-13T12:00:00Z', '2026-10-20T12:00:00Z'], ['2026-10-06T12:00:00Z', '2026-10-13T12:00:00Z']));
  });

  it('ytd: change_percent is null when the previous period cost nothing', async () => {
    const res = await get(A.readKey, '/cost-data/summary', { time_window: 'ytd' });
    expect(res.body).toEqual(expectedSummary(['2026-01-01', '2026-10-20T12:00:00Z'], ['2025-01-01', '2025-10-20T12:00:00Z']));
    expect(res.body.change_percent).toBeNull();
  });

  it('400 naming time_window for an unknown window', async () => {
    expectValidation(await get(A.readKey, '/cost-data/summary', { time_window: 'last-week' }), 'time_window');
  });
});

describe('GET /v1/cost-data/by-end-user', () => {
  it('every end user and the unassigned bucket, summing to total_cost', async () => {
    const evs = completed(ALL_A, OCT.start_date, OCT.end_date);
    const { items, total_cost } = breakdown(evs, (e) => (e.user === null ? undefined : endUserId(A.organizationId, e.user)));
    const res = await get(A.readKey, '/cost-data/by-end-user', OCT);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      end_users: items.map(({ attribution_value, ...m }) => {
        const user = ALL_A.find((e) => e.user !== null && endUserId(A.organizationId, e.user) === attribution_value)?.user;
        return attribution_value === 'Unassigned'
          ? { end_user_id: 'unassigned', end_user_name: 'Unassigned', ...m }
          : { end_user_id: attribution_value, end_user_name: user, ...m };
      }),
      total_cost,
    });
    expect(res.body.end_users.map((u: any) => u.end_user_name).sort()).toEqual(['Unassigned', 'alice', 'bob', 'carol']);
  });

  it('400 when start is not before end', async () => {
    expectValidation(await get(A.readKey, '/cost-data/by-end-user', { start_date: '2026-10-02', end_date: '2026-10-01' }), 'start_date');
  });
});

// ---------------------------------------------------------------------------------------------

describe('GET /v1/end-user-costs/{externalId}/…', () => {
  const alice = () => completed(ALL_A, OCT.start_date, OCT.end_date).filter((e) => e.user === 'alice');
  const aliceId = () => endUserId(A.organizationId, 'alice');

  it('summary: totals of the end user', async () => {
    const res = await get(A.readKey, '/end-user-costs/alice/summary', OCT);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      end_user_id: aliceId(),
      external_id: 'alice',
      end_user_name: 'alice',
      period_start: '2026-10-01T00:00:00.000Z',
      period_end: '2026-10-20T00:00:00.000Z',
      ...measures(alice()),
    });
  });

  it('by-model and by-provider (no model or provider → Unassigned)', async () => {
    const byModel = await get(A.readKey, '/end-user-costs/alice/by-model', OCT);
    expect(byModel.body).toEqual({ end_user_id: aliceId(), ...breakdown(alice(), (e) => e.model) });
    expect(byModel.body.items.map((i: any) => i.attribution_value)).toContain('Unassigned');
    const byProvider = await get(A.readKey, '/end-user-costs/alice/by-provider', OCT);
    expect(byProvider.body).toEqual({ end_user_id: aliceId(), ...breakdown(alice(), (e) => e.provider) });
  });

  it('by-dimension: a metadata key, the typed feature, and a key no event carries', async () => {
    const team = await get(A.readKey, '/end-user-costs/alice/by-dimension', { ...OCT, dimension: 'team' });
    expect(team.body).toEqual({ end_user_id: aliceId(), ...breakdown(alice(), (e) => metaString(e, 'team')) });
    const latency = await get(A.readKey, '/end-user-costs/alice/by-dimension', { ...OCT, dimension: 'latency_ms' });
    expect(latency.body).toEqual({ end_user_id: aliceId(), ...breakdown(alice(), (e) => metaString(e, 'latency_ms')) });
    const feature = await get(A.readKey, '/end-user-costs/alice/by-dimension', { ...OCT, dimension: 'feature' });
    expect(feature.body).toEqual({ end_user_id: aliceId(), ...breakdown(alice(), featureOf) });
    expect(feature.body.items.map((i: any) => i.attribution_value)).toContain('summarize');
    // agent_id was sent top-level only: the attribution field answers, as on /attribution-data.
    const agent = await get(A.readKey, '/end-user-costs/alice/by-dimension', { ...OCT, dimension: 'agent_id' });
    expect(agent.body).toEqual({ end_user_id: aliceId(), ...breakdown(alice(), (e) => e.agent) });
    expect(agent.body.items.map((i: any) => i.attribution_value)).toContain('planner');
    const none = await get(A.readKey, '/end-user-costs/alice/by-dimension', { ...OCT, dimension: 'no_such_key' });
    expect(none.body.items).toEqual([{ attribution_value: 'Unassigned', ...measures(alice()), percent_of_total: 100 }]);
    expectValidation(await get(A.readKey, '/end-user-costs/alice/by-dimension', OCT), 'dimension');
  });

  it('trend: daily up to 30 days, weekly from 31 days, gaps omitted', async () => {
    const daily = await get(A.readKey, '/end-user-costs/alice/trend', OCT);
    expect(daily.body).toEqual({
      end_user_id: aliceId(),
      series: [{ key: 'alice', label: 'alice', data_points: points(alice(), dayOf) }],
      granularity: 'daily',
    });
    const range = { start_date: '2026-09-01', end_date: '2026-10-20' }; // 49 days
    const weekly = await get(A.readKey, '/end-user-costs/alice/trend', range);
    const evs = completed(ALL_A, range.start_date, range.end_date).filter((e) => e.user === 'alice');
    expect(weekly.body.granularity).toBe('weekly');
    expect(weekly.body.series[0].data_points).toEqual(points(evs, mondayOf));
    const monthly = await get(A.readKey, '/end-user-costs/alice/trend', { start_date: '2026-07-01', end_date: '2026-10-20' });
    expect(monthly.body.granularity).toBe('monthly');
    const evsM = completed(ALL_A, '2026-07-01', '2026-10-20').filter((e) => e.user === 'alice');
    expect(monthly.body.series[0].data_points).toEqual(points(evsM, (ts) => `${ts.slice(0, 7)}-01T00:00:00.000Z`));
  });

  it('404 for an external id no event ever named; 400 before 404 for bad dates', async () => {
    for (const path of ['summary', 'by-model', 'by-provider', 'trend']) {
      expectNotFound(await get(A.readKey, `/end-user-costs/nobody/${path}`, OCT));
    }
    expectNotFound(await get(A.readKey, '/end-user-costs/nobody/by-dimension', { ...OCT, dimension: 'team' }));
    expectValidation(await get(A.readKey, '/end-user-costs/alice/summary', { start_date: 'yesterday', end_date: '2026-10-02' }), 'start_date');
  });
});

// ---------------------------------------------------------------------------------------------

describe('GET /v1/dimension-data/…', () => {
  const oct = () => completed(ALL_A, OCT.start_date, OCT.end_date);

  it('definitions: the organization’s dimensions by key', async () => {
    const res = await get(A.readKey, '/dimension-data/definitions');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(3);
    expect(res.body.dimensions.map((d: any) => [d.key, d.value_type, d.is_required, d.organization_id])).toEqual([
      ['latency_ms', 'number', false, A.organizationId],
      ['region', 'string', false, A.organizationId],
      ['team', 'string', false, A.organizationId],
    ]);
    const other = await get(B.readKey, '/dimension-data/definitions');
    expect(other.body).toEqual({ dimensions: [], total: 0 });
  });

  it('cost-trend without a dimension: one Total series', async () => {
    const res = await get(A.readKey, '/dimension-data/cost-trend', OCT);
    expect(res.body).toEqual({ series: [{ key: 'total', label: 'Total', data_points: points(oct(), dayOf) }], granularity: 'daily' });
  });

  it('cost-trend with dimension_key: the top 5 values then Other', async () => {
    const team = (e: Ev) => metaString(e, 'team') ?? 'Unassigned';
    const totals = new Map<string, Big>();
    for (const e of oct()) totals.set(team(e), (totals.get(team(e)) ?? new Big(0)).plus(priceA(e).total));
    const ranked = [...totals].sort((a, b) => b[1].cmp(a[1]) || (a[0] < b[0] ? -1 : 1)).map(([v]) => v);
    expect(ranked.length).toBeGreaterThan(5);
    const top = ranked.slice(0, 5);
    const res = await get(A.readKey, '/dimension-data/cost-trend', { ...OCT, dimension_key: 'team' });
    expect(res.body).toEqual({
      series: [
        ...top.map((v) => ({ key: v, label: v, data_points: points(oct().filter((e) => team(e) === v), dayOf) })),
        { key: 'other', label: 'Other', data_points: points(oct().filter((e) => !top.includes(team(e))), dayOf) },
      ],
      granularity: 'daily',
    });
  });

  it('cost-trend with dimension_key and dimension_value: one series of that value', async () => {
    const res = await get(A.readKey, '/dimension-data/cost-trend', { ...OCT, dimension_key: 'team', dimension_value: 'red' });
    expect(res.body).toEqual({
      series: [{ key: 'red', label: 'red', data_points: points(oct().filter((e) => metaString(e, 'team') === 'red'), dayOf) }],
      granularity: 'daily',
    });
    const unassigned = await get(A.readKey, '/dimension-data/cost-trend', { ...OCT, dimension_key: 'team', dimension_value: 'Unassigned' });
    expect(unassigned.body.series[0].data_points).toEqual(points(oct().filter((e) => metaString(e, 'team') === undefined), dayOf));
  });

  it('cost-trend errors: unknown dimension 404, value without key 400', async () => {
    expectNotFound(await get(A.readKey, '/dimension-data/cost-trend', { ...OCT, dimension_key: 'nope' }));
    expectValidation(await get(A.readKey, '/dimension-data/cost-trend', { ...OCT, dimension_value: 'red' }), 'dimension_value');
  });

  // Numeric values count on every processed event (pending ones too), failed ones excepted.
  const numeric = (start: string, end: string) =>
    ALL_A.filter((e) => within(e, start, end) && typeof e.metadata?.latency_ms === 'number').map((e) => ({
      ts: e.ts,
      v: new Big(e.metadata!.latency_ms as number),
    }));

  it('numeric-trend: every bucket, null and 0 where no event carries the key', async () => {
    const range = { start_date: '2026-10-15', end_date: '2026-10-22' };
    const values = numeric(range.start_date, range.end_date);
    const res = await get(A.readKey, '/dimension-data/numeric-trend', { ...range, dimension_key: 'latency_ms', aggregation: 'avg' });
    const expected = [15, 16, 17, 18, 19, 20, 21].map((d) => {
      const date = iso(10, d);
      const vs = values.filter((x) => dayOf(x.ts) === date).map((x) => x.v);
      return {
        date,
        value: vs.length === 0 ? null : money(vs.reduce((a, b) => a.plus(b), new Big(0)).div(vs.length)),
        event_count: vs.length,
      };
    });
    expect(res.body).toEqual({ data_points: expected, granularity: 'daily', aggregation: 'avg', dimension_key: 'latency_ms' });
    expect(expected.filter((x) => x.value === null).length).toBeGreaterThan(0);
  });

  it('numeric-trend: interval overrides granularity; sum, min, max', async () => {
    const values = numeric(OCT.start_date, OCT.end_date);
    const weeks = ['2026-09-28', '2026-10-05', '2026-10-12', '2026-10-19'].map((d) => new Date(d).toISOString());
    for (const aggregation of ['sum', 'min', 'max'] as const) {
      const res = await get(A.readKey, '/dimension-data/numeric-trend', { ...OCT, dimension_key: 'latency_ms', aggregation, interval: 'weekly' });
      expect(res.body.granularity).toBe('weekly');
      expect(res.body.data_points).toEqual(
        weeks.map((date) => {
          const vs = values.filter((x) => mondayOf(x.ts) === date).map((x) => x.v);
          const agg =
            vs.length === 0
              ? null
              : aggregation === 'sum'
                ? vs.reduce((a, b) => a.plus(b), new Big(0))
                : vs.reduce((a, b) => (aggregation === 'min' ? (b.lt(a) ? b : a) : b.gt(a) ? b : a));
          return { date, value: agg === null ? null : money(agg), event_count: vs.length };
        }),
      );
    }
  });

  it('numeric-trend errors: string dimension 400, unknown 404, bad aggregation or interval 400', async () => {
    const base = { ...OCT, aggregation: 'sum' };
    expectValidation(await get(A.readKey, '/dimension-data/numeric-trend', { ...base, dimension_key: 'team' }), 'dimension_key');
    expectNotFound(await get(A.readKey, '/dimension-data/numeric-trend', { ...base, dimension_key: 'nope' }));
    expectValidation(await get(A.readKey, '/dimension-data/numeric-trend', { ...OCT, dimension_key: 'latency_ms', aggregation: 'median' }), 'aggregation');
    expectValidation(await get(A.readKey, '/dimension-data/numeric-trend', { ...base, dimension_key: 'latency_ms', interval: 'hourly' }), 'interval');
  });

  it('numeric-summary: sum, avg, min, max and count over the range', async () => {
    const vs = numeric(OCT.start_date, OCT.end_date).map((x) => x.v);
    const sum = vs.reduce((a, b) => a.plus(b), new Big(0));
    const res = await get(A.readKey, '/dimension-data/numeric-summary', { ...OCT, dimension_key: 'latency_ms' });
    expect(res.body).toEqual({
      dimension_key: 'latency_ms',
      period_start: '2026-10-01T00:00:00.000Z',
      period_end: '2026-10-20T00:00:00.000Z',
      event_count: vs.length,
      sum: money(sum),
      avg: money(sum.div(vs.length)),
      min: money(vs.reduce((a, b) => (b.lt(a) ? b : a))),
      max: money(vs.reduce((a, b) => (b.gt(a) ? b : a))),
    });
  });

  it('cost-breakdown: cost per value, Unassigned for events lacking it, share of the organization total', async () => {
    const { items, total_cost } = breakdown(oct(), (e) => metaString(e, 'team'));
    const res = await get(A.readKey, '/dimension-data/cost-breakdown', { ...OCT, dimension_key: 'team' });
    expect(res.body).toEqual({
      items: items.map((i) => ({
        dimension_value: i.attribution_value,
        total_cost: i.total_cost,
        input_tokens: i.input_tokens,
        output_tokens: i.output_tokens,
        event_count: i.event_count,
        percent_of_total: i.percent_of_total,
      })),
      total_cost,
    });
    expect(total_cost).toBe(money(sumOf(oct())));
    expectNotFound(await get(A.readKey, '/dimension-data/cost-breakdown', { ...OCT, dimension_key: 'nope' }));
    expectValidation(await get(A.readKey, '/dimension-data/cost-breakdown', OCT), 'dimension_key');
  });
});

// ---------------------------------------------------------------------------------------------

describe('GET /v1/rates', () => {
  it('the organization’s cards replace standard ones; sorted by slug; null rates kept', async () => {
    const res = await get(A.readKey, '/rates');
    expect(res.status).toBe(200);
    const slugs = res.body.items.map((i: any) => i.model_slug);
    expect(slugs).toEqual([...slugs].sort());
    expect(res.body.items.find((i: any) => i.model_slug === 'acme-large')).toEqual({
      model_slug: 'acme-large',
      input_cost_per_million: '3',
      cache_creation_cost_per_million: '3.75',
      cache_read_cost_per_million: '0.3',
      output_cost_per_million: '15',
      reasoning_cost_per_million: '12',
    });
    expect(res.body.items.find((i: any) => i.model_slug === 'acme-small')).toMatchObject({ cache_read_cost_per_million: null, reasoning_cost_per_million: null });
    expect(slugs.length).toBeGreaterThan(2); // the standard cards are there too
    const b = await get(B.readKey, '/rates');
    expect(b.body.items.find((i: any) => i.model_slug === 'acme-large').input_cost_per_million).toBe('1');
    expect(b.body.items.find((i: any) => i.model_slug === 'acme-small')).toBeUndefined();
    expectValidation(await get(A.readKey, '/rates', { as_of: 'soon' }), 'as_of');
  });
});

// ---------------------------------------------------------------------------------------------

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
    expect(summary.body.current_period_cost).toBe(money(sumOf(completed(B_EVENTS, '2026-10-01', '2026-10-20T12:00:00Z', B_RATES), B_RATES)));
  });

  it('A’s end users, subscriptions and dimensions are not found with B’s key', async () => {
    expectNotFound(await get(B.readKey, '/end-user-costs/carol/summary', OCT));
    const alice = await get(B.readKey, '/end-user-costs/alice/summary', OCT);
    expect(alice.body.end_user_id).toBe(endUserId(B.organizationId, 'alice'));
    expect(alice.body.total_cost).toBe(money(sumOf(B_EVENTS.filter((e) => e.user === 'alice'), B_RATES)));
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

describe('rollups answer what the raw events answer', () => {
  it('summary, by-end-user and cost-trend agree between the rollup path and the raw-event path', async () => {
    const raw = await LakeQuery.open(p.lakeDir, { useRollups: false });
    const rolled = await LakeQuery.open(p.lakeDir);
    try {
      const rc = (lake: LakeQuery): ReadContext => ({
        organizationId: A.organizationId,
        ownerUserId: null,
        lake,
        db: p.host.db,
        rateBook: new RateBook(p.host.db),
        now: () => NOW,
      });
      for (const w of ['current-period', 'last-7-days', 'last-period']) {
        expect(await costSummary(rc(rolled), w)).toEqual(await costSummary(rc(raw), w));
      }
      const sub = ['2026-10-03T05:00:00Z', '2026-10-17T13:30:00Z'] as const;
      expect(await costByEndUser(rc(rolled), ...sub)).toEqual(await costByEndUser(rc(raw), ...sub));
      const q = { start_date: sub[0], end_date: sub[1], dimension_key: 'team' };
      expect(await dimensionCostTrend(rc(rolled), q)).toEqual(await dimensionCostTrend(rc(raw), q));
      const totalQ = { start_date: sub[0], end_date: sub[1] };
      const total = await dimensionCostTrend(rc(rolled), totalQ);
      expect(total).toEqual(await dimensionCostTrend(rc(raw), totalQ));
      // And both match the data set.
      expect(total.series[0]!.data_points).toEqual(points(completed(ALL_A, ...sub), dayOf));
    } finally {
      raw.close();
      rolled.close();
    }
  });
});

describe('status_counts.pending: accepted but not yet in the lake', () => {
  it('counts ledger events the processor has not stored', async () => {
    const q = await startPipeline({ processor: false, now: () => NOW });
    try {
      const t = await createTenant(q);
      await ingest(q, t, [llmEvent('p-1', { timestamp: iso(10, 2) }), llmEvent('p-2', { timestamp: iso(10, 3) }), llmEvent('p-3', { timestamp: iso(10, 4) })]);
      const res = await apiGet(q, t.readKey, '/cost-data/summary');
      expect(res.body.status_counts).toEqual({ completed: 0, pending: 3, pending_rate_card: 0, failed: 0 });
      expect(res.body.current_period_cost).toBe('0');
      expect(res.body.event_count).toBe(0);
    } finally {
      await q.stop();
    }
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
