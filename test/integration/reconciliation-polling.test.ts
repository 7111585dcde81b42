// Reconciliation connections: an organization's admin keys for OpenAI's and Anthropic's cost and
// usage APIs, polled from a local server answering in the providers' documented shapes (two pages
// each), the figures and token counts set against a day of events priced by hand-set cards. Every figure is worked out by hand.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../support/http.js';
import {
  apiGet,
  createTenant,
  ingest,
  startPipeline,
  waitForLake,
  type EventBody,
  type Pipeline,
  type Tenant,
} from '../support/pipeline.js';

const OPENAI_KEY = 'sk-admin-test-0123456789';
const ANTHROPIC_KEY = 'sk-ant-admin01-test-abcdef';
/** The api's clock: the poll asks for the 7 whole UTC days before it, 2025-12-29 to 2026-01-05. */
const NOW = new Date('2026-01-05T10:00:00Z');
const DEC_29 = Date.UTC(2025, 11, 29) / 1000;
const JAN_2 = Date.UTC(2026, 0, 2) / 1000;
const JAN_3 = JAN_2 + 86_400;

const CARDS = [
  { model_slug: 'gpt-4o', input_cost_per_million: '2.5', output_cost_per_million: '10' },
  { model_slug: 'claude-sonnet-4', input_cost_per_million: '3', output_cost_per_million: '15' },
];
let seq = 0;
const event = (model: string, at: string, input: number, output: number, extra: Record<string, unknown> = {}): EventBody => ({
  idempotency_key: `poll-${seq++}`,
  model,
  input_tokens: input,
  output_tokens: output,
  timestamp: at,
  ...extra,
});
const EVENTS = [
  // gpt-4o: 1M × 2.5 + 100k × 10 (per million) = 3.5, twice: 7.
  event('gpt-4o', '2026-01-02T09:00:00Z', 1_000_000, 100_000),
  event('gpt-4o', '2026-01-02T15:00:00Z', 1_000_000, 100_000),
  // claude-sonnet-4: 1M × 3 + 200k × 15 = 6.
  event('claude-sonnet-4', '2026-01-02T11:00:00Z', 1_000_000, 200_000, { provider: 'anthropic' }),
];

const openAiResult = (value: number, lineItem: string, project: string | null) => ({
  object: 'organization.costs.result',
  amount: { value, currency: 'usd' },
  line_item: lineItem,
  project_id: project,
});
/** Two pages: January 2 (gpt-4o 4.5 + 1.5 = 6), then January 3 (gpt-4o-mini 0.15, which we do not have). */
const OPENAI_PAGES: Record<string, unknown> = {
  first: {
    object: 'page',
    data: [
      {
        object: 'bucket',
        start_time: JAN_2,
        end_time: JAN_3,
        results: [openAiResult(4.5, 'gpt-4o-2024-08-06, input', 'proj_a'), openAiResult(1.5, 'gpt-4o-2024-08-06, output', 'proj_a')],
      },
    ],
    has_more: true,
    next_page: 'page_2',
  },
  page_2: {
    object: 'page',
    data: [{ object: 'bucket', start_time: JAN_3, end_time: JAN_3 + 86_400, results: [openAiResult(0.15, 'gpt-4o-mini, input', null)] }],
    has_more: false,
    next_page: null,
  },
};
const anthropicResult = (cents: string, model: string) => ({
  amount: cents,
  currency: 'USD',
  model,
  cost_type: 'tokens',
  workspace_id: null,
});
/** Two pages: January 2 (claude-sonnet-4 600 cents = 6), then January 3 (claude-haiku-4-5 25 cents = 0.25). */
const ANTHROPIC_PAGES: Record<string, unknown> = {
  first: {
    data: [
      {
        starting_at: '2026-01-02T00:00:00Z',
        ending_at: '2026-01-03T00:00:00Z',
        results: [anthropicResult('600', 'claude-sonnet-4-20250514')],
      },
    ],
    has_more: true,
    next_page: 'page_2',
  },
  page_2: {
    data: [
      {
        starting_at: '2026-01-03T00:00:00Z',
        ending_at: '2026-01-04T00:00:00Z',
        results: [anthropicResult('25', 'claude-haiku-4-5-20251001')],
      },
    ],
    has_more: false,
    next_page: null,
  },
};

const openAiUsage = (model: string, input: number, cached: number, output: number) => ({
  object: 'organization.usage.completions.result',
  input_tokens: input,
  output_tokens: output,
  input_cached_tokens: cached,
  num_model_requests: 1,
  project_id: 'proj_a',
  user_id: null,
  api_key_id: null,
  model,
  batch: null,
});
/** Two pages: January 2 (gpt-4o 2.1M in of which 100k cached, 200k out), then January 3 (gpt-4o-mini 1,000 in). */
const OPENAI_USAGE_PAGES: Record<string, unknown> = {
  first: {
    object: 'page',
    data: [
      { object: 'bucket', start_time: JAN_2, end_time: JAN_3, results: [openAiUsage('gpt-4o-2024-08-06', 2_100_000, 100_000, 200_000)] },
    ],
    has_more: true,
    next_page: 'page_2',
  },
  page_2: {
    object: 'page',
    data: [{ object: 'bucket', start_time: JAN_3, end_time: JAN_3 + 86_400, results: [openAiUsage('gpt-4o-mini', 1_000, 0, 0)] }],
    has_more: false,
    next_page: null,
  },
};
/** One page: January 2, claude-sonnet-4 1M uncached in, 190k out. */
const ANTHROPIC_USAGE_PAGES: Record<string, unknown> = {
  first: {
    data: [
      {
        starting_at: '2026-01-02T00:00:00Z',
        ending_at: '2026-01-03T00:00:00Z',
        results: [
          {
            uncached_input_tokens: 1_000_000,
            cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
            cache_read_input_tokens: 0,
            output_tokens: 190_000,
            server_tool_use: { web_search_requests: 0 },
            api_key_id: null,
            workspace_id: null,
            model: 'claude-sonnet-4-20250514',
            service_tier: 'standard',
            context_window: '0-200k',
          },
        ],
      },
    ],
    has_more: false,
    next_page: null,
  },
};

let p: Pipeline;
let t: Tenant;
let provider: http.Server;
let providerUrl: string;
const requests: Array<{ path: string; query: URLSearchParams; auth: string | undefined; version: string | undefined }> = [];

beforeAll(async () => {
  // The providers' APIs as documented: wrong key → 401 with their error body.
  provider = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const auth = req.headers.authorization ?? (req.headers['x-api-key'] as string | undefined);
    requests.push({ path: url.pathname, query: url.searchParams, auth, version: req.headers['anthropic-version'] as string | undefined });
    const page = url.searchParams.get('page') ?? 'first';
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/v1/organization/costs') {
      if (req.headers.authorization !== `Bearer ${OPENAI_KEY}`)
        return answer(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
      return answer(200, OPENAI_PAGES[page]);
    }
    if (url.pathname === '/v1/organization/usage/completions') {
      if (req.headers.authorization !== `Bearer ${OPENAI_KEY}`)
        return answer(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
      return answer(200, OPENAI_USAGE_PAGES[page]);
    }
    if (url.pathname === '/v1/organizations/cost_report' || url.pathname === '/v1/organizations/usage_report/messages') {
      if (req.headers['x-api-key'] !== ANTHROPIC_KEY)
        return answer(401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
      return answer(200, (url.pathname === '/v1/organizations/cost_report' ? ANTHROPIC_PAGES : ANTHROPIC_USAGE_PAGES)[page]);
    }
    answer(404, {});
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  p = await startPipeline({ now: () => NOW, api: { providerPollingIntervalMs: 0 } });
  t = await createTenant(p, { name: 'polling', rateCards: CARDS });
  await ingest(p, t, EVENTS);
  await waitForLake(p, t.organizationId, EVENTS.length);
}, 180_000);

afterAll(async () => {
  await p?.stop();
  await new Promise((r) => provider?.close(r));
});

const base = () => `/organizations/${t.organizationId}/reconciliation-connections`;

describe('reconciliation connections', () => {
  it("polls both providers' cost and usage APIs page by page and reconciles their days", async () => {
    const openai = await admin(p.host, 'PUT', `${base()}/openai`, { admin_key: OPENAI_KEY, api_url: providerUrl });
    expect(openai.status).toBe(200);
    expect(openai.body).toMatchObject({ provider: 'openai', key_hint: '6789', api_url: providerUrl, last_polled_at: null });
    expect((await admin(p.host, 'PUT', `${base()}/anthropic`, { admin_key: ANTHROPIC_KEY, api_url: providerUrl })).status).toBe(200);

    const polled = await admin(p.host, 'POST', `${base()}/openai/poll`);
    expect(polled.status).toBe(200);
    expect(polled.body.imported).toMatchObject({ format: 'openai_costs', total_cost: '6.15', lines: 2 });
    // 2.1M − 100k + 1,000 not from cache, 100k cached, 200k out.
    expect(polled.body.usage_imported).toMatchObject({
      format: 'openai_usage_completions',
      lines: 2,
      input_tokens: 2_001_000,
      cached_input_tokens: 100_000,
      output_tokens: 200_000,
    });
    expect(polled.body.connection).toMatchObject({ last_polled_at: NOW.toISOString(), last_error: null });
    const anthropic = await admin(p.host, 'POST', `${base()}/anthropic/poll`);
    expect(anthropic.body.imported).toMatchObject({ format: 'anthropic_cost_report', total_cost: '6.25' });
    expect(anthropic.body.usage_imported).toMatchObject({
      format: 'anthropic_usage_report',
      input_tokens: 1_000_000,
      output_tokens: 190_000,
    });

    // The requests as the providers document them: whole days, daily buckets, grouped, keyed, paged.
    const costs = requests.filter((r) => r.path === '/v1/organization/costs');
    expect(costs.map((r) => r.query.get('page'))).toEqual([null, 'page_2']);
    expect(costs[0]!.auth).toBe(`Bearer ${OPENAI_KEY}`);
    expect([costs[0]!.query.get('start_time'), costs[0]!.query.get('end_time'), costs[0]!.query.get('bucket_width')]).toEqual([
      String(DEC_29),
      String(DEC_29 + 7 * 86_400),
      '1d',
    ]);
    expect(costs[0]!.query.getAll('group_by')).toEqual(['line_item', 'project_id']);
    const report = requests.filter((r) => r.path === '/v1/organizations/cost_report');
    expect(report.map((r) => [r.auth, r.version, r.query.get('page')])).toEqual([
      [ANTHROPIC_KEY, '2023-06-01', null],
      [ANTHROPIC_KEY, '2023-06-01', 'page_2'],
    ]);
    expect(report[0]!.query.get('starting_at')).toBe('2025-12-29T00:00:00.000Z');
    const usage = requests.filter((r) => r.path === '/v1/organization/usage/completions');
    expect(usage.map((r) => [r.auth, r.query.get('page'), r.query.get('start_time'), r.query.get('bucket_width')])).toEqual([
      [`Bearer ${OPENAI_KEY}`, null, String(DEC_29), '1d'],
      [`Bearer ${OPENAI_KEY}`, 'page_2', String(DEC_29), '1d'],
    ]);
    expect(usage[0]!.query.getAll('group_by')).toEqual(['model', 'project_id']);
    const messages = requests.filter((r) => r.path === '/v1/organizations/usage_report/messages');
    expect(messages.map((r) => [r.auth, r.version, r.query.get('starting_at'), r.query.get('bucket_width')])).toEqual([
      [ANTHROPIC_KEY, '2023-06-01', '2025-12-29T00:00:00.000Z', '1d'],
    ]);
    expect(messages[0]!.query.getAll('group_by[]')).toEqual(['model', 'workspace_id']);

    const rec = await apiGet(p, t.readKey, '/reconciliation', { start_date: '2026-01-02', end_date: '2026-01-04' });
    expect(rec.status).toBe(200);
    const brief = rec.body.rows.map((r: Record<string, unknown>) => [r.date, r.provider, r.model, r.provider_cost, r.our_cost, r.variance]);
    expect(brief).toEqual(
      expect.arrayContaining([
        // 7 − 6 = 1.
        ['2026-01-02', 'openai', 'gpt-4o', '6', '7', '1'],
        // 6 − 6 = 0.
        ['2026-01-02', 'anthropic', 'claude-sonnet-4', '6', '6', '0'],
        ['2026-01-03', 'openai', 'gpt-4o-mini', '0.15', '0', '-0.15'],
        ['2026-01-03', 'anthropic', 'claude-haiku-4-5', '0.25', '0', '-0.25'],
      ]),
    );
    expect(brief).toHaveLength(4);
    type Row = { date: string; model: string; tokens: Record<string, { variance: number }> | null };
    const variances = rec.body.rows.map((r: Row) =>
      r.tokens === null
        ? [r.date, r.model, null]
        : [r.date, r.model, r.tokens.input_tokens.variance, r.tokens.cached_input_tokens.variance, r.tokens.output_tokens.variance],
    );
    expect(variances).toEqual(
      expect.arrayContaining([
        // Ours 2M in, 200k out; theirs 2M not from cache, 100k cached, 200k out.
        ['2026-01-02', 'gpt-4o', 0, -100_000, 0],
        // Ours 1M in, 200k out; theirs 1M in, 190k out.
        ['2026-01-02', 'claude-sonnet-4', 0, 0, 10_000],
        ['2026-01-03', 'gpt-4o-mini', -1_000, 0, 0],
        // No Anthropic usage of January 3: tokens null where only the cost report covers the day.
        ['2026-01-03', 'claude-haiku-4-5', null],
      ]),
    );
  });

  it('a refused key is recorded on the connection, never echoed; listing and disconnecting', async () => {
    await admin(p.host, 'PUT', `${base()}/anthropic`, { admin_key: 'sk-ant-admin01-wrong-zzzz', api_url: providerUrl });
    const polled = await admin(p.host, 'POST', `${base()}/anthropic/poll`);
    expect(polled.body.imported).toBeNull();
    expect(polled.body.connection.last_error).toContain('HTTP 401');
    const list = await admin(p.host, 'GET', base());
    expect(list.body.connections.map((c: { provider: string; key_hint: string }) => [c.provider, c.key_hint])).toEqual([
      ['anthropic', 'zzzz'],
      ['openai', '6789'],
    ]);
    expect(JSON.stringify(list.body)).not.toContain(OPENAI_KEY);
    expect(JSON.stringify(list.body)).not.toContain('wrong');
    expect((await admin(p.host, 'PUT', `${base()}/gemini`, { admin_key: 'x' })).body.error.details.field).toBe('provider');
    expect((await admin(p.host, 'PUT', `${base()}/openai`, { admin_key: 'k', api_url: 'ftp://x' })).body.error.details.field).toBe(
      'api_url',
    );
    expect((await admin(p.host, 'DELETE', `${base()}/anthropic`)).status).toBe(204);
    expect((await admin(p.host, 'DELETE', `${base()}/anthropic`)).status).toBe(404);
    expect((await admin(p.host, 'POST', `${base()}/anthropic/poll`)).status).toBe(404);
  });
});
