// The standard catalog's upstream mapping (@pydantic/genai-prices → our card entries) and its diff.
import { describe, expect, it } from 'vitest';
import { findProvider } from '@pydantic/genai-prices';
import { cardsToAdd, catalogEntries, diffCatalog, type CatalogPin, type CatalogProvider } from '../../../pricing/catalog/catalog.js';
import { parseStandardRateCardFile } from '../../../pricing/standard-rate-cards.js';
import type { StandardRateCardEntry } from '../../../pricing/pricing.types.js';

const pin: CatalogPin = { package: '@pydantic/genai-prices', version: '9.9.9', released: '2026-09-23', providers: ['acme'], hand_corrected: [{ model_slug: 'acme-fixed', reason: 'checked by hand' }] };

const provider: CatalogProvider = {
  id: 'acme',
  pricing_urls: ['https://acme.example/pricing'],
  models: [
    {
      id: 'Acme-Long',
      prices: {
        input_mtok: { base: 1.25, tiers: [{ start: 200_000, price: 2.5 }] },
        output_mtok: { base: 10, tiers: [{ start: 200_000, price: 15 }] },
        cache_read_mtok: 0.125,
        cache_write_1h_mtok: 2.5,
      },
    },
    {
      id: 'acme-dated',
      prices: [
        { prices: { input_mtok: 3, output_mtok: 15 } },
        { constraint: { type: 'start_date', start_date: '2026-02-01' }, prices: { input_mtok: 2, output_mtok: 8, cache_write_mtok: 2.5 } },
        { constraint: { type: 'time_of_date' }, prices: { input_mtok: 0.1, output_mtok: 0.1 } },
      ],
    },
    { id: 'acme-old', deprecated: true, prices: { input_mtok: 9, output_mtok: 9 } },
    { id: 'acme-embed', prices: { input_mtok: 0.02 } },
  ],
};

describe('catalogEntries', () => {
  const entries = catalogEntries(provider, pin);

  it('maps rates as the decimals the source wrote, tiers to context tiers, dates to cards', () => {
    expect(entries.map((e) => `${e.model_slug}@${e.effective_from}`)).toEqual(['acme-dated@2020-01-01', 'acme-dated@2026-02-01', 'acme-long@2020-01-01']);
    expect(entries[2]).toEqual({
      model_slug: 'acme-long',
      provider: 'acme',
      input_cost_per_million: '1.25',
      output_cost_per_million: '10',
      // no write price but cached reads: writes are not surcharged, so the input rate
      cache_creation_cost_per_million: '1.25',
      cache_read_cost_per_million: '0.125',
      reasoning_cost_per_million: '10',
      cache_creation_1h_cost_per_million: '2.5',
      tiers: [
        {
          above_prompt_tokens: 200_000,
          input_cost_per_million: '2.5',
          output_cost_per_million: '15',
          cache_creation_cost_per_million: '2.5',
          cache_read_cost_per_million: '0.125',
          reasoning_cost_per_million: '15',
          cache_creation_1h_cost_per_million: '2.5',
        },
      ],
      effective_from: '2020-01-01',
      source: 'https://acme.example/pricing',
      source_date: '2026-09-23',
      note: '@pydantic/genai-prices@9.9.9',
    });
    expect(entries[1]).toMatchObject({ input_cost_per_million: '2', cache_creation_cost_per_million: '2.5', cache_read_cost_per_million: null });
    // the entries are valid standard cards
    expect(parseStandardRateCardFile({ version: 'x', currency: 'USD', notes: [], cards: entries })).toHaveLength(3);
  });

  it('reads the pinned package: Claude Sonnet 4.5 as Anthropic publishes it', () => {
    const anthropic = catalogEntries(findProvider({ providerId: 'anthropic' }) as CatalogProvider, pin);
    expect(anthropic.find((e) => e.model_slug === 'claude-sonnet-4-5')).toMatchObject({
      input_cost_per_million: '3',
      output_cost_per_million: '15',
      cache_creation_cost_per_million: '3.75',
      cache_read_cost_per_million: '0.3',
      cache_creation_1h_cost_per_million: '6',
      tiers: [{ above_prompt_tokens: 200_000, input_cost_per_million: '6', output_cost_per_million: '22.5' }],
    });
  });
});

describe('diffCatalog and apply', () => {
  const shipped = (slug: string, input: string, from: string): StandardRateCardEntry => ({
    model_slug: slug,
    provider: 'acme',
    input_cost_per_million: input,
    output_cost_per_million: '8',
    cache_creation_cost_per_million: '2.5',
    cache_read_cost_per_million: null,
    reasoning_cost_per_million: '8',
    effective_from: from,
    source: 'https://acme.example/pricing',
    source_date: '2026-01-01',
  });
  const proposed = (slug: string, input: string) => ({ ...shipped(slug, input, '2020-01-01'), source_date: '2026-09-23' });

  it('new models and new rates; same rates are unchanged; hand-corrected slugs are kept', () => {
    const ours = [shipped('acme-a', '2', '2025-01-01'), shipped('acme-a', '2.00', '2026-02-01'), shipped('acme-b', '1', '2025-01-01'), shipped('acme-fixed', '1', '2025-01-01')];
    const diff = diffCatalog(ours, [proposed('acme-a', '2'), proposed('acme-b', '0.5'), proposed('acme-c', '4'), proposed('acme-fixed', '9')], pin);
    expect(diff.unchanged).toBe(1);
    expect(diff.kept_by_hand).toEqual(['acme-fixed']);
    expect(diff.changes.map((c) => [c.model_slug, c.kind, c.fields])).toEqual([
      ['acme-b', 'new_rates', ['input_cost_per_million']],
      ['acme-c', 'new_model', undefined],
    ]);
    // apply: the new rate from the apply date, the new model with the catalog's own date; history kept
    const added = cardsToAdd(diff, '2026-11-24');
    expect(added.map((c) => `${c.model_slug}@${c.effective_from}:${c.input_cost_per_million}`)).toEqual(['acme-b@2026-11-24:0.5', 'acme-c@2020-01-01:4']);
    const file = parseStandardRateCardFile({ version: 'x', currency: 'USD', notes: [], cards: [...ours, ...added] });
    expect(file.filter((c) => c.model_slug === 'acme-b').map((c) => c.input_cost_per_million)).toEqual(['1', '0.5']);
  });
});
