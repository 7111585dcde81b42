import { describe, expect, it } from 'vitest';
import {
  anthropicStreamCollector,
  fromAnthropicMessage,
  fromOpenAIChatCompletion,
  fromOpenAIResponse,
  openAIChatStreamCollector,
  openAIResponsesStreamCollector,
  type StreamUsageCollector,
} from '../../src/providers/usage-mapping.js';
import { providerVectors, type ProviderVector } from '../support/vectors.js';

function mapped(v: ProviderVector) {
  if (!v.stream) {
    if (v.api === 'chat.completions') return fromOpenAIChatCompletion(v.response);
    if (v.api === 'responses') return fromOpenAIResponse(v.response);
    return fromAnthropicMessage(v.response);
  }
  const collector: StreamUsageCollector =
    v.api === 'chat.completions'
      ? openAIChatStreamCollector()
      : v.api === 'responses'
        ? openAIResponsesStreamCollector()
        : anthropicStreamCollector();
  for (const item of v.sse!) if (item.data !== '[DONE]') collector.observe(item.data);
  return collector.usage();
}

describe('provider usage mapping (shared vectors)', () => {
  it('covers every API, streamed and not', () => {
    const kinds = new Set(providerVectors.map((v) => `${v.api}/${v.stream}`));
    expect([...kinds].sort()).toEqual([
      'chat.completions/false',
      'chat.completions/true',
      'messages/false',
      'messages/true',
      'responses/false',
      'responses/true',
    ]);
  });

  it.each(providerVectors.map((v) => [v.name, v] as const))('%s', (_, v) => {
    expect(mapped(v)).toEqual(v.expected_event);
  });

  it('OpenAI classes are disjoint: they add up to the provider total', () => {
    for (const v of providerVectors.filter((x) => x.provider === 'openai')) {
      const e = mapped(v)!;
      const sum = e.input_tokens + e.output_tokens + (e.cache_read_input_tokens ?? 0) + (e.reasoning_tokens ?? 0);
      const usage = (v.response ??
        (v.sse!.map((s) => s.data as Record<string, any>).find((d) => d?.usage ?? d?.response?.usage) as any)) as any;
      const u = usage.usage ?? usage.response.usage;
      expect(sum).toBe(u.total_tokens);
    }
  });

  it('a stream cut before its usage reports nothing; a response without usage maps to null', () => {
    const chat = providerVectors.find((v) => v.api === 'chat.completions' && v.stream)!;
    const collector = openAIChatStreamCollector();
    for (const item of chat.sse!.slice(0, 3)) collector.observe(item.data);
    expect(collector.usage()).toBeNull();
    expect(fromOpenAIChatCompletion({ model: 'gpt-4o', usage: null })).toBeNull();
    expect(fromAnthropicMessage({ type: 'message' })).toBeNull();
  });
});
