// One day of the providers' own cost reports, in their documented shapes, and the cards that price
// our side of it: what the reconciliation tests (integration and console) import. Hand-worked
// figures are in the comments; the tests state the events they set against them.
export const RECONCILED_DAY = '2026-01-02';
const DAY_START = Date.UTC(2026, 0, 2) / 1000;

export const RECONCILIATION_CARDS = [
  { model_slug: 'gpt-4o', input_cost_per_million: '2.5', output_cost_per_million: '10' },
  { model_slug: 'gpt-4o-mini', input_cost_per_million: '0.15', output_cost_per_million: '0.6' },
  { model_slug: 'claude-sonnet-4', input_cost_per_million: '3', output_cost_per_million: '15' },
];

const openAiLine = (value: number, lineItem: string, project: string | null) => ({
  object: 'organization.costs.result',
  amount: { value, currency: 'usd' },
  line_item: lineItem,
  project_id: project,
});

/**
 * OpenAI's `GET /v1/organization/costs` (one daily bucket, by line item and project): gpt-4o
 * 4.5 + 1.5 (proj_a) + 0.9 (proj_b) = 6.9; dall-e-3 0.4, a model only the provider has. 7.3 in all.
 */
export const OPENAI_COSTS_REPORT = {
  object: 'page',
  data: [
    {
      object: 'bucket',
      start_time: DAY_START,
      end_time: DAY_START + 86_400,
      results: [
        openAiLine(4.5, 'gpt-4o-2024-08-06, input', 'proj_a'),
        openAiLine(1.5, 'gpt-4o-2024-08-06, output', 'proj_a'),
        openAiLine(0.9, 'gpt-4o-2024-08-06, input', 'proj_b'),
        openAiLine(0.4, 'dall-e-3, images', null),
      ],
    },
  ],
  has_more: false,
  next_page: null,
};

/**
 * Anthropic's `GET /v1/organizations/cost_report`, amounts in cents: claude-sonnet-4 597 → 5.97
 * (workspace wrkspc_1); claude-haiku-4-5 25 → 0.25, a model only the provider has. 6.22 in all.
 */
export const ANTHROPIC_COST_REPORT = {
  data: [
    {
      starting_at: `${RECONCILED_DAY}T00:00:00Z`,
      ending_at: '2026-01-03T00:00:00Z',
      results: [
        {
          amount: '597',
          currency: 'USD',
          model: 'claude-sonnet-4-20250514',
          cost_type: 'tokens',
          workspace_id: 'wrkspc_1',
          service_tier: 'standard',
        },
        {
          amount: '25',
          currency: 'USD',
          model: 'claude-haiku-4-5-20251001',
          cost_type: 'tokens',
          workspace_id: null,
          service_tier: 'standard',
        },
      ],
    },
  ],
  has_more: false,
  next_page: null,
};
