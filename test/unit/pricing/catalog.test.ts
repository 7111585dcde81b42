// The standard catalog's upstream mapping (@pydantic/genai-prices → our card entries) and its diff.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findProvider } from '@pydantic/genai-prices';
import {
  cardsToAdd,
  catalogEntries,
  diffCatalog,
  slugOf,
  type CatalogPin,
  type CatalogProvider,
  type MakerOf,
} from '../../../pricing/catalog/catalog.js';
import { loadStandardRateCards, parseStandardRateCardFile, STANDARD_RATE_CARDS_PATH } from '../../../pricing/standard-rate-cards.js';
import type { StandardRateCardEntry, StandardRateCardFile } from '../../../pricing/pricing.types.js';
import { buildTokenRateIndex, buildUnitRateIndex } from '../../../pricing/rate-card-match.js';
import { priceEvent, type PricingRates } from '../../../pricing/price-event.js';
import { usageEvent } from '../../support/usage-event-builder.js';
import realPin from '../../../pricing/catalog/catalog-pin.json' with { type: 'json' };

const pin: CatalogPin = {
  package: '@pydantic/genai-prices',
  version: '9.9.9',
  released: '2026-09-23',
  providers: { acme: 'acme', 'acme-cloud': 'acmecloud' },
  hand_corrected: [{ model_slug: 'acme-fixed', reason: 'checked by hand' }],
};
// Every acme-* model is acme's; the cloud makes only cloud-* models.
const makerOf: MakerOf = (id) => (id.toLowerCase().startsWith('acme') ? 'acme' : id.startsWith('cloud') ? 'acme-cloud' : undefined);

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
  const entries = catalogEntries(provider, pin, makerOf).entries.map((e) => e.card);

  it('maps rates as the decimals the source wrote, tiers to context tiers, dates to cards', () => {
    expect(entries.map((e) => `${e.model_slug}@${e.effective_from}`)).toEqual([
      'acme-dated@2020-01-01',
      'acme-dated@2026-02-01',
      'acme-long@2020-01-01',
    ]);
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
      note: '@pydantic/genai-prices@9.9.9 (acme/Acme-Long)',
    });
    expect(entries[1]).toMatchObject({
      input_cost_per_million: '2',
      cache_creation_cost_per_million: '2.5',
      cache_read_cost_per_million: null,
    });
    // the entries are valid standard cards
    expect(parseStandardRateCardFile({ version: 'x', currency: 'USD', notes: [], cards: entries })).toHaveLength(3);
  });

  it('reads the pinned package: Claude Sonnet 4.5 as Anthropic publishes it', () => {
    const anthropic = catalogEntries(
      findProvider({ providerId: 'anthropic' }) as CatalogProvider,
      { ...pin, providers: { anthropic: 'anthropic' } },
      (id) => findProvider({ modelId: id })?.id,
    );
    expect(anthropic.entries.find((e) => e.card.model_slug === 'claude-sonnet-4-5')?.card).toMatchObject({
      input_cost_per_million: '3',
      output_cost_per_million: '15',
      cache_creation_cost_per_million: '3.75',
      cache_read_cost_per_million: '0.3',
      cache_creation_1h_cost_per_million: '6',
      tiers: [{ above_prompt_tokens: 200_000, input_cost_per_million: '6', output_cost_per_million: '22.5' }],
    });
  });
});

describe('providers: a slug is priced by its maker', () => {
  it('maps catalog provider ids to ours and skips what a provider resells', () => {
    const cloud: CatalogProvider = {
      id: 'acme-cloud',
      pricing_urls: ['https://cloud.example/pricing'],
      models: [
        // the cloud resells acme's model at its own (here: lower) price: never read
        { id: 'acme-long', prices: { input_mtok: 1, output_mtok: 5 } },
        { id: 'cloud-1', prices: { input_mtok: 0.5, output_mtok: 1.5 } },
      ],
    };
    const read = catalogEntries(cloud, pin, makerOf);
    expect(read.entries.map((e) => [e.card.model_slug, e.card.provider])).toEqual([['cloud-1', 'acmecloud']]);
    expect(read.resold).toEqual([{ catalog_provider: 'acme-cloud', model_id: 'acme-long', maker: 'acme' }]);
    expect(() => catalogEntries({ ...cloud, id: 'unmapped' }, pin, makerOf)).toThrow(/not mapped/);
  });

  it("the pinned package: Claude listed under google (Vertex) is anthropic's, x-ai is our xai", () => {
    const real = (id: string) =>
      catalogEntries(findProvider({ providerId: id }) as CatalogProvider, realPin, (m) => findProvider({ modelId: m })?.id);
    const google = real('google');
    expect(google.entries.some((e) => e.card.model_slug.startsWith('claude'))).toBe(false);
    expect(google.resold.map((r) => r.model_id)).toContain('claude-opus-4-7');
    expect(google.resold.every((r) => r.maker === 'anthropic')).toBe(true);
    expect(new Set(real('x-ai').entries.map((e) => e.card.provider))).toEqual(new Set(['xai']));
  });

  it('a slug is the shortest own starts_with pattern that prefixes the id (we match by prefix)', () => {
    expect(
      slugOf({ id: 'claude-3-5-haiku-latest', match: { or: [{ starts_with: 'claude-3-5-haiku' }, { starts_with: 'claude-3.5-haiku' }] } }),
    ).toBe('claude-3-5-haiku');
    expect(slugOf({ id: 'o3-mini', match: { or: [{ equals: 'o3-mini' }] } })).toBe('o3-mini');
    expect(slugOf({ id: 'Magistral-Small', match: { starts_with: 'magistral-small-' } })).toBe('magistral-small');
  });
});

describe('diffCatalog and apply', () => {
  const shipped = (slug: string, input: string, from: string, extra: Partial<StandardRateCardEntry> = {}): StandardRateCardEntry => ({
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
    ...extra,
  });
  const model = (id: string, prices: Record<string, number>, match?: { equals: string }[]) => ({
    id,
    prices,
    ...(match ? { match: { or: match } } : {}),
  });
  const catalogOf = (...models: ReturnType<typeof model>[]) => [
    catalogEntries({ id: 'acme', pricing_urls: ['https://acme.example/pricing'], models }, pin, makerOf),
  ];

  it('new models and new rates; same rates are unchanged; hand-corrected slugs are kept', () => {
    const ours = [
      shipped('acme-a', '2', '2025-01-01'),
      shipped('acme-a', '2.00', '2026-02-01'),
      shipped('acme-b', '1', '2025-01-01'),
      shipped('acme-fixed', '1', '2025-01-01'),
    ];
    const catalog = catalogOf(
      model('acme-a', { input_mtok: 2, output_mtok: 8, cache_write_mtok: 2.5 }),
      model('acme-b', { input_mtok: 0.5, output_mtok: 8, cache_write_mtok: 2.5 }),
      model('acme-c', { input_mtok: 4, output_mtok: 8 }),
      model('acme-fixed', { input_mtok: 9, output_mtok: 8 }),
    );
    const diff = diffCatalog(ours, catalog, pin);
    expect(diff.unchanged).toBe(1);
    expect(diff.kept_by_hand).toEqual([{ model_slug: 'acme-fixed', reason: 'checked by hand' }]);
    expect(diff.changes.map((c) => [c.model_slug, c.kind, c.fields])).toEqual([
      ['acme-b', 'new_rates', ['input_cost_per_million']],
      ['acme-c', 'new_model', undefined],
    ]);
    // apply: the new rate from the apply date, the new model with the catalog's own date; history kept
    const added = cardsToAdd(diff, '2026-11-24');
    expect(added.map((c) => `${c.model_slug}@${c.effective_from}:${c.input_cost_per_million}`)).toEqual([
      'acme-b@2026-11-24:0.5',
      'acme-c@2020-01-01:4',
    ]);
    const file = parseStandardRateCardFile({ version: 'x', currency: 'USD', notes: [], cards: [...ours, ...added] });
    expect(file.filter((c) => c.model_slug === 'acme-b').map((c) => c.input_cost_per_million)).toEqual(['1', '0.5']);
  });

  it('a change never drops a rate the catalog does not state: our one-hour rate and tiers stay, and the diff says so', () => {
    const tier = {
      above_prompt_tokens: 100_000,
      input_cost_per_million: '4',
      output_cost_per_million: '16',
      cache_creation_cost_per_million: '5',
      cache_read_cost_per_million: null,
      reasoning_cost_per_million: '16',
      cache_creation_1h_cost_per_million: '8',
    };
    const ours = [shipped('acme-a', '2', '2025-01-01', { cache_creation_1h_cost_per_million: '4', tiers: [tier] })];
    // the catalog states input, output and the 5-minute write only; input moved 2 → 1.5
    const diff = diffCatalog(ours, catalogOf(model('acme-a', { input_mtok: 1.5, output_mtok: 8, cache_write_mtok: 2.5 })), pin);
    expect(diff.changes).toHaveLength(1);
    const [change] = diff.changes;
    expect(change).toMatchObject({
      kind: 'new_rates',
      fields: ['input_cost_per_million'],
      kept: ['cache_creation_1h_cost_per_million', 'tiers'],
    });
    expect(change!.proposed).toMatchObject({
      input_cost_per_million: '1.5',
      cache_creation_1h_cost_per_million: '4',
      reasoning_cost_per_million: '8',
      tiers: [tier],
    });
    expect(change!.proposed.note).toContain(
      'kept from our card of 2025-01-01 (https://acme.example/pricing, 2026-01-01): cache_creation_1h_cost_per_million, tiers',
    );
    // a rate we leave null and the catalog does not state is no change by itself
    const nullReasoning = [shipped('acme-a', '1.5', '2025-01-01', { reasoning_cost_per_million: null })];
    expect(
      diffCatalog(nullReasoning, catalogOf(model('acme-a', { input_mtok: 1.5, output_mtok: 8, cache_write_mtok: 2.5 })), pin).unchanged,
    ).toBe(1);
  });

  it("a card we checked after the package was released wins; so does the pin's hand list", () => {
    const ours = [shipped('acme-a', '2', '2025-01-01', { source_date: '2026-10-17' })];
    const diff = diffCatalog(ours, catalogOf(model('acme-a', { input_mtok: 9, output_mtok: 8 })), pin);
    expect(diff.changes).toEqual([]);
    expect(diff.kept_by_hand).toEqual([
      { model_slug: 'acme-a', reason: 'our card was checked on 2026-10-17, after @pydantic/genai-prices@9.9.9 (2026-09-23)' },
    ]);
  });

  it('a new slug the package says names a shipped model (an alias) keeps our tiers; another model does not', () => {
    const tier = {
      above_prompt_tokens: 100_000,
      input_cost_per_million: '4',
      output_cost_per_million: '16',
      cache_creation_cost_per_million: '5',
      cache_read_cost_per_million: null,
      reasoning_cost_per_million: '16',
    };
    const ours = [shipped('acme-a', '2', '2025-01-01', { tiers: [tier] })];
    const diff = diffCatalog(
      ours,
      catalogOf(
        model('acme-a-0', { input_mtok: 2, output_mtok: 8, cache_write_mtok: 2.5 }, [{ equals: 'acme-a' }]),
        model('acme-a-mini', { input_mtok: 0.2, output_mtok: 0.8 }),
      ),
      pin,
    );
    expect(diff.changes.map((c) => [c.model_slug, c.shadows, c.alias_of, c.kept, c.proposed.tiers])).toEqual([
      ['acme-a-0', 'acme-a', 'acme-a', ['tiers'], [tier]],
      ['acme-a-mini', 'acme-a', undefined, undefined, undefined],
    ]);
  });
});

describe('names the package lists', () => {
  it("a new slug never prices a name the package gives another model: that name gets its own model's card", () => {
    const models = [
      // the package: acme-4 is exactly "acme-4"; "acme-4-0125-preview" is acme-4-turbo
      { id: 'acme-4', match: { equals: 'acme-4' }, prices: { input_mtok: 30, output_mtok: 60 } },
      {
        id: 'acme-4-turbo',
        match: { or: [{ starts_with: 'acme-4-turbo' }, { equals: 'acme-4-0125-preview' }] },
        prices: { input_mtok: 10, output_mtok: 30 },
      },
    ];
    const diff = diffCatalog(
      [],
      [catalogEntries({ id: 'acme', pricing_urls: ['https://acme.example/pricing'], models }, pin, makerOf)],
      pin,
    );
    expect(diff.changes.map((c) => [c.model_slug, c.shadows, c.proposed.input_cost_per_million])).toEqual([
      ['acme-4', undefined, '30'],
      ['acme-4-turbo', undefined, '10'],
      ['acme-4-0125-preview', 'acme-4', '10'],
    ]);
  });

  it('a shipped slug two catalog models claim is ambiguous: a new slug never gets cards for its names', () => {
    // acme-9-base and acme-9-pro both have slug acme-9 (shortest own starts_with prefixing the id),
    // which we ship. acme-9-pro lists "acme-9-0601"; the new model acme-9-0 prefixes that name. For
    // an unambiguous slug the diff would propose a card for the name; here it cannot tell which of
    // the two models acme-9 stands for, so it proposes none: only acme-9-0 itself is new.
    const models = [
      { id: 'acme-9-base', match: { starts_with: 'acme-9' }, prices: { input_mtok: 1, output_mtok: 2 } },
      {
        id: 'acme-9-pro',
        match: { or: [{ starts_with: 'acme-9' }, { equals: 'acme-9-0601' }] },
        prices: { input_mtok: 5, output_mtok: 20 },
      },
      { id: 'acme-9-0', match: { starts_with: 'acme-9-0' }, prices: { input_mtok: 3, output_mtok: 4 } },
    ];
    const ours: StandardRateCardEntry[] = [
      {
        model_slug: 'acme-9',
        provider: 'acme',
        input_cost_per_million: '1',
        output_cost_per_million: '2',
        cache_creation_cost_per_million: null,
        cache_read_cost_per_million: null,
        reasoning_cost_per_million: '2',
        effective_from: '2025-01-01',
        source: 'https://acme.example/pricing',
        source_date: '2026-01-01',
      },
    ];
    const diff = diffCatalog(
      ours,
      [catalogEntries({ id: 'acme', pricing_urls: ['https://acme.example/pricing'], models }, pin, makerOf)],
      pin,
    );
    expect(diff.ambiguous_slugs).toEqual(['acme-9']);
    expect(diff.changes.map((c) => [c.model_slug, c.kind, c.proposed.input_cost_per_million])).toEqual([['acme-9-0', 'new_model', '3']]);
  });

  it('in the committed cards, every name the package lists that a catalog card prices is priced by its own model', () => {
    const cards = (JSON.parse(fs.readFileSync(STANDARD_RATE_CARDS_PATH, 'utf8')) as StandardRateCardFile).cards;
    const slugs = [...new Set(cards.map((c) => c.model_slug))];
    const wrong: string[] = [];
    let checked = 0;
    for (const providerId of Object.keys(realPin.providers)) {
      const { entries } = catalogEntries(findProvider({ providerId }) as CatalogProvider, realPin, (m) => findProvider({ modelId: m })?.id);
      for (const e of entries) {
        for (const name of e.listed) {
          const slug = slugs.filter((s) => name.startsWith(s)).sort((a, b) => b.length - a.length)[0];
          const notes = cards.filter((c) => c.model_slug === slug).map((c) => c.note ?? '');
          if (slug === undefined || name.includes('/') || !notes.some((n) => n.startsWith('@pydantic/genai-prices'))) continue;
          checked++;
          if (!notes.some((n) => n.includes(`(${e.model})`))) wrong.push(`${name} → ${slug}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(200);
    expect(wrong).toEqual([]);
  });
});

// Worked examples: the committed standard cards against the pinned package's data, figures read
// by hand from @pydantic/genai-prices 0.1.8 (dist/index.js) and written out here.
describe('the committed standard cards, built from @pydantic/genai-prices 0.1.8', () => {
  const raw = JSON.parse(fs.readFileSync(STANDARD_RATE_CARDS_PATH, 'utf8')) as StandardRateCardFile;
  const cardsOf = (slug: string) => raw.cards.filter((c) => c.model_slug === slug && (c.service_tier ?? 'standard') === 'standard');
  const rates = (c: StandardRateCardEntry | undefined) =>
    c && [
      c.effective_from,
      c.input_cost_per_million,
      c.output_cost_per_million,
      c.cache_creation_cost_per_million,
      c.cache_read_cost_per_million,
      c.reasoning_cost_per_million,
      c.cache_creation_1h_cost_per_million ?? null,
    ];
  const standard: PricingRates = { tokenCards: buildTokenRateIndex(loadStandardRateCards()), unitRates: buildUnitRateIndex([]) };

  it("new models: the package's prices, its dates, its source and version", () => {
    // openai o3: {input 10, cache_read 0.5, output 40}, from 2025-06-10 {input 2, cache_read 0.5, output 8};
    // no write price but cached reads → writes at input; reasoning at output
    expect(cardsOf('o3').map(rates)).toEqual([
      ['2020-01-01', '10', '40', '10', '0.5', '40', null],
      ['2025-06-10', '2', '8', '2', '0.5', '8', null],
    ]);
    // openai o3-mini: input 1.1, cache_read 0.55, output 4.4
    expect(cardsOf('o3-mini').map(rates)).toEqual([['2020-01-01', '1.1', '4.4', '1.1', '0.55', '4.4', null]]);
    // google gemini-2.0-flash: input 0.1, cache_read 0.025, output 0.4
    expect(cardsOf('gemini-2.0-flash').map(rates)).toEqual([['2020-01-01', '0.1', '0.4', '0.1', '0.025', '0.4', null]]);
    // x-ai grok-3: input 3, cache_read 0.75, output 15; provider is ours (xai)
    expect(cardsOf('grok-3').map(rates)).toEqual([['2020-01-01', '3', '15', '3', '0.75', '15', null]]);
    expect(cardsOf('grok-3')[0]).toMatchObject({
      provider: 'xai',
      source: 'https://docs.x.ai/docs/models',
      source_date: '2026-09-23',
      note: '@pydantic/genai-prices@0.1.8 (x-ai/grok-3)',
    });
    // mistral mistral-large: input 2, output 6, no cache prices → cache classes null
    expect(cardsOf('mistral-large').map(rates)).toEqual([['2020-01-01', '2', '6', null, null, '6', null]]);
    // anthropic claude-3-5-haiku-latest (matched as "starts with claude-3-5-haiku"):
    // input 0.8, write 1, read 0.08, output 4, one-hour write 1.6
    expect(cardsOf('claude-3-5-haiku').map(rates)).toEqual([['2020-01-01', '0.8', '4', '1', '0.08', '4', '1.6']]);
    expect(cardsOf('claude-3-5-haiku-latest')).toEqual([]);
  });

  it('changed models: a new card from 2026-11-24, the earlier card kept', () => {
    // openai gpt-5.4: input {2.5; above 271,999: 5}, cache_read {0.25; 0.5}, output {15; 22.5}
    const gpt54 = cardsOf('gpt-5.4');
    expect(gpt54.map(rates)).toEqual([
      ['2026-03-05', '2.5', '15', '2.5', '0.25', '15', null],
      ['2026-11-24', '2.5', '15', '2.5', '0.25', '15', null],
    ]);
    expect(gpt54[1]!.tiers).toEqual([
      {
        above_prompt_tokens: 271_999,
        input_cost_per_million: '5',
        output_cost_per_million: '22.5',
        cache_creation_cost_per_million: '5',
        cache_read_cost_per_million: '0.5',
        reasoning_cost_per_million: '22.5',
        cache_creation_1h_cost_per_million: null,
      },
    ]);
    // x-ai grok-4.20: cache_read {0.2; above 199,999: 0.4} is new (we had none), input {1.25; 2.5}, output {2.5; 5}
    expect(cardsOf('grok-4.20').map(rates).at(-1)).toEqual(['2026-11-24', '1.25', '2.5', '1.25', '0.2', '2.5', null]);
    // mistral mistral-medium-latest from 2026-06-16: input 1.5, cache_read 0.15, output 7.5; our
    // null write rate is filled with the input rate (Mistral does not surcharge writes)
    expect(cardsOf('mistral-medium-latest').map(rates).at(-1)).toEqual(['2026-11-24', '1.5', '7.5', '1.5', '0.15', '7.5', null]);
  });

  it('what the catalog must not change: resold Claude, our one-hour rates, hand corrections, later checks', () => {
    // google lists claude-opus-4-7 at {5, write 6.25, read 0.5, 25} with no one-hour price: skipped,
    // so our card (one-hour writes at 10) is still the last
    expect(cardsOf('claude-opus-4-7').map(rates)).toEqual([['2026-04-16', '5', '25', '6.25', '0.5', '25', '10']]);
    expect(raw.cards.filter((c) => c.model_slug.startsWith('claude')).every((c) => c.provider === 'anthropic')).toBe(true);
    // deepseek-v4-flash: the package says 0.22 / 0.66 from 2026-08-17; our V4.1 Flash card (off-peak
    // rates, peak windows), checked 2026-10-17, stays the last
    expect(cardsOf('deepseek-v4-flash').map(rates).at(-1)).toEqual(['2026-09-10T04:00:00Z', '0.15', '0.6', '0.15', '0.003', '0.6', null]);
    expect(cardsOf('gpt-5.6-sol').every((c) => !c.note?.includes('genai-prices'))).toBe(true);
    // claude-sonnet-4-0 names claude-sonnet-4 in the package: it keeps our 200K tier
    expect(
      cardsOf('claude-sonnet-4-0')[0]!.tiers?.map((t) => [t.above_prompt_tokens, t.input_cost_per_million, t.output_cost_per_million]),
    ).toEqual([[200_000, '6', '22.5']]);
  });

  it('a long gpt-5.4 request before and after the catalog card', () => {
    const gpt = (at: string) =>
      priceEvent(
        usageEvent({ timestamp: new Date(at), model: 'gpt-5.4-2026-03-05', input_tokens: 300_000, output_tokens: 1_000 }),
        standard,
      );
    // before 2026-11-24: no tier; 300,000 × 2.5 / 1e6 = 0.75; 1,000 × 15 / 1e6 = 0.015; total 0.765
    expect(gpt('2026-11-23T12:00:00Z')).toMatchObject({
      input_cost: '0.75',
      output_cost: '0.015',
      total_cost: '0.765',
      context_tier_above_prompt_tokens: null,
    });
    // from 2026-11-24: prompt 300,000 > 271,999; 300,000 × 5 / 1e6 = 1.5; 1,000 × 22.5 / 1e6 = 0.0225; total 1.5225
    expect(gpt('2026-11-24T12:00:00Z')).toMatchObject({
      input_cost: '1.5',
      output_cost: '0.0225',
      total_cost: '1.5225',
      context_tier_above_prompt_tokens: 271_999,
    });
    // o3 after its 2025-06-10 cut: 10,000 × 2 / 1e6 = 0.02; 2,000 output × 8 / 1e6 = 0.016; 3,000 reasoning × 8 / 1e6 = 0.024; total 0.06
    expect(
      priceEvent(
        usageEvent({
          timestamp: new Date('2025-07-01T00:00:00Z'),
          model: 'o3-2025-04-16',
          input_tokens: 10_000,
          output_tokens: 2_000,
          reasoning_tokens: 3_000,
        }),
        standard,
      ),
    ).toMatchObject({ total_cost: '0.06', rate_card_slug: 'o3' });
  });
});
