// Worked examples from providers' published prices (the shipped standard catalog): long-context
// tiers, service tiers (batch) and five-minute vs one-hour cache writes. Every figure is worked
// out by hand in the comment above it.
import { describe, expect, it } from 'vitest';
import { buildTokenRateIndex, buildUnitRateIndex, rateEstimationTable } from '../../../pricing/rate-card-match.js';
import { loadStandardRateCards } from '../../../pricing/standard-rate-cards.js';
import { missingRateReason, priceEvent, promptTokensOf, type PricingRates } from '../../../pricing/price-event.js';
import type { TokenRateCard } from '../../../pricing/pricing.types.js';
import { flagReasonFor } from '../../../ingest/flags.js';
import type { UsageEvent } from '../../../schemas/usage-event.js';
import { usageEvent } from '../../support/usage-event-builder.js';

const standard: PricingRates = { tokenCards: buildTokenRateIndex(loadStandardRateCards()), unitRates: buildUnitRateIndex([]) };
const AT = new Date('2026-03-01T12:00:00Z');
const event = (overrides: Partial<UsageEvent>): UsageEvent => usageEvent({ timestamp: AT, ...overrides });

describe('context tiers (Claude Sonnet 4.5: $3/$15 up to 200K prompt tokens, $6/$22.50 above)', () => {
  it('a 250K-token request: every class at the long-context rates', () => {
    // prompt 250,000 > 200,000 → tier rates
    // input  250,000 × 6    / 1e6 = 1.5
    // output   2,000 × 22.5 / 1e6 = 0.045
    // total 1.545 (at base rates it would be 0.75 + 0.03 = 0.78)
    const priced = priceEvent(event({ model: 'claude-sonnet-4-5-20250929', input_tokens: 250_000, output_tokens: 2_000 }), standard);
    expect(priced).toMatchObject({
      status: 'completed',
      input_cost: '1.5',
      output_cost: '0.045',
      total_cost: '1.545',
      rate_card_slug: 'claude-sonnet-4-5',
      rate_card_id: 'standard:claude-sonnet-4-5:standard:2025-09-29T00:00:00.000Z',
      rate_card_effective_from: new Date('2025-09-29T00:00:00Z'),
      rate_card_service_tier: 'standard',
      context_tier_above_prompt_tokens: 200_000,
      pricing_note: null,
    });
  });

  it('the threshold counts cache reads and writes; exactly 200,000 is not above it', () => {
    // prompt 10,000 + 195,000 read = 205,000 > 200,000
    // input 10,000 × 6 / 1e6 = 0.06; read 195,000 × 0.6 / 1e6 = 0.117; output 1,000 × 22.5 / 1e6 = 0.0225
    // total 0.06 + 0.117 + 0.0225 = 0.1995
    const withReads = event({ model: 'claude-sonnet-4-5', input_tokens: 10_000, cache_read_input_tokens: 195_000, output_tokens: 1_000 });
    expect(promptTokensOf(withReads)).toBe(205_000);
    expect(priceEvent(withReads, standard)).toMatchObject({
      input_cost: '0.06',
      cache_read_cost: '0.117',
      output_cost: '0.0225',
      total_cost: '0.1995',
      context_tier_above_prompt_tokens: 200_000,
    });
    // prompt 150,000 + 50,000 written = 200,000 → base rates
    // input 150,000 × 3 / 1e6 = 0.45; write 50,000 × 3.75 / 1e6 = 0.1875; output 1,000 × 15 / 1e6 = 0.015
    // total 0.6525
    const atThreshold = event({
      model: 'claude-sonnet-4-5',
      input_tokens: 150_000,
      cache_creation_input_tokens: 50_000,
      output_tokens: 1_000,
    });
    expect(priceEvent(atThreshold, standard)).toMatchObject({
      cache_creation_cost: '0.1875',
      total_cost: '0.6525',
      context_tier_above_prompt_tokens: null,
    });
  });

  it('Gemini 2.5 Pro over 200K: $2.50 input, $15 output', () => {
    // input 250,000 × 2.5 / 1e6 = 0.625; output 4,000 × 15 / 1e6 = 0.06; total 0.685
    const priced = priceEvent(event({ model: 'gemini-2.5-pro', input_tokens: 250_000, output_tokens: 4_000 }), standard);
    expect(priced).toMatchObject({
      input_cost: '0.625',
      output_cost: '0.06',
      total_cost: '0.685',
      context_tier_above_prompt_tokens: 200_000,
    });
  });

  it('the highest tier the prompt is above wins, in any order the card lists them', () => {
    const card: TokenRateCard = {
      model_slug: 'stepped',
      input_cost_per_million: '1',
      output_cost_per_million: '2',
      cache_creation_cost_per_million: null,
      cache_read_cost_per_million: null,
      reasoning_cost_per_million: null,
      effective_from: new Date('2026-01-01'),
      tiers: [
        {
          above_prompt_tokens: 500_000,
          input_cost_per_million: '4',
          output_cost_per_million: '8',
          cache_creation_cost_per_million: null,
          cache_read_cost_per_million: null,
          reasoning_cost_per_million: null,
        },
        {
          above_prompt_tokens: 100_000,
          input_cost_per_million: '2',
          output_cost_per_million: '4',
          cache_creation_cost_per_million: null,
          cache_read_cost_per_million: null,
          reasoning_cost_per_million: null,
        },
      ],
    };
    const rates = { tokenCards: buildTokenRateIndex([card]), unitRates: buildUnitRateIndex([]) };
    // 50,000 × 1 / 1e6 = 0.05; 300,000 × 2 / 1e6 = 0.6; 600,000 × 4 / 1e6 = 2.4 (outputs 0)
    expect(priceEvent(event({ model: 'stepped', input_tokens: 50_000, output_tokens: 0 }), rates).total_cost).toBe('0.05');
    expect(priceEvent(event({ model: 'stepped', input_tokens: 300_000, output_tokens: 0 }), rates).total_cost).toBe('0.6');
    expect(priceEvent(event({ model: 'stepped', input_tokens: 600_000, output_tokens: 0 }), rates)).toMatchObject({
      total_cost: '2.4',
      context_tier_above_prompt_tokens: 500_000,
    });
  });

  it('a tier without a rate for a class the request uses leaves it pending, naming the tier', () => {
    // gemini-2.5-pro's tier has no one-hour cache-write rate
    const e = event({
      model: 'gemini-2.5-pro',
      input_tokens: 250_000,
      output_tokens: 10,
      cache_creation_input_tokens: 10,
      cache_creation_1h_input_tokens: 10,
    });
    expect(missingRateReason(e, standard)).toBe(
      'rate card "gemini-2.5-pro" has no one-hour cache creation rate above 200000 prompt tokens',
    );
  });
});

describe('service tiers', () => {
  it('a batch request at the batch rate (Claude Sonnet 4.5 batch: $1.50/$7.50)', () => {
    // input 10,000 × 1.5 / 1e6 = 0.015; output 2,000 × 7.5 / 1e6 = 0.015; total 0.03
    const priced = priceEvent(
      event({ model: 'claude-sonnet-4-5', service_tier: 'batch', input_tokens: 10_000, output_tokens: 2_000 }),
      standard,
    );
    expect(priced).toMatchObject({
      status: 'completed',
      total_cost: '0.03',
      rate_card_id: 'standard:claude-sonnet-4-5:batch:2025-09-29T00:00:00.000Z',
      rate_card_service_tier: 'batch',
      pricing_note: null,
    });
  });

  it('a batch request for gpt-4o-mini (batch $0.075/$0.30)', () => {
    // input 100,000 × 0.075 / 1e6 = 0.0075; output 10,000 × 0.3 / 1e6 = 0.003; total 0.0105
    const priced = priceEvent(
      event({ model: 'gpt-4o-mini-2024-07-18', service_tier: 'batch', input_tokens: 100_000, output_tokens: 10_000 }),
      standard,
    );
    expect(priced).toMatchObject({ total_cost: '0.0105', rate_card_service_tier: 'batch' });
  });

  it('a tier without its own card is priced at the standard card, noted and flagged', () => {
    // standard: input 10,000 × 3 / 1e6 = 0.03; output 2,000 × 15 / 1e6 = 0.03; total 0.06
    const e = event({ model: 'claude-sonnet-4-5', service_tier: 'priority', input_tokens: 10_000, output_tokens: 2_000 });
    const note = 'no "priority" service tier card for "claude-sonnet-4-5"; priced at the standard card';
    expect(priceEvent(e, standard)).toMatchObject({ total_cost: '0.06', rate_card_service_tier: 'standard', pricing_note: note });
    expect(flagReasonFor({ ...e, cost_override: null }, AT, standard)).toBe(note);
    expect(
      flagReasonFor(
        { ...event({ model: 'claude-sonnet-4-5', service_tier: 'batch', input_tokens: 1, output_tokens: 1 }), cost_override: null },
        AT,
        standard,
      ),
    ).toBeNull();
  });

  it("the slug is chosen first: a longer slug without a batch card never takes a shorter slug's batch card", () => {
    const cards: TokenRateCard[] = [
      {
        model_slug: 'gpt-4o',
        input_cost_per_million: '2.5',
        output_cost_per_million: '10',
        cache_creation_cost_per_million: null,
        cache_read_cost_per_million: null,
        reasoning_cost_per_million: null,
        effective_from: new Date('2024-01-01'),
      },
      {
        model_slug: 'gpt-4o',
        service_tier: 'batch',
        input_cost_per_million: '1.25',
        output_cost_per_million: '5',
        cache_creation_cost_per_million: null,
        cache_read_cost_per_million: null,
        reasoning_cost_per_million: null,
        effective_from: new Date('2024-01-01'),
      },
      {
        model_slug: 'gpt-4o-mini',
        input_cost_per_million: '0.15',
        output_cost_per_million: '0.6',
        cache_creation_cost_per_million: null,
        cache_read_cost_per_million: null,
        reasoning_cost_per_million: null,
        effective_from: new Date('2024-01-01'),
      },
    ];
    const rates = { tokenCards: buildTokenRateIndex(cards), unitRates: buildUnitRateIndex([]) };
    // gpt-4o-mini standard: 1,000,000 × 0.15 / 1e6 = 0.15
    expect(
      priceEvent(event({ model: 'gpt-4o-mini', service_tier: 'batch', input_tokens: 1_000_000, output_tokens: 0 }), rates),
    ).toMatchObject({
      total_cost: '0.15',
      rate_card_slug: 'gpt-4o-mini',
      rate_card_service_tier: 'standard',
    });
    // gpt-4o batch: 1,000,000 × 1.25 / 1e6 = 1.25
    expect(priceEvent(event({ model: 'gpt-4o', service_tier: 'batch', input_tokens: 1_000_000, output_tokens: 0 }), rates).total_cost).toBe(
      '1.25',
    );
  });
});

describe('cache writes: five minutes vs one hour (Claude Sonnet 4.5: $3.75 and $6 per million)', () => {
  it('prices the one-hour part at its own rate; cache_creation_cost covers both', () => {
    // 10,000 written, 4,000 of them for one hour:
    //   5 min  6,000 × 3.75 / 1e6 = 0.0225
    //   1 hour 4,000 × 6    / 1e6 = 0.024   → cache_creation_cost 0.0465
    // input 500 × 3 / 1e6 = 0.0015; output 300 × 15 / 1e6 = 0.0045
    // total 0.0015 + 0.0045 + 0.0465 = 0.0525
    const priced = priceEvent(
      event({
        model: 'claude-sonnet-4-5',
        input_tokens: 500,
        output_tokens: 300,
        cache_creation_input_tokens: 10_000,
        cache_creation_1h_input_tokens: 4_000,
      }),
      standard,
    );
    expect(priced).toMatchObject({
      input_cost: '0.0015',
      output_cost: '0.0045',
      cache_creation_cost: '0.0465',
      cache_creation_1h_cost: '0.024',
      total_cost: '0.0525',
    });
  });

  it('five-minute writes alone keep the old price; Claude Haiku 4.5 one-hour writes at $2', () => {
    // 8,000 × 3.75 / 1e6 = 0.03 (no 1h field: cache_creation_1h_cost null)
    const fiveMinutes = priceEvent(
      event({ model: 'claude-sonnet-4-5', input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 8_000 }),
      standard,
    );
    expect(fiveMinutes).toMatchObject({ cache_creation_cost: '0.03', cache_creation_1h_cost: null, total_cost: '0.03' });
    // 8,000 × 2 / 1e6 = 0.016
    const oneHour = priceEvent(
      event({
        model: 'claude-haiku-4-5',
        input_tokens: 0,
        output_tokens: 0,
        cache_creation_input_tokens: 8_000,
        cache_creation_1h_input_tokens: 8_000,
      }),
      standard,
    );
    expect(oneHour).toMatchObject({ cache_creation_cost: '0.016', cache_creation_1h_cost: '0.016', total_cost: '0.016' });
  });

  it('one-hour writes on a card without that rate wait for a card', () => {
    const e = event({
      model: 'gpt-4o',
      input_tokens: 10,
      output_tokens: 10,
      cache_creation_input_tokens: 100,
      cache_creation_1h_input_tokens: 100,
    });
    expect(priceEvent(e, standard)).toMatchObject({
      status: 'pending_rate_card',
      pending_reason: 'rate card "gpt-4o" has no one-hour cache creation rate',
    });
  });

  it('rates finer than 10^-12 USD per token take the decimal path and agree', () => {
    const card: TokenRateCard = {
      model_slug: 'fine',
      input_cost_per_million: '0',
      output_cost_per_million: '0',
      cache_creation_cost_per_million: '0.0000003',
      cache_creation_1h_cost_per_million: '0.0000007',
      cache_read_cost_per_million: null,
      reasoning_cost_per_million: null,
      effective_from: new Date('2026-01-01'),
    };
    const rates = { tokenCards: buildTokenRateIndex([card]), unitRates: buildUnitRateIndex([]) };
    // 5 min 7 × 0.0000003 / 1e6 = 2.1e-12 → 0.000000000002; 1 hour 3 × 0.0000007 / 1e6 = 2.1e-12 → 0.000000000002
    // cache_creation_cost = 0.000000000004 (sum of the rounded parts), total the same
    const priced = priceEvent(
      event({ model: 'fine', input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 10, cache_creation_1h_input_tokens: 3 }),
      rates,
    );
    expect(priced).toMatchObject({
      cache_creation_cost: '0.000000000004',
      cache_creation_1h_cost: '0.000000000002',
      total_cost: '0.000000000004',
    });
  });

  it('more one-hour writes than writes is refused (ingest rejects it first)', () => {
    const e = event({
      model: 'claude-sonnet-4-5',
      input_tokens: 1,
      output_tokens: 1,
      cache_creation_input_tokens: 1,
      cache_creation_1h_input_tokens: 2,
    });
    expect(() => priceEvent(e, standard)).toThrow(/cache_creation_1h_input_tokens/);
  });
});

describe('the rate estimation table shows tiers, one-hour writes and other service tiers', () => {
  it('keeps the spec fields and adds the optional ones', () => {
    const item = rateEstimationTable(loadStandardRateCards(), AT).items.find((i) => i.model_slug === 'claude-sonnet-4-5');
    expect(item).toEqual({
      model_slug: 'claude-sonnet-4-5',
      input_cost_per_million: '3',
      cache_creation_cost_per_million: '3.75',
      cache_read_cost_per_million: '0.3',
      output_cost_per_million: '15',
      reasoning_cost_per_million: '15',
      cache_creation_1h_cost_per_million: '6',
      tiers: [
        {
          above_prompt_tokens: 200000,
          input_cost_per_million: '6',
          output_cost_per_million: '22.5',
          cache_creation_cost_per_million: '7.5',
          cache_creation_1h_cost_per_million: '12',
          cache_read_cost_per_million: '0.6',
          reasoning_cost_per_million: '22.5',
        },
      ],
      service_tiers: [
        {
          service_tier: 'batch',
          input_cost_per_million: '1.5',
          cache_creation_cost_per_million: '1.875',
          cache_read_cost_per_million: '0.15',
          output_cost_per_million: '7.5',
          reasoning_cost_per_million: '7.5',
          cache_creation_1h_cost_per_million: '3',
          tiers: [
            {
              above_prompt_tokens: 200000,
              input_cost_per_million: '3',
              output_cost_per_million: '11.25',
              cache_creation_cost_per_million: '3.75',
              cache_creation_1h_cost_per_million: '6',
              cache_read_cost_per_million: '0.3',
              reasoning_cost_per_million: '11.25',
            },
          ],
        },
      ],
    });
    // A plain card lists only the spec's fields.
    const plain = rateEstimationTable(loadStandardRateCards(), AT).items.find((i) => i.model_slug === 'gpt-4o');
    expect(Object.keys(plain!).sort()).toEqual([
      'cache_creation_cost_per_million',
      'cache_read_cost_per_million',
      'input_cost_per_million',
      'model_slug',
      'output_cost_per_million',
      'reasoning_cost_per_million',
    ]);
  });
});
