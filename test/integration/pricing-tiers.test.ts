// Pricing as providers bill, end to end: an organization card with a long-context tier, a batch
// card and a one-hour cache-write rate set through the admin API; events through signed ingest,
// the processor and the lake; then GET /v1/usage/events/{id} (cost breakdown and card used),
// GET /v1/rates (tiers shown), GET /v1/rates/unpriced and the cost endpoint's total. Every figure
// is worked out by hand below.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventIdFor } from '../../core/ids.js';
import { admin } from '../support/http.js';
import { apiGet, createTenant, ingest, llmEvent, startPipeline, waitForLake, type Pipeline, type Tenant } from '../support/pipeline.js';

let p: Pipeline;
let t: Tenant;
let results: Awaited<ReturnType<typeof ingest>>;
const NOW = Date.now();
const AT = new Date(NOW - 10 * 60_000).toISOString();
const RANGE = { start_date: new Date(NOW - 86_400_000).toISOString(), end_date: new Date(NOW + 86_400_000).toISOString() };

const CARD = {
  model_slug: 'acme-llm',
  input_cost_per_million: '2',
  output_cost_per_million: '8',
  cache_creation_cost_per_million: '2.5',
  cache_creation_1h_cost_per_million: '4',
  cache_read_cost_per_million: '0.2',
  reasoning_cost_per_million: '8',
  effective_from: '2020-01-01',
  tiers: [
    {
      above_prompt_tokens: 100_000,
      input_cost_per_million: '4',
      output_cost_per_million: '16',
      cache_creation_cost_per_million: '5',
      cache_creation_1h_cost_per_million: '8',
      cache_read_cost_per_million: '0.4',
      reasoning_cost_per_million: '16',
    },
  ],
};
const BATCH = {
  model_slug: 'acme-llm',
  service_tier: 'batch',
  input_cost_per_million: '1',
  output_cost_per_million: '4',
  effective_from: '2020-01-01',
};

const EVENTS = [
  // 150,000 prompt tokens > 100,000: 150,000 × 4 / 1e6 = 0.6; 1,000 × 16 / 1e6 = 0.016 → 0.616
  llmEvent('long', { model: 'acme-llm', input_tokens: 150_000, output_tokens: 1_000, timestamp: AT }),
  // batch: 10,000 × 1 / 1e6 = 0.01; 1,000 × 4 / 1e6 = 0.004 → 0.014
  llmEvent('batch', { model: 'acme-llm', service_tier: 'batch', input_tokens: 10_000, output_tokens: 1_000, timestamp: AT }),
  // flex has no card: standard 10,000 × 2 / 1e6 = 0.02; 1,000 × 8 / 1e6 = 0.008 → 0.028, flagged
  llmEvent('flex', { model: 'acme-llm', service_tier: 'flex', input_tokens: 10_000, output_tokens: 1_000, timestamp: AT }),
  // 3,000 written, 1,000 for an hour: 2,000 × 2.5 / 1e6 = 0.005 + 1,000 × 4 / 1e6 = 0.004 → 0.009;
  // input 1,000 × 2 / 1e6 = 0.002; output 100 × 8 / 1e6 = 0.0008 → total 0.0118
  llmEvent('cache', {
    model: 'acme-llm',
    input_tokens: 1_000,
    output_tokens: 100,
    cache_creation_input_tokens: 3_000,
    cache_creation_1h_input_tokens: 1_000,
    timestamp: AT,
  }),
  // no card: waits
  llmEvent('unknown', { model: 'mystery-model-2', input_tokens: 10, output_tokens: 10, timestamp: AT }),
];
const TOTAL = '0.6698'; // 0.616 + 0.014 + 0.028 + 0.0118

beforeAll(async () => {
  p = await startPipeline();
  t = await createTenant(p, { rateCards: [CARD, BATCH] });
  results = await ingest(p, t, EVENTS);
  await waitForLake(p, t.organizationId, EVENTS.length);
});
afterAll(async () => {
  await p?.stop();
});

const idOf = (key: string) => eventIdFor(t.organizationId, key);

describe('ingest flags a service tier without its own card', () => {
  it('flex is accepted_flagged with the reason; batch is not', () => {
    expect(results.map((r) => r.status)).toEqual(['accepted', 'accepted', 'accepted_flagged', 'accepted', 'accepted_flagged']);
    expect(results[2]!.flag_reason).toBe('no "flex" service tier card for "acme-llm"; priced at the standard card');
  });
});

describe('GET /v1/usage/events/{eventId}', () => {
  it('a long-context request: the tier rates, the card and its tier', async () => {
    const res = await apiGet(p, t.readKey, `/usage/events/${idOf('long')}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: idOf('long'),
      event_type: 'ai.inference',
      metric_name: 'tokens',
      quantity: 151_000,
      status: 'completed',
      status_reason: null,
      pricing_note: null,
      service_tier: null,
      input_tokens: 150_000,
      cost: { total_cost: '0.616', input_cost: '0.6', output_cost: '0.016', cache_creation_cost: null, cost_override: null },
      rate_card: {
        model_slug: 'acme-llm',
        service_tier: 'standard',
        effective_from: '2020-01-01T00:00:00.000Z',
        context_tier_above_prompt_tokens: 100_000,
      },
    });
    const cards = await admin(p.host, 'GET', `/organizations/${t.organizationId}/rate-cards`);
    const standardCard = cards.body.rate_cards.find((c: any) => c.service_tier === 'standard');
    expect(res.body.rate_card.rate_card_id).toBe(standardCard.rate_card_id);
    expect(standardCard.tiers).toEqual([{ ...CARD.tiers[0] }]);
  });

  it('batch at the batch card; flex at the standard card with the note', async () => {
    const batch = (await apiGet(p, t.readKey, `/usage/events/${idOf('batch')}`)).body;
    expect(batch).toMatchObject({
      service_tier: 'batch',
      cost: { total_cost: '0.014' },
      rate_card: { service_tier: 'batch', context_tier_above_prompt_tokens: null },
    });
    const flex = (await apiGet(p, t.readKey, `/usage/events/${idOf('flex')}`)).body;
    expect(flex).toMatchObject({
      service_tier: 'flex',
      cost: { total_cost: '0.028' },
      rate_card: { service_tier: 'standard' },
      pricing_note: 'no "flex" service tier card for "acme-llm"; priced at the standard card',
      flag_reason: 'no "flex" service tier card for "acme-llm"; priced at the standard card',
    });
  });

  it('one-hour and five-minute cache writes', async () => {
    const res = (await apiGet(p, t.readKey, `/usage/events/${idOf('cache')}`)).body;
    expect(res).toMatchObject({
      cache_creation_input_tokens: 3_000,
      cache_creation_1h_input_tokens: 1_000,
      cost: {
        total_cost: '0.0118',
        input_cost: '0.002',
        output_cost: '0.0008',
        cache_creation_cost: '0.009',
        cache_creation_1h_cost: '0.004',
      },
    });
  });

  it("an unpriced event has no card; unknown ids and other organizations' ids are 404", async () => {
    const res = (await apiGet(p, t.readKey, `/usage/events/${idOf('unknown')}`)).body;
    expect(res).toMatchObject({ status: 'pending_rate_card', rate_card: null, cost: { total_cost: '0', input_cost: null } });
    expect(res.status_reason).toMatch(/no rate card for model "mystery-model-2"/);
    const other = await createTenant(p, { name: 'other' });
    for (const [key, id] of [
      [other.readKey, idOf('long')],
      [t.readKey, eventIdFor(t.organizationId, 'never-sent')],
      [t.readKey, 'not-a-uuid'],
    ] as const) {
      const r = await apiGet(p, key, `/usage/events/${id}`);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    }
  });
});

describe('GET /v1/rates/unpriced', () => {
  it('lists the model waiting for a card with its count, first and last seen and a sample', async () => {
    const res = await apiGet(p, t.readKey, '/rates/unpriced', RANGE);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: [
        {
          model: 'mystery-model-2',
          provider: null,
          metric: null,
          unit: null,
          event_count: 1,
          first_seen: AT,
          last_seen: AT,
          sample_event_id: idOf('unknown'),
          sample_reason: `no rate card for model "mystery-model-2" at ${AT}`,
        },
      ],
      total_events: 1,
      period_start: RANGE.start_date,
      period_end: RANGE.end_date,
    });
    const bad = await apiGet(p, t.readKey, '/rates/unpriced', { start_date: RANGE.end_date, end_date: RANGE.start_date });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('start_date');
  });
});

describe('the other endpoints agree', () => {
  it('cost by end user totals the hand-worked sum; /rates shows the tier and the batch card', async () => {
    const costs = await apiGet(p, t.readKey, '/cost-data/by-end-user', RANGE);
    expect(costs.body.total_cost).toBe(TOTAL);
    const rates = await apiGet(p, t.readKey, '/rates');
    expect(rates.body.items.find((i: any) => i.model_slug === 'acme-llm')).toEqual({
      model_slug: 'acme-llm',
      input_cost_per_million: '2',
      cache_creation_cost_per_million: '2.5',
      cache_read_cost_per_million: '0.2',
      output_cost_per_million: '8',
      reasoning_cost_per_million: '8',
      cache_creation_1h_cost_per_million: '4',
      tiers: CARD.tiers,
      service_tiers: [
        {
          service_tier: 'batch',
          input_cost_per_million: '1',
          cache_creation_cost_per_million: null,
          cache_read_cost_per_million: null,
          output_cost_per_million: '4',
          reasoning_cost_per_million: null,
        },
      ],
    });
  });

  it('the admin API refuses bad tiers, naming the field', async () => {
    const base = `/organizations/${t.organizationId}/rate-cards`;
    const twice = await admin(p.host, 'POST', base, { ...CARD, effective_from: '2021-01-01', tiers: [CARD.tiers[0], CARD.tiers[0]] });
    expect(twice.status).toBe(400);
    expect(twice.body.error.details.field).toBe('tiers');
    const badRate = await admin(p.host, 'POST', base, {
      ...CARD,
      effective_from: '2021-01-01',
      tiers: [{ ...CARD.tiers[0], input_cost_per_million: '-1' }],
    });
    expect(badRate.status).toBe(400);
    expect(badRate.body.error.details.field).toMatch(/tiers/);
  });
});

describe('re-pricing through the admin API (in-process processor, PGlite)', () => {
  it('with unchanged cards the job completes with every event examined and nothing changed', async () => {
    const base = `/organizations/${t.organizationId}/repricings`;
    const bad = await admin(p.host, 'POST', base, { start_date: RANGE.end_date, end_date: RANGE.start_date });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('start_date');
    expect((await admin(p.host, 'GET', `${base}/${eventIdFor(t.organizationId, 'x')}`)).status).toBe(404);
    const created = await admin(p.host, 'POST', base, RANGE);
    expect(created.status).toBe(202);
    // five events, none failed; the waiting one is examined too
    expect(created.body).toMatchObject({ status: 'running', events_total: 5, partitions_total: 1 });
    const path = `${base}/${created.body.repricing_id}`;
    const deadline = Date.now() + 60_000;
    let job = created.body;
    while (job.status !== 'completed' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      job = (await admin(p.host, 'GET', path)).body;
    }
    expect(job).toMatchObject({
      status: 'completed',
      events_repriced: 5,
      events_changed: 0,
      cost_before: TOTAL,
      cost_after: TOTAL,
      cost_change: '0',
      progress_percent: 100,
    });
    expect((await apiGet(p, t.readKey, '/cost-data/by-end-user', RANGE)).body.total_cost).toBe(TOTAL);
  });
});
