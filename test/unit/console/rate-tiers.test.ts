// The Rates page's tier table: one row per long-context tier and per other service tier, rates
// kept as the API's decimal strings.
import { describe, expect, it } from 'vitest';
import type { RateItem } from '../../../console/src/api/types.js';
import { tierRows, tierSummary } from '../../../console/src/pages/rates/rate-tiers.js';

const rates = (input: string, output: string) => ({
  input_cost_per_million: input,
  output_cost_per_million: output,
  cache_creation_cost_per_million: null,
  cache_read_cost_per_million: null,
  reasoning_cost_per_million: null,
});

describe('tierRows', () => {
  it('standard context tiers, then each service tier with its base rates and its own tiers, thresholds ascending', () => {
    const item: RateItem = {
      model_slug: 'claude-sonnet-4-5',
      ...rates('3', '15'),
      cache_creation_1h_cost_per_million: '6',
      tiers: [
        { above_prompt_tokens: 500_000, ...rates('9', '30') },
        { above_prompt_tokens: 200_000, ...rates('6', '22.5'), cache_creation_1h_cost_per_million: '12' },
      ],
      service_tiers: [{ service_tier: 'batch', ...rates('1.5', '7.5'), tiers: [{ above_prompt_tokens: 200_000, ...rates('3', '11.25') }] }],
    };
    const rows = tierRows([item, { model_slug: 'plain', ...rates('1', '2') }]);
    expect(
      rows.map((r) => [
        r.id,
        r.above_prompt_tokens,
        r.input_cost_per_million,
        r.output_cost_per_million,
        r.cache_creation_1h_cost_per_million,
      ]),
    ).toEqual([
      ['claude-sonnet-4-5|standard|200000', 200_000, '6', '22.5', '12'],
      ['claude-sonnet-4-5|standard|500000', 500_000, '9', '30', null],
      ['claude-sonnet-4-5|batch|base', null, '1.5', '7.5', null],
      ['claude-sonnet-4-5|batch|200000', 200_000, '3', '11.25', null],
    ]);
    expect(tierSummary(item)).toBe('above 500,000 · above 200,000 · batch');
    expect(tierSummary({ model_slug: 'plain', ...rates('1', '2') })).toBe('');
  });
});
