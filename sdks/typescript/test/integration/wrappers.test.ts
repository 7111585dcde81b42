// wrapOpenAI and wrapAnthropic with the official clients pointed at a local server that answers
// with the recorded shapes of sdks/test-vectors/providers.json (streams as SSE): the caller gets
// what it would have got, and the real service records one event per call whose token classes
// and cost (worked out here with big.js) are right.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Marginal } from '../../src/client.js';
import { withContext } from '../../src/context.js';
import type { EventResult } from '../../src/events.js';
import { wrapAnthropic } from '../../src/providers/anthropic.js';
import { wrapOpenAI } from '../../src/providers/openai.js';
import { expectedCost, sameAmount } from '../support/expected-cost.js';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.js';
import { aroundNow, createTenant, waitFor, type RateCard, type Tenant } from '../support/tenant.js';
import { providerVectors, type ProviderVector } from '../support/vectors.js';

// One card per response model (exact slug), every class priced at its own rate.
const cardFor = (model: string): RateCard => ({
  model_slug: model,
  input_cost_per_million: '2.5',
  output_cost_per_million: '10',
  cache_creation_cost_per_million: '3.75',
  cache_read_cost_per_million: '0.25',
  reasoning_cost_per_million: '12',
});

let provider: FakeProvider;
let tenant: Tenant;
let marginal: Marginal;
let openai: OpenAI;
let anthropic: Anthropic;
let plainOpenAI: OpenAI;
let plainAnthropic: Anthropic;
const results: EventResult[] = [];

beforeAll(async () => {
  provider = await startFakeProvider();
  const models = [...new Set(providerVectors.map((v) => v.expected_event.model))];
  tenant = await createTenant({ rateCards: models.map(cardFor) });
  marginal = new Marginal({
    apiKey: tenant.apiKey,
    signingSecret: tenant.signingSecret,
    baseUrl: tenant.url,
    flushOnExit: false,
    onResult: (r) => results.push(r),
  });
  const onCaptureError = (err: unknown) => {
    throw new Error(`capture failed: ${String(err)}`);
  };
  plainOpenAI = new OpenAI({ apiKey: 'sk-test', baseURL: `${provider.url}/v1`, maxRetries: 0 });
  plainAnthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: provider.url, maxRetries: 0 });
  openai = wrapOpenAI(new OpenAI({ apiKey: 'sk-test', baseURL: `${provider.url}/v1`, maxRetries: 0 }), marginal, {
    feature: 'wrappers',
    onCaptureError,
  });
  anthropic = wrapAnthropic(new Anthropic({ apiKey: 'sk-ant-test', baseURL: provider.url, maxRetries: 0 }), marginal, {
    feature: 'wrappers',
    onCaptureError,
  });
});

afterAll(async () => {
  await marginal?.shutdown();
  await provider?.close();
});

/** Makes the vector's call through a client (wrapped or not) and returns what the caller saw. */
async function call(v: ProviderVector, clients: { openai: OpenAI; anthropic: Anthropic }): Promise<unknown> {
  provider.enqueue(v);
  const body = v.request as any;
  if (v.api === 'messages') {
    const result: any = await clients.anthropic.messages.create(body);
    return v.stream ? collect(result) : result;
  }
  const result: any =
    v.api === 'responses' ? await clients.openai.responses.create(body) : await clients.openai.chat.completions.create(body);
  return v.stream ? collect(result) : result;
}

async function collect(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const items: unknown[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

const userOf = (i: number) => `vector-${i}`;

describe('wrappers over the shared provider vectors', () => {
  it('the caller gets exactly what the unwrapped client gives; one event per call with the vector fields', async () => {
    for (const [i, v] of providerVectors.entries()) {
      const seen = await withContext({ userId: userOf(i), sessionId: 'wrap-session' }, () => call(v, { openai, anthropic }));
      const plain = await call(v, { openai: plainOpenAI, anthropic: plainAnthropic });
      expect(seen, v.name).toEqual(plain);
      // (The clients add derived fields such as output_text, and Anthropic's skips ping events.)
      if (v.stream) expect((seen as unknown[]).length, v.name).toBeGreaterThan(1);
      else expect(seen, v.name).toMatchObject(v.response!);
    }
    await marginal.flush();
    expect(results).toHaveLength(providerVectors.length);
    for (const [i, v] of providerVectors.entries()) {
      const r = results.find((x) => x.event.user_id === userOf(i));
      expect(r?.status, v.name).toBe('accepted');
      const { idempotency_key, timestamp, started_at, ...fields } = r!.event;
      expect(fields, v.name).toEqual({ ...v.expected_event, user_id: userOf(i), session_id: 'wrap-session', feature: 'wrappers' });
      expect(Date.parse(started_at!)).toBeLessThanOrEqual(Date.parse(timestamp!));
      expect(idempotency_key).toMatch(/\S/);
    }
  });

  it('the service prices each recorded call by its token classes', async () => {
    const reader = new Marginal({ apiKey: tenant.readKey, baseUrl: tenant.url, flushOnExit: false });
    const range = aroundNow();
    let rows: Awaited<ReturnType<Marginal['costByEndUser']>>['end_users'] = [];
    await waitFor('every wrapped call costed', async () => {
      rows = (await reader.costByEndUser(range)).end_users;
      return providerVectors.every((_, i) => rows.some((r) => r.end_user_name === userOf(i)));
    });
    for (const [i, v] of providerVectors.entries()) {
      const row = rows.find((r) => r.end_user_name === userOf(i))!;
      const e = v.expected_event as Parameters<typeof expectedCost>[0];
      const cost = expectedCost(e, cardFor(v.expected_event.model));
      expect(row.event_count, v.name).toBe(1);
      expect([row.input_tokens, row.output_tokens], v.name).toEqual([e.input_tokens, e.output_tokens]);
      expect([row.cache_creation_input_tokens, row.cache_read_input_tokens, row.reasoning_tokens], v.name).toEqual([
        e.cache_creation_input_tokens ?? null,
        e.cache_read_input_tokens ?? null,
        e.reasoning_tokens ?? null,
      ]);
      expect(sameAmount(row.total_cost, cost.total), `${v.name}: total ${row.total_cost} vs ${cost.total}`).toBe(true);
      expect(sameAmount(row.input_cost, cost.input_cost) && sameAmount(row.output_cost, cost.output_cost), v.name).toBe(true);
      if (e.reasoning_tokens !== undefined) expect(sameAmount(row.reasoning_cost, cost.reasoning_cost), v.name).toBe(true);
      if (e.cache_read_input_tokens !== undefined) expect(sameAmount(row.cache_read_cost, cost.cache_read_cost), v.name).toBe(true);
      if (e.cache_creation_input_tokens !== undefined)
        expect(sameAmount(row.cache_creation_cost, cost.cache_creation_cost), v.name).toBe(true);
    }
  });
});

describe('wrapper behaviour', () => {
  const chatStream = providerVectors.find((v) => v.api === 'chat.completions' && v.stream)!;

  it('a chat stream without include_usage: usage is asked for, its chunk kept from the caller, the call recorded', async () => {
    results.length = 0;
    provider.enqueue(chatStream);
    const { stream_options: _dropped, ...request } = chatStream.request as any;
    const stream: any = await withContext({ userId: 'no-usage-asked' }, () => openai.chat.completions.create(request));
    const chunks: any[] = await collect(stream);
    expect(provider.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });
    expect(chunks.every((c) => c.choices.length > 0)).toBe(true);
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('Hello there!');
    await marginal.flush();
    expect(results.map((r) => [r.status, r.event.user_id, r.event.cache_read_input_tokens])).toEqual([
      ['accepted', 'no-usage-asked', 1280],
    ]);
  });

  it('Anthropic messages.stream() helper: the final message is recorded', async () => {
    results.length = 0;
    const v = providerVectors.find((x) => x.api === 'messages' && x.stream)!;
    provider.enqueue(v);
    const { stream: _s, ...request } = v.request as any;
    const message = await anthropic.messages.stream(request).finalMessage();
    expect(message.usage.output_tokens).toBe(27);
    await marginal.flush();
    expect(results).toHaveLength(1);
    expect(results[0]!.event).toMatchObject(v.expected_event);
  });

  it('OpenAI stream helpers: chat.completions.stream() (with include_usage) and responses.stream() are recorded', async () => {
    results.length = 0;
    provider.enqueue(chatStream);
    const { stream: _s, ...chatRequest } = chatStream.request as any;
    const completion = await withContext({ userId: 'helper-chat' }, () =>
      openai.chat.completions.stream(chatRequest).finalChatCompletion(),
    );
    expect(completion.choices[0]!.message.content).toBe('Hello there!');
    const responsesStream = providerVectors.find((v) => v.api === 'responses' && v.stream)!;
    provider.enqueue(responsesStream);
    const { stream: _r, ...responsesRequest } = responsesStream.request as any;
    const response = await withContext({ userId: 'helper-responses' }, () => openai.responses.stream(responsesRequest).finalResponse());
    expect(response.usage?.output_tokens).toBe(210);
    await marginal.flush();
    const byUser = Object.fromEntries(results.map((r) => [r.event.user_id, r.event]));
    expect(byUser['helper-chat']).toMatchObject(chatStream.expected_event);
    expect(byUser['helper-responses']).toMatchObject(responsesStream.expected_event);
  });

  it('defaults, context and nested context merge; metadata merges key by key', async () => {
    results.length = 0;
    const v = providerVectors.find((x) => x.api === 'chat.completions' && !x.stream)!;
    const client = wrapOpenAI(new OpenAI({ apiKey: 'sk-test', baseURL: `${provider.url}/v1`, maxRetries: 0 }), marginal, {
      userId: 'default-user',
      agentId: 'default-agent',
      metadata: { team: 'search' },
    });
    provider.enqueue(v);
    await withContext({ agentId: 'outer', metadata: { env: 'test' } }, () =>
      withContext({ spanId: 'span-1', spanKind: 'llm' }, () => client.chat.completions.create(v.request as any)),
    );
    await marginal.flush();
    expect(results[0]!.event).toMatchObject({
      user_id: 'default-user',
      agent_id: 'outer',
      span_id: 'span-1',
      span_kind: 'llm',
      metadata: { team: 'search', env: 'test' },
    });
  });

  it('a capture failure never breaks the call; a provider error reaches the caller as before and records nothing', async () => {
    const v = providerVectors.find((x) => x.api === 'messages' && !x.stream)!;
    const captureErrors: unknown[] = [];
    const noSecret = new Marginal({ apiKey: 'mk_x', baseUrl: tenant.url, flushOnExit: false }); // track throws: no signing secret
    const client = wrapAnthropic(new Anthropic({ apiKey: 'k', baseURL: provider.url, maxRetries: 0 }), noSecret, {
      onCaptureError: (e) => captureErrors.push(e),
    });
    provider.enqueue(v);
    const message = await client.messages.create(v.request as any);
    expect(message).toEqual(v.response);
    expect(captureErrors).toHaveLength(1);
    expect(String(captureErrors[0])).toMatch(/signingSecret/);

    results.length = 0;
    provider.enqueue({
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } },
    });
    const err = await anthropic.messages.create({ model: 'claude-sonnet-4-5', messages: [] } as any).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    await marginal.flush();
    expect(results).toHaveLength(0);
  });

  it('withResponse() still works on a wrapped call', async () => {
    const v = providerVectors.find((x) => x.api === 'responses' && !x.stream)!;
    provider.enqueue(v);
    const { data, response } = await openai.responses.create(v.request as any).withResponse();
    expect(response.status).toBe(200);
    expect(data.id).toBe((v.response as any).id);
  });
});
