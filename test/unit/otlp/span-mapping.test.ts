// The OTLP span → usage event / structural span / rejection rule, on spans written out by hand.
// Every expected token class is worked out in the test's comments from the inclusive counts sent.
import { describe, expect, it } from 'vitest';
import type { Attributes, OtlpSpan } from '../../../otlp/otlp-codec.js';
import { idempotencyKeyOf, mapSpan } from '../../../otlp/span-mapping.js';

const TRACE = '5b8efff798038103d269b633813fc60c';
const SPAN = 'eee19b7ec3c1b174';
const PARENT = 'eee19b7ec3c1b173';
// 2026-11-24T10:00:00.123Z and 1.5 s later (the codec drops nanoseconds past the millisecond).
const START_MS = 1_795_514_400_123;
const END_MS = 1_795_514_401_623;

function span(attributes: Attributes, extra: Partial<OtlpSpan> = {}): OtlpSpan {
  return {
    traceId: TRACE,
    spanId: SPAN,
    parentSpanId: PARENT,
    name: 'chat gpt-4o',
    startTimeUnixMs: START_MS,
    endTimeUnixMs: END_MS,
    attributes,
    resourceAttributes: {},
    ...extra,
  };
}

describe('mapSpan: spans with model usage become usage events', () => {
  it('current GenAI conventions: cached input inside input_tokens, reasoning inside output_tokens', () => {
    const m = mapSpan(
      span(
        {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.response.model': 'gpt-4o-2024-08-06',
          'gen_ai.usage.input_tokens': 1000, // 1000 = 700 plain + 200 cache read + 100 cache creation
          'gen_ai.usage.cache_read.input_tokens': 200,
          'gen_ai.usage.cache_creation.input_tokens': 100,
          'gen_ai.usage.output_tokens': 500, // 500 = 380 plain + 120 reasoning
          'gen_ai.usage.reasoning.output_tokens': 120,
          'gen_ai.conversation.id': 'conv-7',
          'gen_ai.agent.id': 'support-bot',
          'user.id': 'alice',
        },
        { resourceAttributes: { 'service.name': 'shop' } },
      ),
    );
    expect(m).toEqual({
      type: 'usage',
      spanId: SPAN,
      event: {
        idempotency_key: `otlp:${TRACE}:${SPAN}`,
        timestamp: '2026-11-24T10:00:01.623Z',
        started_at: '2026-11-24T10:00:00.123Z',
        model: 'gpt-4o-2024-08-06',
        provider: 'openai',
        input_tokens: 700,
        output_tokens: 380,
        cache_read_input_tokens: 200,
        cache_creation_input_tokens: 100,
        reasoning_tokens: 120,
        session_id: 'conv-7',
        span_id: SPAN,
        parent_span_id: PARENT,
        span_name: 'chat gpt-4o',
        span_kind: 'llm',
        user_id: 'alice',
        agent_id: 'support-bot',
      },
    });
  });

  it('older names (gen_ai.usage.prompt_tokens / completion_tokens, gen_ai.system), session falls back to the trace id', () => {
    const m = mapSpan(
      span(
        {
          'gen_ai.system': 'openai',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.usage.prompt_tokens': 42,
          'gen_ai.usage.completion_tokens': 7,
          'llm.request.type': 'chat',
        },
        { parentSpanId: null },
      ),
    );
    expect(m.type).toBe('usage');
    const e = (m as Extract<typeof m, { type: 'usage' }>).event;
    expect(e).toMatchObject({
      model: 'gpt-4o-mini',
      provider: 'openai',
      input_tokens: 42,
      output_tokens: 7,
      session_id: TRACE,
      span_kind: 'llm',
    });
    expect(e).not.toHaveProperty('parent_span_id');
    expect(e).not.toHaveProperty('cache_read_input_tokens');
  });

  it('OpenLLMetry llm.usage.* and the Vercel AI SDK ai.usage.* (doGenerate child priced, provider "openai.chat" → "openai")', () => {
    const llm = mapSpan(
      span({
        'llm.request.model': 'claude-3-5-sonnet',
        'llm.usage.prompt_tokens': 10,
        'llm.usage.completion_tokens': 3,
        'enduser.id': 'bob',
      }),
    );
    expect(llm).toMatchObject({ type: 'usage', event: { model: 'claude-3-5-sonnet', input_tokens: 10, output_tokens: 3, user_id: 'bob' } });
    const vercel = mapSpan(
      span({
        'ai.operationId': 'ai.generateText.doGenerate',
        'ai.model.id': 'gpt-4o',
        'ai.model.provider': 'openai.chat',
        'ai.usage.inputTokens': 300, // 300 = 250 + 50 cached
        'ai.usage.cachedInputTokens': 50,
        'ai.usage.outputTokens': 20,
      }),
    );
    expect(vercel).toMatchObject({
      type: 'usage',
      event: { model: 'gpt-4o', provider: 'openai', input_tokens: 250, cache_read_input_tokens: 50, output_tokens: 20 },
    });
    // The outer ai.generateText span repeats its children's usage: structural, so nothing counts twice.
    const outer = mapSpan(
      span({ 'ai.operationId': 'ai.generateText', 'ai.model.id': 'gpt-4o', 'ai.usage.inputTokens': 300, 'ai.usage.outputTokens': 20 }),
    );
    expect(outer).toMatchObject({ type: 'structural', span: { kind: 'task' } });
  });

  it('span kind from gen_ai.operation.name, then traceloop / openinference span kinds', () => {
    const kind = (attrs: Attributes) => {
      const m = mapSpan(span(attrs));
      return m.type === 'structural' ? m.span.kind : m.type === 'usage' ? m.event.span_kind : m.reason;
    };
    expect(kind({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner' })).toBe('agent');
    expect(kind({ 'gen_ai.operation.name': 'execute_tool' })).toBe('tool');
    expect(kind({ 'traceloop.span.kind': 'workflow' })).toBe('task');
    expect(kind({ 'openinference.span.kind': 'RETRIEVER' })).toBe('retrieval');
    expect(kind({ 'http.method': 'GET' })).toBeNull();
    expect(
      kind({ 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'text-embedding-3-small', 'gen_ai.usage.input_tokens': 8 }),
    ).toBe('llm');
  });

  it('the idempotency key depends only on trace and span id', () => {
    const a = mapSpan(span({ 'gen_ai.request.model': 'm', 'gen_ai.usage.input_tokens': 1 }));
    const b = mapSpan(
      span({ 'gen_ai.request.model': 'm', 'gen_ai.usage.input_tokens': 1 }, { name: 'renamed', startTimeUnixMs: 1_795_514_400_000 }),
    );
    expect((a as any).event.idempotency_key).toBe(idempotencyKeyOf(TRACE, SPAN));
    expect((b as any).event.idempotency_key).toBe((a as any).event.idempotency_key);
  });
});

describe('mapSpan: structural spans and rejections', () => {
  it('an agent span without usage is structural, with its timing', () => {
    const m = mapSpan(
      span(
        { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner', 'gen_ai.conversation.id': 'c1' },
        { name: 'invoke_agent planner' },
      ),
    );
    expect(m).toEqual({
      type: 'structural',
      span: {
        traceId: TRACE,
        spanId: SPAN,
        parentSpanId: PARENT,
        sessionId: 'c1',
        name: 'invoke_agent planner',
        kind: 'agent',
        agentId: 'planner',
        startedAt: new Date('2026-11-24T10:00:00.123Z'),
        endedAt: new Date('2026-11-24T10:00:01.623Z'),
      },
    });
  });

  it('usage without a model, a model call without counts, inconsistent or bad counts are rejected with the reason', () => {
    const reason = (attrs: Attributes, extra: Partial<OtlpSpan> = {}) => {
      const m = mapSpan(span(attrs, extra));
      return m.type === 'rejected' ? m.reason : `not rejected: ${m.type}`;
    };
    expect(reason({ 'gen_ai.usage.input_tokens': 5 })).toMatch(/usage without a model/);
    expect(reason({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' })).toMatch(/model call without token counts/);
    expect(
      reason({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.cache_read.input_tokens': 150 }),
    ).toBe('cache tokens (150 read + 0 creation) exceed gen_ai.usage.input_tokens (100), which includes them');
    expect(
      reason({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.output_tokens': 10, 'gen_ai.usage.reasoning.output_tokens': 11 }),
    ).toMatch(/reasoning tokens \(11\) exceed/);
    expect(reason({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': -3 })).toBe(
      'gen_ai.usage.input_tokens is not a non-negative integer token count',
    );
    expect(reason({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 2.5 })).toMatch(/not a non-negative integer/);
    expect(reason({}, { spanId: '00' })).toMatch(/spanId must be 8 bytes/);
    expect(reason({}, { traceId: '0'.repeat(32) })).toMatch(/traceId/);
    expect(reason({}, { startTimeUnixMs: END_MS, endTimeUnixMs: START_MS })).toMatch(/before startTimeUnixNano/);
    // Structural spans skip ingest's validation, so their stored text is checked here.
    expect(reason({}, { name: 'a\u0000b' })).toMatch(/^span name /);
    expect(reason({ 'gen_ai.conversation.id': '\ud800' })).toMatch(/^session id /);
    expect(reason({ 'gen_ai.agent.id': 'x'.repeat(256) })).toBe('agent id is longer than 255 characters');
  });

  it('token counts sent as digit text or integral doubles are read', () => {
    const m = mapSpan(span({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': '12', 'gen_ai.usage.output_tokens': 3.0 }));
    expect(m).toMatchObject({ type: 'usage', event: { input_tokens: 12, output_tokens: 3 } });
  });

  it('organization-mapped attributes go to metadata, span attributes before resource attributes', () => {
    const m = mapSpan(
      span(
        { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 1, tier: 'gold' },
        { resourceAttributes: { 'deployment.environment': 'prod', tier: 'free' } },
      ),
      new Map([
        ['deployment.environment', 'env'],
        ['tier', 'tier'],
      ]),
    );
    expect((m as any).event.metadata).toEqual({ env: 'prod', tier: 'gold' });
  });
});

describe('span names', () => {
  it('are cut to 255 UTF-16 units, never inside a surrogate pair', () => {
    const long = `${'a'.repeat(254)}😀tail`;
    const m = mapSpan(span({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 1 }, { name: long }));
    expect((m as any).event.span_name).toBe('a'.repeat(254));
    const s = mapSpan(span({}, { name: 'b'.repeat(300) }));
    expect((s as any).span.name).toBe('b'.repeat(255));
  });
});
