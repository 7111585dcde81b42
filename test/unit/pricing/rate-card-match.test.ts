import { describe, expect, it } from 'vitest';
import {
  buildTokenRateIndex,
  mergeRateCards,
  rateEstimationTable,
  tokenRateCardFromRecord,
  unitRateFromRecord,
  type TokenRateCard,
  type UnitRate,
} from '../../../pricing/rate-card-match.js';
import { findTokenRateCard, findUnitRate } from '../../support/rate-lookup.js';

function card(slug: string, from: string, input: string, output: string, extra: Partial<TokenRateCard> = {}): TokenRateCard {
  return {
    model_slug: slug,
    input_cost_per_million: input,
    output_cost_per_million: output,
    cache_creation_cost_per_million: null,
    cache_read_cost_per_million: null,
    reasoning_cost_per_million: null,
    effective_from: new Date(from),
    ...extra,
  };
}

const at = (iso: string) => new Date(iso);

describe('findTokenRateCard: longest prefix', () => {
  const cards = [
    card('gpt-4o', '2024-01-01', '2.5', '10'),
    card('gpt-4o-mini', '2024-01-01', '0.15', '0.6'),
    card('claude-sonnet-4', '2024-01-01', '3', '15'),
    card('claude-sonnet-4-5', '2024-01-01', '3', '15'),
  ];

  it('a model equal to a slug matches that slug', () => {
    expect(findTokenRateCard(cards, 'gpt-4o', at('2025-01-01'))?.model_slug).toBe('gpt-4o');
    expect(findTokenRateCard(cards, 'gpt-4o-mini', at('2025-01-01'))?.model_slug).toBe('gpt-4o-mini');
  });

  it('gpt-4o-mini variants match gpt-4o-mini, not the shorter gpt-4o', () => {
    expect(findTokenRateCard(cards, 'gpt-4o-mini-2024-07-18', at('2025-01-01'))?.model_slug).toBe('gpt-4o-mini');
  });

  it('a dated snapshot matches its family slug', () => {
    expect(findTokenRateCard(cards, 'gpt-4o-2024-08-06', at('2025-01-01'))?.model_slug).toBe('gpt-4o');
    expect(findTokenRateCard(cards, 'claude-sonnet-4-20250514', at('2025-01-01'))?.model_slug).toBe('claude-sonnet-4');
    expect(findTokenRateCard(cards, 'claude-sonnet-4-5-20250929', at('2025-01-01'))?.model_slug).toBe('claude-sonnet-4-5');
  });

  it('matching is case-insensitive', () => {
    expect(findTokenRateCard(cards, 'GPT-4o-Mini', at('2025-01-01'))?.model_slug).toBe('gpt-4o-mini');
    expect(findTokenRateCard(cards, 'GPT-4O', at('2025-01-01'))?.model_slug).toBe('gpt-4o');
  });

  it('a model no slug prefixes has no card; a slug is never matched as a suffix or infix', () => {
    expect(findTokenRateCard(cards, 'gpt-4', at('2025-01-01'))).toBeNull();
    expect(findTokenRateCard(cards, 'openai/gpt-4o', at('2025-01-01'))).toBeNull();
    expect(findTokenRateCard(cards, '', at('2025-01-01'))).toBeNull();
  });

  it('uppercase slugs from an organization still match (slugs are compared lowercased)', () => {
    const index = buildTokenRateIndex([card('My-Model', '2024-01-01', '1', '2')]);
    expect(findTokenRateCard(index, 'my-model-v2', at('2025-01-01'))?.model_slug).toBe('My-Model');
  });
});

describe('findTokenRateCard: effective dates', () => {
  const cards = [card('gpt-x', '2026-01-01', '2', '8'), card('gpt-x', '2026-06-01', '1', '4')];

  it('uses the latest card with effective_from <= the event time', () => {
    expect(findTokenRateCard(cards, 'gpt-x', at('2026-05-31T23:59:59.999Z'))?.input_cost_per_million).toBe('2');
    expect(findTokenRateCard(cards, 'gpt-x', at('2026-06-01T00:00:00.000Z'))?.input_cost_per_million).toBe('1');
    expect(findTokenRateCard(cards, 'gpt-x', at('2030-01-01'))?.input_cost_per_million).toBe('1');
  });

  it('before the first card there is no card', () => {
    expect(findTokenRateCard(cards, 'gpt-x', at('2025-12-31T23:59:59.999Z'))).toBeNull();
  });

  it('card order in the input does not matter', () => {
    const reversed = [...cards].reverse();
    expect(findTokenRateCard(reversed, 'gpt-x', at('2026-03-01'))?.input_cost_per_million).toBe('2');
  });

  it('does not fall back to a shorter slug when the longest one has no card in effect yet', () => {
    const mixed = [card('gpt-4o', '2024-01-01', '2.5', '10'), card('gpt-4o-mini', '2026-01-01', '0.15', '0.6')];
    // gpt-4o-mini before its first card: pending, not priced as gpt-4o (16x too dear).
    expect(findTokenRateCard(mixed, 'gpt-4o-mini', at('2025-06-01'))).toBeNull();
    expect(findTokenRateCard(mixed, 'gpt-4o-mini', at('2026-06-01'))?.model_slug).toBe('gpt-4o-mini');
    expect(findTokenRateCard(mixed, 'gpt-4o', at('2025-06-01'))?.model_slug).toBe('gpt-4o');
  });
});

describe('mergeRateCards', () => {
  const standard = [
    card('gpt-4o', '2024-05-13', '5', '15'),
    card('gpt-4o', '2024-10-02', '2.5', '10'),
    card('gpt-4o-mini', '2024-07-18', '0.15', '0.6'),
  ];
  const organization = [card('gpt-4o', '2025-01-01', '2', '8')];

  it('organization cards replace every standard card with the same slug', () => {
    const merged = mergeRateCards(standard, organization);
    expect(merged.filter((c) => c.model_slug === 'gpt-4o')).toEqual([{ ...organization[0], source: 'organization' }]);
    // Standard gpt-4o history is gone: before the organization's card, nothing prices gpt-4o.
    expect(findTokenRateCard(merged, 'gpt-4o', at('2024-11-01'))).toBeNull();
    expect(findTokenRateCard(merged, 'gpt-4o-2024-08-06', at('2025-02-01'))?.input_cost_per_million).toBe('2');
  });

  it('keeps standard cards of other slugs and tags each card with its source', () => {
    const merged = mergeRateCards(standard, organization);
    expect(merged.find((c) => c.model_slug === 'gpt-4o-mini')?.source).toBe('standard');
    expect(merged).toHaveLength(2);
  });

  it('replacement compares slugs case-insensitively', () => {
    const merged = mergeRateCards(standard, [card('GPT-4O', '2025-01-01', '2', '8')]);
    expect(merged.map((c) => c.model_slug).sort()).toEqual(['GPT-4O', 'gpt-4o-mini']);
  });
});

describe('findUnitRate', () => {
  const rates: UnitRate[] = [
    {
      model: 'image-model-1',
      provider: null,
      metric: 'image_generation',
      unit: 'image',
      cost_per_unit: '0.04',
      effective_from: at('2026-01-01'),
    },
    { model: null, provider: 'acme', metric: 'image_generation', unit: 'image', cost_per_unit: '0.05', effective_from: at('2026-01-01') },
    { model: null, provider: 'acme', metric: 'transcription', unit: 'minute', cost_per_unit: '0.006', effective_from: at('2026-01-01') },
    { model: null, provider: 'acme', metric: 'transcription', unit: 'minute', cost_per_unit: '0.004', effective_from: at('2026-07-01') },
    {
      model: 'late-model',
      provider: null,
      metric: 'image_generation',
      unit: 'image',
      cost_per_unit: '0.09',
      effective_from: at('2026-09-01'),
    },
  ];

  it('a model-specific rate beats the provider rate', () => {
    const rate = findUnitRate(
      rates,
      { model: 'image-model-1', provider: 'acme', metric: 'image_generation', unit: 'image' },
      at('2026-03-01'),
    );
    expect(rate?.cost_per_unit).toBe('0.04');
  });

  it('falls back to the provider rate when the model has none', () => {
    const rate = findUnitRate(
      rates,
      { model: 'image-model-2', provider: 'acme', metric: 'image_generation', unit: 'image' },
      at('2026-03-01'),
    );
    expect(rate?.cost_per_unit).toBe('0.05');
  });

  it('falls back to the provider rate before the model rate takes effect', () => {
    const query = { model: 'late-model', provider: 'acme', metric: 'image_generation', unit: 'image' };
    expect(findUnitRate(rates, query, at('2026-08-31'))?.cost_per_unit).toBe('0.05');
    expect(findUnitRate(rates, query, at('2026-09-01'))?.cost_per_unit).toBe('0.09');
  });

  it('metric compares lowercased, model and provider case-insensitively', () => {
    const rate = findUnitRate(
      rates,
      { model: 'IMAGE-MODEL-1', provider: null, metric: 'Image_Generation', unit: 'image' },
      at('2026-03-01'),
    );
    expect(rate?.cost_per_unit).toBe('0.04');
  });

  it('the unit must match exactly as sent: no conversion, no case folding', () => {
    const base = { model: null, provider: 'acme', metric: 'transcription' };
    expect(findUnitRate(rates, { ...base, unit: 'second' }, at('2026-03-01'))).toBeNull();
    expect(findUnitRate(rates, { ...base, unit: 'Minute' }, at('2026-03-01'))).toBeNull();
    expect(findUnitRate(rates, { ...base, unit: null }, at('2026-03-01'))).toBeNull();
  });

  it('takes the rate in effect at the time', () => {
    const query = { model: null, provider: 'acme', metric: 'transcription', unit: 'minute' };
    expect(findUnitRate(rates, query, at('2026-06-30T23:59:59.999Z'))?.cost_per_unit).toBe('0.006');
    expect(findUnitRate(rates, query, at('2026-07-01'))?.cost_per_unit).toBe('0.004');
    expect(findUnitRate(rates, query, at('2025-12-31'))).toBeNull();
  });

  it('a rate of another provider never matches', () => {
    expect(findUnitRate(rates, { model: null, provider: 'other', metric: 'transcription', unit: 'minute' }, at('2026-03-01'))).toBeNull();
  });
});

describe('rateEstimationTable', () => {
  const cards = [
    card('zeta-model', '2026-01-01', '1.50', '6.00'),
    card('alpha-model', '2026-01-01', '3', '15', {
      cache_creation_cost_per_million: '3.75',
      cache_read_cost_per_million: '0.30',
      reasoning_cost_per_million: '15',
    }),
    card('alpha-model', '2026-06-01', '2', '10', {
      cache_creation_cost_per_million: '2.50',
      cache_read_cost_per_million: '0.20',
      reasoning_cost_per_million: '10',
    }),
    card('Beta-model', '2026-01-01', '0.000001', '0.5'),
    card('future-model', '2027-01-01', '9', '9'),
  ];

  it('one item per slug, the card in effect, sorted by model_slug, nullable rates null', () => {
    expect(rateEstimationTable(cards, at('2026-03-01'))).toEqual({
      items: [
        {
          model_slug: 'alpha-model',
          input_cost_per_million: '3',
          cache_creation_cost_per_million: '3.75',
          cache_read_cost_per_million: '0.3',
          output_cost_per_million: '15',
          reasoning_cost_per_million: '15',
        },
        {
          model_slug: 'beta-model',
          input_cost_per_million: '0.000001',
          cache_creation_cost_per_million: null,
          cache_read_cost_per_million: null,
          output_cost_per_million: '0.5',
          reasoning_cost_per_million: null,
        },
        {
          model_slug: 'zeta-model',
          input_cost_per_million: '1.5',
          cache_creation_cost_per_million: null,
          cache_read_cost_per_million: null,
          output_cost_per_million: '6',
          reasoning_cost_per_million: null,
        },
      ],
    });
  });

  it('shows the newer card after its effective date and slugs that start later once they start', () => {
    const table = rateEstimationTable(cards, at('2027-01-01'));
    expect(table.items.map((i) => i.model_slug)).toEqual(['alpha-model', 'beta-model', 'future-model', 'zeta-model']);
    expect(table.items[0]).toMatchObject({ input_cost_per_million: '2', cache_read_cost_per_million: '0.2' });
  });

  it('an empty card list gives an empty table', () => {
    expect(rateEstimationTable([], at('2026-01-01'))).toEqual({ items: [] });
  });
});

describe('index validation', () => {
  it('rejects a non-decimal rate, naming the slug', () => {
    expect(() => buildTokenRateIndex([card('bad', '2026-01-01', 'abc', '1')])).toThrow(/bad/);
  });
});

describe('control-plane records', () => {
  it('convert to cards and unit rates that match', () => {
    const cardFromDb = tokenRateCardFromRecord({
      id: '6f1c1a52-0b7e-4d8e-9a51-3c1f4f7f2a10',
      modelSlug: 'acme-llm',
      serviceTier: 'standard',
      cacheCreation1hCostPerMillion: null,
      tiers: [],
      inputCostPerMillion: '1.000000000000',
      outputCostPerMillion: '2',
      cacheCreationCostPerMillion: null,
      cacheReadCostPerMillion: '0.1',
      reasoningCostPerMillion: null,
      effectiveFrom: at('2026-01-01'),
    });
    expect(cardFromDb).toMatchObject({ model_slug: 'acme-llm', cache_read_cost_per_million: '0.1', source: 'organization' });
    expect(rateEstimationTable([cardFromDb], at('2026-02-01')).items[0]?.input_cost_per_million).toBe('1');
    const rate = unitRateFromRecord({
      model: null,
      provider: 'acme',
      metric: 'ocr',
      unit: 'page',
      costPerUnit: '0.002',
      effectiveFrom: at('1970-01-01'),
    });
    expect(findUnitRate([rate], { model: 'x', provider: 'acme', metric: 'OCR', unit: 'page' }, at('2026-01-01'))).toBe(rate);
  });
});
