import { describe, expect, it } from 'vitest';
import { buildTokenRateIndex, buildUnitRateIndex } from '../../../pricing/rate-card-match.js';
import type { PricingRates } from '../../../pricing/price-event.js';
import { flagReasonFor, type FlaggableEvent } from '../../../ingest/flags.js';

const rates: PricingRates = {
  tokenCards: buildTokenRateIndex([
    {
      model_slug: 'gpt-4o',
      input_cost_per_million: '2.5',
      output_cost_per_million: '10',
      cache_creation_cost_per_million: null,
      cache_read_cost_per_million: '1.25',
      reasoning_cost_per_million: null,
      effective_from: new Date('2024-01-01T00:00:00Z'),
    },
  ]),
  unitRates: buildUnitRateIndex([
    {
      model: null,
      provider: 'openai',
      metric: 'image_generation',
      unit: 'image',
      cost_per_unit: '0.04',
      effective_from: new Date('2024-01-01T00:00:00Z'),
    },
  ]),
};

const received = new Date('2026-03-10T12:00:00Z');

function event(over: Partial<FlaggableEvent>): FlaggableEvent {
  return {
    timestamp: received,
    model: 'gpt-4o-2024-08-06',
    provider: null,
    metric: null,
    unit: null,
    input_tokens: 100,
    output_tokens: 20,
    cost_override: null,
    ...over,
  };
}

describe('flagReasonFor', () => {
  it('a current event with a rate card is not flagged', () => {
    expect(flagReasonFor(event({}), received, rates)).toBeNull();
    expect(
      flagReasonFor(event({ metric: 'image_generation', unit: 'image', provider: 'openai', model: null }), received, rates),
    ).toBeNull();
  });

  it('more than 24 h old (exactly 24 h is not)', () => {
    expect(flagReasonFor(event({ timestamp: new Date('2026-03-09T12:00:00Z') }), received, rates)).toBeNull();
    expect(flagReasonFor(event({ timestamp: new Date('2026-03-09T11:59:59.999Z') }), received, rates)).toBe(
      'timestamp is more than 24 hours old',
    );
  });

  it('more than 1 minute in the future (exactly 60 s is not)', () => {
    expect(flagReasonFor(event({ timestamp: new Date('2026-03-10T12:01:00Z') }), received, rates)).toBeNull();
    expect(flagReasonFor(event({ timestamp: new Date('2026-03-10T12:01:00.001Z') }), received, rates)).toBe(
      'timestamp is more than 1 minute in the future',
    );
  });

  it('no rate card for the model, unless cost_override is given', () => {
    expect(flagReasonFor(event({ model: 'mystery-model' }), received, rates)).toBe(
      'no rate card for model "mystery-model" at 2026-03-10T12:00:00.000Z',
    );
    expect(flagReasonFor(event({ model: 'mystery-model', cost_override: '0.01' }), received, rates)).toBeNull();
  });

  it('a card lacking a rate for a class the event reports counts as no rate card', () => {
    expect(flagReasonFor(event({ reasoning_tokens: 5 }), received, rates)).toBe('rate card "gpt-4o" has no reasoning rate');
    expect(flagReasonFor(event({ reasoning_tokens: 0 }), received, rates)).toBeNull();
  });

  it('a unit without a rate (units are never converted)', () => {
    expect(flagReasonFor(event({ metric: 'image_generation', unit: 'images', provider: 'openai', model: null }), received, rates)).toBe(
      'no unit rate for metric "image_generation" in unit "images" for provider "openai" at 2026-03-10T12:00:00.000Z',
    );
  });

  it('rates are matched at the event time: before a card took effect there is none', () => {
    expect(flagReasonFor(event({ timestamp: new Date('2023-12-31T00:00:00Z') }), received, rates)).toBe(
      'timestamp is more than 24 hours old; no rate card for model "gpt-4o-2024-08-06" at 2023-12-31T00:00:00.000Z',
    );
  });
});
