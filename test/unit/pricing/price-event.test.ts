import { describe, expect, it } from 'vitest';
import { buildTokenRateIndex, buildUnitRateIndex, type TokenRateCard, type UnitRate } from '../../../pricing/rate-card-match.js';
import { hasRateFor, missingRateReason, priceEvent, type PricingRates } from '../../../pricing/price-event.js';
import type { UsageEvent } from '../../../schemas/usage-event.js';
import { NO_PROVENANCE } from '../../../core/lake/events-schema.js';
import { usageEvent } from '../../support/usage-event-builder.js';

function card(slug: string, from: string, rates: Partial<TokenRateCard>): TokenRateCard {
  return {
    model_slug: slug,
    input_cost_per_million: '0',
    output_cost_per_million: '0',
    cache_creation_cost_per_million: null,
    cache_read_cost_per_million: null,
    reasoning_cost_per_million: null,
    effective_from: new Date(from),
    ...rates,
  };
}

const tokenCards: TokenRateCard[] = [
  card('gpt-4o', '2024-01-01', {
    input_cost_per_million: '2.5',
    output_cost_per_million: '10',
    cache_creation_cost_per_million: '2.5',
    cache_read_cost_per_million: '1.25',
  }),
  card('gpt-4o-mini', '2024-01-01', { input_cost_per_million: '0.15', output_cost_per_million: '0.6' }),
  card('claude-test', '2024-01-01', {
    input_cost_per_million: '3',
    output_cost_per_million: '15',
    cache_creation_cost_per_million: '3.75',
    cache_read_cost_per_million: '0.30',
    reasoning_cost_per_million: '15',
  }),
  card('reasoner', '2024-01-01', {
    input_cost_per_million: '2',
    output_cost_per_million: '8',
    cache_read_cost_per_million: '0.5',
    reasoning_cost_per_million: '8',
  }),
  // A price change mid-range: $2/$8 until 2026-06-01, then $1/$4.
  card('gpt-x', '2026-01-01', { input_cost_per_million: '2', output_cost_per_million: '8' }),
  card('gpt-x', '2026-06-01', { input_cost_per_million: '1', output_cost_per_million: '4' }),
  card('tiny', '2024-01-01', { input_cost_per_million: '0.0000001', output_cost_per_million: '0' }),
];

const unitRates: UnitRate[] = [
  {
    model: 'image-model-1',
    provider: null,
    metric: 'image_generation',
    unit: 'image',
    cost_per_unit: '0.04',
    effective_from: new Date('2024-01-01'),
  },
  {
    model: null,
    provider: 'acme',
    metric: 'image_generation',
    unit: 'image',
    cost_per_unit: '0.05',
    effective_from: new Date('2024-01-01'),
  },
  {
    model: null,
    provider: 'acme',
    metric: 'transcription',
    unit: 'minute',
    cost_per_unit: '0.006',
    effective_from: new Date('2024-01-01'),
  },
];

const rates: PricingRates = { tokenCards: buildTokenRateIndex(tokenCards), unitRates: buildUnitRateIndex(unitRates) };

// Events happen at 2026-03-01T12:00Z (the pending reasons below name it) unless a test says otherwise.
const event = (overrides: Partial<UsageEvent>): UsageEvent => usageEvent({ timestamp: new Date('2026-03-01T12:00:00Z'), ...overrides });

describe('priceEvent: token events', () => {
  it('prices input and output at their own rates', () => {
    // input 1000 × 2.5 / 1e6 = 0.0025; output 500 × 10 / 1e6 = 0.005; total 0.0075
    expect(priceEvent(event({ model: 'gpt-4o', input_tokens: 1000, output_tokens: 500 }), rates)).toEqual({
      status: 'completed',
      input_cost: '0.0025',
      output_cost: '0.005',
      cache_creation_cost: null,
      cache_read_cost: null,
      reasoning_cost: null,
      unit_cost: null,
      total_cost: '0.0075',
      rate_card_slug: 'gpt-4o',
      pending_reason: null,
      cache_creation_1h_cost: null,
      rate_card_id: 'standard:gpt-4o:standard:2024-01-01T00:00:00.000Z',
      rate_card_effective_from: new Date('2024-01-01'),
      rate_card_service_tier: 'standard',
      context_tier_above_prompt_tokens: null,
      time_of_day_window: null,
      pricing_note: null,
    });
  });

  it('gpt-4o-mini variants use the gpt-4o-mini card, not gpt-4o', () => {
    // input 2000 × 0.15 / 1e6 = 0.0003; output 1000 × 0.6 / 1e6 = 0.0006; total 0.0009
    const priced = priceEvent(event({ model: 'gpt-4o-mini-2024-07-18', input_tokens: 2000, output_tokens: 1000 }), rates);
    expect(priced).toMatchObject({ input_cost: '0.0003', output_cost: '0.0006', total_cost: '0.0009', rate_card_slug: 'gpt-4o-mini' });
  });

  it('a dated snapshot and any letter case match the family slug', () => {
    // input 1000 × 2.5 / 1e6 = 0.0025; output 1000 × 10 / 1e6 = 0.01; total 0.0125
    for (const model of ['gpt-4o-2024-08-06', 'GPT-4O-2024-08-06']) {
      expect(priceEvent(event({ model, input_tokens: 1000, output_tokens: 1000 }), rates)).toMatchObject({
        total_cost: '0.0125',
        rate_card_slug: 'gpt-4o',
      });
    }
  });

  it('prices cache creation, cache read, input and output as disjoint classes', () => {
    // input        100 × 3    / 1e6 = 0.0003
    // cache write 2000 × 3.75 / 1e6 = 0.0075
    // cache read 50000 × 0.30 / 1e6 = 0.015
    // output       700 × 15   / 1e6 = 0.0105
    // total 0.0003 + 0.0075 + 0.015 + 0.0105 = 0.0333
    const priced = priceEvent(
      event({
        model: 'claude-test',
        input_tokens: 100,
        cache_creation_input_tokens: 2000,
        cache_read_input_tokens: 50000,
        output_tokens: 700,
      }),
      rates,
    );
    expect(priced).toEqual({
      status: 'completed',
      input_cost: '0.0003',
      output_cost: '0.0105',
      cache_creation_cost: '0.0075',
      cache_read_cost: '0.015',
      reasoning_cost: null,
      unit_cost: null,
      total_cost: '0.0333',
      rate_card_slug: 'claude-test',
      pending_reason: null,
      cache_creation_1h_cost: null,
      rate_card_id: 'standard:claude-test:standard:2024-01-01T00:00:00.000Z',
      rate_card_effective_from: new Date('2024-01-01'),
      rate_card_service_tier: 'standard',
      context_tier_above_prompt_tokens: null,
      time_of_day_window: null,
      pricing_note: null,
    });
  });

  it('prices reasoning tokens at the reasoning rate', () => {
    // input 1200 × 2 / 1e6 = 0.0024; output 300 × 8 / 1e6 = 0.0024; reasoning 3000 × 8 / 1e6 = 0.024
    // total 0.0024 + 0.0024 + 0.024 = 0.0288
    const priced = priceEvent(event({ model: 'reasoner', input_tokens: 1200, output_tokens: 300, reasoning_tokens: 3000 }), rates);
    expect(priced).toMatchObject({ input_cost: '0.0024', output_cost: '0.0024', reasoning_cost: '0.024', total_cost: '0.0288' });
  });

  it('huge token counts stay exact', () => {
    // 123456789 × 2.5 / 1e6 = 308.6419725
    // output 987654321 × 10 / 1e6 = 9876.54321; total 308.6419725 + 9876.54321 = 10185.1851825
    const priced = priceEvent(event({ model: 'gpt-4o', input_tokens: 123456789, output_tokens: 987654321 }), rates);
    expect(priced).toMatchObject({ input_cost: '308.6419725', output_cost: '9876.54321', total_cost: '10185.1851825' });
  });

  it('stays exact when the costs pass 2^53 units of 10^-12 USD', () => {
    // input 900000000 × 2.5 / 1e6 = 2250 (2.25e15 units); output 3000000000 × 10 / 1e6 = 30000
    // (3e16 units, past 2^53 ≈ 9.007e15); total 32250
    const priced = priceEvent(event({ model: 'gpt-4o', input_tokens: 900_000_000, output_tokens: 3_000_000_000 }), rates);
    expect(priced).toMatchObject({ input_cost: '2250', output_cost: '30000', total_cost: '32250' });
    // 9007199254740992 (2^53, itself no longer a safe integer) × 0.15 / 1e6 = 1351079888.2111488
    expect(priceEvent(event({ model: 'gpt-4o-mini', input_tokens: 2 ** 53 }), rates)).toMatchObject({ input_cost: '1351079888.2111488' });
  });

  it('has no binary-float error', () => {
    // 7 × 0.30 / 1e6 = 0.0000021 exactly (in floats 7 * 0.3 / 1e6 is 0.0000021000000000000002)
    expect(priceEvent(event({ model: 'claude-test', cache_read_input_tokens: 7 }), rates)).toMatchObject({
      cache_read_cost: '0.0000021',
      total_cost: '0.0000021',
    });
  });

  it('rounds each class half-up to 12 fractional digits and sums the rounded parts', () => {
    // 5 tokens × 0.0000001 / 1e6 = 0.0000000000005 → 12 dp half-up → 0.000000000001
    expect(priceEvent(event({ model: 'tiny', input_tokens: 5, output_tokens: 0 }), rates)).toMatchObject({
      input_cost: '0.000000000001',
      output_cost: '0',
      total_cost: '0.000000000001',
    });
    // 4 tokens × 0.0000001 / 1e6 = 0.0000000000004 → rounds down to 0
    expect(priceEvent(event({ model: 'tiny', input_tokens: 4 }), rates)).toMatchObject({ input_cost: '0', total_cost: '0' });
  });

  it('uses the card in effect at the event timestamp across a price change', () => {
    // before 2026-06-01: 1000 × 2 / 1e6 + 1000 × 8 / 1e6 = 0.002 + 0.008 = 0.01
    const before = event({ model: 'gpt-x', input_tokens: 1000, output_tokens: 1000, timestamp: new Date('2026-05-31T23:59:59.999Z') });
    expect(priceEvent(before, rates).total_cost).toBe('0.01');
    // from 2026-06-01: 1000 × 1 / 1e6 + 1000 × 4 / 1e6 = 0.001 + 0.004 = 0.005
    const after = event({ model: 'gpt-x', input_tokens: 1000, output_tokens: 1000, timestamp: new Date('2026-06-01T00:00:00Z') });
    expect(priceEvent(after, rates).total_cost).toBe('0.005');
    // before the first card: pending
    const tooEarly = event({ model: 'gpt-x', input_tokens: 1000, output_tokens: 1000, timestamp: new Date('2025-12-31T00:00:00Z') });
    expect(priceEvent(tooEarly, rates).status).toBe('pending_rate_card');
  });

  it('a class with tokens and a null rate leaves the event pending_rate_card', () => {
    // gpt-4o-mini has no cache_read rate here.
    const priced = priceEvent(event({ model: 'gpt-4o-mini', input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 10 }), rates);
    expect(priced).toEqual({
      status: 'pending_rate_card',
      input_cost: null,
      output_cost: null,
      cache_creation_cost: null,
      cache_read_cost: null,
      reasoning_cost: null,
      unit_cost: null,
      total_cost: '0',
      rate_card_slug: 'gpt-4o-mini',
      pending_reason: 'rate card "gpt-4o-mini" has no cache read rate',
      cache_creation_1h_cost: null,
      ...NO_PROVENANCE,
    });
  });

  it('a null-rate class with null or zero tokens is fine', () => {
    // 100 × 0.15 / 1e6 = 0.000015; 10 × 0.6 / 1e6 = 0.000006; total 0.000021
    const notReported = priceEvent(event({ model: 'gpt-4o-mini', input_tokens: 100, output_tokens: 10 }), rates);
    expect(notReported).toMatchObject({ status: 'completed', cache_read_cost: null, reasoning_cost: null, total_cost: '0.000021' });
    const zero = priceEvent(
      event({ model: 'gpt-4o-mini', input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 0, reasoning_tokens: 0 }),
      rates,
    );
    expect(zero).toMatchObject({ status: 'completed', cache_read_cost: '0', reasoning_cost: '0', total_cost: '0.000021' });
  });

  it('no card for the model: pending_rate_card with total 0', () => {
    const priced = priceEvent(event({ model: 'unknown-model', input_tokens: 10, output_tokens: 10 }), rates);
    expect(priced).toMatchObject({
      status: 'pending_rate_card',
      total_cost: '0',
      input_cost: null,
      rate_card_slug: null,
      pending_reason: 'no rate card for model "unknown-model" at 2026-03-01T12:00:00.000Z',
    });
  });
});

describe('priceEvent: metric events', () => {
  it('quantity × the model rate, which beats the provider rate; metric case does not matter', () => {
    // 3 images × 0.04 = 0.12
    const priced = priceEvent(
      event({ model: 'image-model-1', provider: 'acme', metric: 'Image_Generation', unit: 'image', quantity: 3 }),
      rates,
    );
    expect(priced).toEqual({
      status: 'completed',
      input_cost: null,
      output_cost: null,
      cache_creation_cost: null,
      cache_read_cost: null,
      reasoning_cost: null,
      unit_cost: '0.12',
      total_cost: '0.12',
      rate_card_slug: null,
      pending_reason: null,
      cache_creation_1h_cost: null,
      ...NO_PROVENANCE,
    });
  });

  it('falls back to the provider rate for a model without its own', () => {
    // 2 images × 0.05 = 0.1
    const priced = priceEvent(
      event({ model: 'image-model-9', provider: 'acme', metric: 'image_generation', unit: 'image', quantity: 2 }),
      rates,
    );
    expect(priced).toMatchObject({ status: 'completed', unit_cost: '0.1', total_cost: '0.1' });
  });

  it('fractional quantities are exact', () => {
    // 2.5 minutes × 0.006 = 0.015
    const priced = priceEvent(event({ provider: 'acme', metric: 'transcription', unit: 'minute', quantity: 2.5 }), rates);
    expect(priced).toMatchObject({ unit_cost: '0.015', total_cost: '0.015' });
  });

  it('a unit without a rate is a missing rate card: units are never converted', () => {
    const priced = priceEvent(event({ provider: 'acme', metric: 'transcription', unit: 'second', quantity: 150 }), rates);
    expect(priced).toMatchObject({
      status: 'pending_rate_card',
      unit_cost: null,
      total_cost: '0',
      pending_reason: 'no unit rate for metric "transcription" in unit "second" for provider "acme" at 2026-03-01T12:00:00.000Z',
    });
  });

  it('token counts on a metric event are recorded, not priced', () => {
    // 4 images × 0.04 = 0.16; the reported tokens cost "0", the unreported classes null
    const priced = priceEvent(
      event({ model: 'image-model-1', metric: 'image_generation', unit: 'image', quantity: 4, input_tokens: 50, output_tokens: 0 }),
      rates,
    );
    expect(priced).toMatchObject({ input_cost: '0', output_cost: '0', cache_read_cost: null, unit_cost: '0.16', total_cost: '0.16' });
  });
});

describe('priceEvent: cost_override', () => {
  it('with a card: total is the override, class costs stay zero', () => {
    const priced = priceEvent(event({ model: 'gpt-4o', input_tokens: 1000, output_tokens: 500, cost_override: '1.25' }), rates);
    expect(priced).toEqual({
      status: 'completed',
      input_cost: '0',
      output_cost: '0',
      cache_creation_cost: null,
      cache_read_cost: null,
      reasoning_cost: null,
      unit_cost: null,
      total_cost: '1.25',
      rate_card_slug: 'gpt-4o',
      pending_reason: null,
      cache_creation_1h_cost: null,
      // an override is no card's price
      ...NO_PROVENANCE,
    });
  });

  it('without a card: completed at the override instead of pending', () => {
    const priced = priceEvent(event({ model: 'unknown-model', input_tokens: 10, output_tokens: 10, cost_override: '0.50' }), rates);
    expect(priced).toMatchObject({ status: 'completed', total_cost: '0.5', input_cost: '0', output_cost: '0', rate_card_slug: null });
  });

  it('overrides a class with no rate', () => {
    const priced = priceEvent(
      event({ model: 'gpt-4o-mini', input_tokens: 1, cache_read_input_tokens: 5, cost_override: '0.000000000001' }),
      rates,
    );
    expect(priced).toMatchObject({ status: 'completed', total_cost: '0.000000000001', cache_read_cost: '0' });
  });

  it('on a metric event without a rate: unit cost zero, total the override', () => {
    const priced = priceEvent(
      event({ provider: 'acme', metric: 'transcription', unit: 'second', quantity: 60, cost_override: '0.01' }),
      rates,
    );
    expect(priced).toMatchObject({ status: 'completed', unit_cost: '0', total_cost: '0.01', input_cost: null });
  });
});

describe('hasRateFor / missingRateReason (ingest "no rate card" flag)', () => {
  const at = new Date('2026-03-01T12:00:00Z');

  it('true when a card prices every reported class', () => {
    expect(
      hasRateFor({ timestamp: at, model: 'gpt-4o-2024-08-06', provider: null, metric: null, unit: null, input_tokens: 5 }, rates),
    ).toBe(true);
  });

  it('false without a card, with a class the card cannot price, or without a unit rate', () => {
    expect(hasRateFor({ timestamp: at, model: 'unknown-model', provider: null, metric: null, unit: null }, rates)).toBe(false);
    expect(
      hasRateFor({ timestamp: at, model: 'gpt-4o-mini', provider: null, metric: null, unit: null, cache_read_input_tokens: 3 }, rates),
    ).toBe(false);
    expect(hasRateFor({ timestamp: at, model: null, provider: 'acme', metric: 'transcription', unit: 'second' }, rates)).toBe(false);
    expect(hasRateFor({ timestamp: at, model: null, provider: 'acme', metric: 'transcription', unit: 'minute' }, rates)).toBe(true);
  });

  it('gives the same reason that pricing records', () => {
    const e = event({ model: 'gpt-4o-mini', input_tokens: 1, cache_read_input_tokens: 3 });
    expect(missingRateReason(e, rates)).toBe(priceEvent(e, rates).pending_reason);
    expect(missingRateReason(event({ model: 'gpt-4o', input_tokens: 1 }), rates)).toBeNull();
  });
});
