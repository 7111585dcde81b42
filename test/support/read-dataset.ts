// The read API's data set, shared by the per-capability read tests (usage, cost-data,
// end-user-costs, dimension-data, pricing, read-access, costs): a fixed data set goes through the
// real signed ingest, Kafka, the processor and the lake of a pipeline each test file starts with
// useReadDataset(); every endpoint is checked against figures worked out here from the data set
// and the rates it gave the admin API (big.js, written out below), never by calling the api code.
import Big from 'big.js';
import { Kafka, logLevel } from 'kafkajs';
import { v5 as uuidv5 } from 'uuid';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import {
  apiGet,
  createTenant,
  ingest,
  llmEvent,
  metricEvent,
  startPipeline,
  switchSubscription,
  waitForLake,
  type EventBody,
  type Pipeline,
  type Tenant,
} from './pipeline.js';

// ---------------------------------------------------------------------------------------------
// The data set

export const NOW = new Date('2026-10-20T12:00:00.000Z');

/** Org A's own cards (USD per million tokens) and its per-unit image rate. */
export const A_RATES: Record<string, { input: string; output: string; cc: string | null; cr: string | null; rs: string | null }> = {
  'acme-large': { input: '3', output: '15', cc: '3.75', cr: '0.3', rs: '12' },
  'acme-small': { input: '0.5', output: '1.5', cc: null, cr: null, rs: null },
};
export const B_RATES: typeof A_RATES = { 'acme-large': { input: '1', output: '2', cc: null, cr: null, rs: null } };
const IMAGE_RATE = '0.04';

export interface Ev {
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
export const iso = (m: number, d: number, h = 0, min = 0): string => new Date(Date.UTC(2026, m - 1, d, h, min)).toISOString();

export const A_EVENTS: Ev[] = [];
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
  {
    key: 'img-1',
    ts: iso(10, 5, 10, 30),
    user: 'alice',
    metric: 'Image_Generation',
    unit: 'image',
    quantity: 3,
    provider: 'imagegen',
    metadata: { team: 'red' },
  },
  // cost_override on a model without a card: completed at the override, class costs 0.
  {
    key: 'ovr-1',
    ts: iso(10, 6, 11),
    user: 'bob',
    model: 'mystery-model-x',
    input: 10,
    output: 10,
    override: '0.123456789012',
    metadata: { team: 'blue' },
  },
  // No card: pending_rate_card. A class the card cannot price: pending_rate_card.
  { key: 'pend-1', ts: iso(10, 7, 12), user: 'carol', model: 'mystery-model-x', input: 10, output: 5 },
  { key: 'pend-2', ts: iso(10, 8, 13), user: 'alice', model: 'acme-small', input: 10, output: 5, cr: 7 },
  // Exactly on the bounds of [2026-10-10, 2026-10-12).
  {
    key: 'edge-start',
    ts: '2026-10-10T00:00:00.000Z',
    user: 'alice',
    model: 'acme-large',
    provider: 'acme',
    input: 1,
    output: 1,
    metadata: { team: 'red', latency_ms: 7 },
  },
  {
    key: 'edge-end',
    ts: '2026-10-12T00:00:00.000Z',
    user: 'alice',
    model: 'acme-large',
    provider: 'acme',
    input: 2,
    output: 2,
    metadata: { team: 'red', latency_ms: 9 },
  },
);
// September (the previous period of October) and August.
for (let d = 1; d <= 25; d++) {
  A_EVENTS.push({
    key: `sep-${d}`,
    ts: iso(9, d, 6),
    user: d % 2 ? 'alice' : 'bob',
    model: 'acme-large',
    provider: 'acme',
    input: 2000 + d,
    output: 300 + d,
    metadata: { team: 'gold' },
  });
}
for (const d of [10, 20, 30]) {
  A_EVENTS.push({ key: `aug-${d}`, ts: iso(8, d, 15), user: 'alice', model: 'acme-small', input: 4000 + d, output: 800 });
}
for (const A of A_EVENTS) A.sub ??= 'first';
// Sent after A switched to its second subscription.
export const A_LATE: Ev[] = [0, 1, 2].map((i) => ({
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
export const ALL_A = [...A_EVENTS, ...A_LATE];

export const B_EVENTS: Ev[] = [0, 1, 2, 3, 4].map((i) => ({
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

export interface Priced {
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

export const priceA = (e: Ev) => price(e, A_RATES);
export const money = (b: Big): string => {
  const s = b
    .round(12, Big.roundHalfUp)
    .toFixed(12)
    .replace(/\.?0+$/, '');
  return s === '' || s === '-0' ? '0' : s;
};
export const pct = (part: Big, total: Big): number =>
  total.eq(0) ? 0 : Number(part.times(100).div(total).round(2, Big.roundHalfUp).toFixed(2));
export const within = (e: Ev, start: string, end: string) => e.ts >= new Date(start).toISOString() && e.ts < new Date(end).toISOString();
export const completed = (evs: Ev[], start: string, end: string, rates = A_RATES) =>
  evs.filter((e) => within(e, start, end) && price(e, rates).status === 'completed');
export const sumOf = (evs: Ev[], rates = A_RATES) => evs.reduce((s, e) => s.plus(price(e, rates).total), new Big(0));

/** The spec's cost fields of a group of completed events. */
export function measures(evs: Ev[], rates = A_RATES) {
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
export function breakdown(evs: Ev[], value: (e: Ev) => string | undefined, rates = A_RATES) {
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

export const dayOf = (ts: string) => `${ts.slice(0, 10)}T00:00:00.000Z`;
export const mondayOf = (ts: string) => {
  const d = new Date(ts.slice(0, 10));
  return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * 86_400_000).toISOString();
};
/** Points of buckets that have events, in time order. */
export function points(evs: Ev[], bucket: (ts: string) => string, rates = A_RATES) {
  const by = new Map<string, Ev[]>();
  for (const e of evs) by.set(bucket(e.ts), [...(by.get(bucket(e.ts)) ?? []), e]);
  return [...by.keys()].sort().map((date) => ({ date, cost: money(sumOf(by.get(date)!, rates)), event_count: by.get(date)!.length }));
}

export const endUserId = (org: string, user: string) => uuidv5(`end-user:${user}`, org);
export const eventId = (org: string, key: string) => uuidv5(key, org);
export const metaString = (e: Ev, key: string): string | undefined => {
  const v = e.metadata?.[key];
  return v === undefined || v === null ? undefined : typeof v === 'string' ? v : JSON.stringify(v);
};
/** The typed feature: the top-level field, else metadata.feature. */
export const featureOf = (e: Ev) => e.feature ?? metaString(e, 'feature');

// ---------------------------------------------------------------------------------------------

export let p: Pipeline;
export let A: Tenant;
export let B: Tenant;
export let aSecondSub: string;

/** Registers the data set's setup (once per file) and teardown; p, A, B, aSecondSub are live. */
export function useReadDataset(): void {
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
}

export const get = (key: string, path: string, query: Record<string, string | number | undefined> = {}) => apiGet(p, key, path, query);
export const OCT = { start_date: '2026-10-01', end_date: '2026-10-20' };

export function expectValidation(res: { status: number; body: any }, field: string): void {
  expect(res.status).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
  expect(res.body.error.details.field).toBe(field);
  expect(res.body.error.message).toContain(field);
}

export function expectNotFound(res: { status: number; body: any }): void {
  expect(res.status).toBe(404);
  expect(res.body.error.code).toBe('NOT_FOUND');
}
