// Read API, GET /v1/usage/events, /v1/usage/summary and /v1/usage/aggregation: end to end over the
// shared data set (test/support/read-dataset.ts); every figure is worked out there from the data
// set and its rates, never by calling the api code.
import { describe, expect, it } from 'vitest';
import {
  A,
  A_EVENTS,
  A_LATE,
  ALL_A,
  aSecondSub,
  B,
  eventId,
  expectNotFound,
  expectValidation,
  get,
  iso,
  OCT,
  useReadDataset,
  within,
} from '../support/read-dataset.js';

useReadDataset();

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
    const offset = await get(A.readKey, '/usage/events', {
      start_date: '2026-10-10T02:00:00+02:00',
      end_date: '2026-10-11T20:00:00-04:00',
    });
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
        {
          metric_name: 'image_generation',
          total_quantity: 3,
          event_count: 1,
          first_event_at: iso(10, 5, 10, 30),
          last_event_at: iso(10, 5, 10, 30),
        },
        {
          metric_name: 'tokens',
          total_quantity: tokenQuantity,
          event_count: tokenEvents.length,
          first_event_at: times[0],
          last_event_at: times.at(-1),
        },
      ],
      period_start: '2026-10-01T00:00:00.000Z',
      period_end: '2026-10-20T00:00:00.000Z',
      total_events: inOct.length,
    });
    expectValidation(await get(A.readKey, '/usage/summary', { start_date: '2026-10-05', end_date: '2026-10-01' }), 'start_date');
  });
});
