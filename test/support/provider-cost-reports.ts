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

const openAiUsage = (model: string, project: string | null, input: number, cached: number, output: number, requests: number) => ({
  object: 'organization.usage.completions.result',
  input_tokens: input,
  output_tokens: output,
  input_cached_tokens: cached,
  input_audio_tokens: 0,
  output_audio_tokens: 0,
  num_model_requests: requests,
  project_id: project,
  user_id: null,
  api_key_id: null,
  model,
  batch: null,
});

/**
 * OpenAI's `GET /v1/organization/usage/completions` (one daily bucket, by model and project). Its
 * input_tokens include the cached ones: gpt-4o is (1.5M − 300k) + 400k = 1.6M not from cache,
 * 300k cached, 150k + 50k = 200k output. gpt-4o-mini has no usage here.
 */
export const OPENAI_USAGE_REPORT = {
  object: 'page',
  data: [
    {
      object: 'bucket',
      start_time: DAY_START,
      end_time: DAY_START + 86_400,
      results: [
        openAiUsage('gpt-4o-2024-08-06', 'proj_a', 1_500_000, 300_000, 150_000, 2),
        openAiUsage('gpt-4o-2024-08-06', 'proj_b', 400_000, 0, 50_000, 1),
      ],
    },
  ],
  has_more: false,
  next_page: null,
};

const anthropicUsage = (
  model: string,
  workspace: string | null,
  tier: string,
  t: { uncached: number; write5m: number; write1h: number; read: number; output: number },
) => ({
  uncached_input_tokens: t.uncached,
  cache_creation: { ephemeral_1h_input_tokens: t.write1h, ephemeral_5m_input_tokens: t.write5m },
  cache_read_input_tokens: t.read,
  output_tokens: t.output,
  server_tool_use: { web_search_requests: 0 },
  api_key_id: null,
  workspace_id: workspace,
  model,
  service_tier: tier,
  context_window: '0-200k',
});

/**
 * Anthropic's `GET /v1/organizations/usage_report/messages` (one daily bucket, by model, workspace
 * and service tier): claude-sonnet-4 not from cache 600k + 100k + 50k (cache writes) + 100k
 * (batch) = 850k, cache reads 150k, output 180k + 20k = 200k; claude-haiku-4-5 10k in, 5k out.
 */
export const ANTHROPIC_USAGE_REPORT = {
  data: [
    {
      starting_at: `${RECONCILED_DAY}T00:00:00Z`,
      ending_at: '2026-01-03T00:00:00Z',
      results: [
        anthropicUsage('claude-sonnet-4-20250514', 'wrkspc_1', 'standard', {
          uncached: 600_000,
          write5m: 100_000,
          write1h: 50_000,
          read: 150_000,
          output: 180_000,
        }),
        anthropicUsage('claude-sonnet-4-20250514', 'wrkspc_1', 'batch', {
          uncached: 100_000,
          write5m: 0,
          write1h: 0,
          read: 0,
          output: 20_000,
        }),
        anthropicUsage('claude-haiku-4-5-20251001', null, 'standard', { uncached: 10_000, write5m: 0, write1h: 0, read: 0, output: 5_000 }),
      ],
    },
  ],
  has_more: false,
  next_page: null,
};
