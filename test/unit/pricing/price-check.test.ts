// `prices check` over the shipped files: every current standard card against @pydantic/genai-prices
// and the committed LiteLLM cost-map snapshot, with no disagreement left unexplained; and a card
// made wrong (a peak window's rate, a missing tier) is caught, hour by hour and tier by tier.
import { describe, expect, it } from 'vitest';
import { checkPrices } from '../../../pricing/catalog/price-check.js';
import type { StandardRateCardEntry } from '../../../pricing/pricing.types.js';
import { loadPriceCheckInput } from '../../../scripts/cli/prices.js';

const input = loadPriceCheckInput();
const report = checkPrices(input);

describe('the shipped standard cards', () => {
  it('have no unexplained disagreement and no stale exception', () => {
    expect(report.cards_checked).toBeGreaterThan(200);
    expect(report.disagreements.filter((d) => d.explained_by === undefined)).toEqual([]);
    expect(report.unexplained).toBe(0);
    expect(report.unused_exceptions).toEqual([]);
  });

  it('resolve aliases to the dated model they point at, never to another model', () => {
    // the check file's aliases: the package's own match would give Mistral Large 2 and Codestral 25.01
    expect(report.resolved['mistral-large-latest']).toEqual({
      'genai-prices': 'mistral-large-2512',
      litellm: 'mistral/mistral-large-2512',
    });
    expect(report.resolved['codestral-latest']).toEqual({ 'genai-prices': 'codestral-2508', litellm: 'mistral/codestral-2508' });
    // the package's claude-sonnet-5 (starts_with) would match claude-sonnet-5-5, which we price as its own model
    expect(report.resolved['claude-sonnet-5-5']).toEqual({ litellm: 'claude-sonnet-5-5' });
  });

  it("DeepSeek V4 Pro agrees with LiteLLM's peak and off-peak hours in every class but cache writes", () => {
    const fields = report.disagreements.filter((d) => d.model_slug === 'deepseek-v4-pro' && d.source === 'litellm').map((d) => d.field);
    expect(new Set(fields)).toEqual(new Set(['cache_creation']));
  });
});

describe('a wrong card is caught', () => {
  const withCard = (slug: string, change: (c: StandardRateCardEntry) => StandardRateCardEntry) => {
    const latest = input.cards
      .filter((c) => c.model_slug === slug)
      .sort((a, b) => a.effective_from.localeCompare(b.effective_from))
      .at(-1)!;
    return checkPrices({ ...input, cards: input.cards.map((c) => (c === latest ? change(c) : c)) });
  };

  it('a peak window at the wrong rate: the 35 weekday peak hours, against LiteLLM', () => {
    const wrong = withCard('deepseek-v4-pro', (c) => ({
      ...c,
      time_of_day_windows: c.time_of_day_windows!.map((w) => ({ ...w, input_cost_per_million: '1.2' })),
    }));
    const found = wrong.disagreements.filter((d) => d.explained_by === undefined);
    expect(found).toEqual([
      expect.objectContaining({ model_slug: 'deepseek-v4-pro', source: 'litellm', field: 'input', ours: '1.2', theirs: '1.32', hours: 35 }),
    ]);
  });

  it('a long-context tier left out: every tier class, against both catalogs', () => {
    const wrong = withCard('gpt-5.6-sol', ({ tiers: _tiers, ...c }) => c);
    const found = wrong.disagreements.filter((d) => d.explained_by === undefined).map((d) => `${d.source} ${d.field} ${d.theirs}`);
    expect(found.sort()).toEqual(
      [
        'genai-prices tiers>271999.cache_creation 10',
        'genai-prices tiers>271999.cache_read 0.8',
        'genai-prices tiers>271999.input 8',
        'genai-prices tiers>271999.output 30',
        'litellm tiers>272000.cache_creation 10',
        'litellm tiers>272000.cache_read 0.8',
        'litellm tiers>272000.input 8',
        'litellm tiers>272000.output 30',
      ].sort(),
    );
  });
});
