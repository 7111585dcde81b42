// Provider usage → Marginal token classes, as pure functions over response shapes (no I/O).
// Our classes are disjoint and each priced at its own rate, so:
// - OpenAI counts cached tokens inside prompt/input tokens and reasoning tokens inside
//   completion/output tokens: input = prompt − cached, cache read = cached,
//   output = completion − reasoning, reasoning = reasoning.
// - Anthropic's input_tokens already exclude the cache; cache_creation_input_tokens and
//   cache_read_input_tokens are their own classes.
// A class is set exactly when the provider reported it as a number (0 included). The model is the
// response's model, not the requested alias. Worked examples: sdks/test-vectors/providers.json.
import { isRecord } from '../errors.js';

export interface ProviderUsage {
  provider: 'openai' | 'anthropic';
  model: string;
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  reasoning_tokens?: number;
}

type Json = Record<string, unknown>;

function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

function field(obj: unknown, key: string): unknown {
  return isRecord(obj) ? obj[key] : undefined;
}

/**
 * OpenAI usage in either naming: chat (`prompt_tokens`, `completion_tokens`, `*_tokens_details`)
 * or Responses (`input_tokens`, `output_tokens`, `*_tokens_details`).
 */
export function openAIUsage(model: unknown, usage: unknown): ProviderUsage | null {
  if (typeof model !== 'string' || !isRecord(usage)) return null;
  const chat = usage.prompt_tokens !== undefined;
  const prompt = count(chat ? usage.prompt_tokens : usage.input_tokens);
  const completion = count(chat ? usage.completion_tokens : usage.output_tokens);
  if (prompt === undefined || completion === undefined) return null;
  const cached = count(field(chat ? usage.prompt_tokens_details : usage.input_tokens_details, 'cached_tokens'));
  const reasoning = count(field(chat ? usage.completion_tokens_details : usage.output_tokens_details, 'reasoning_tokens'));
  const out: ProviderUsage = {
    provider: 'openai',
    model,
    input_tokens: Math.max(0, prompt - (cached ?? 0)),
    output_tokens: Math.max(0, completion - (reasoning ?? 0)),
  };
  if (cached !== undefined) out.cache_read_input_tokens = cached;
  if (reasoning !== undefined) out.reasoning_tokens = reasoning;
  return out;
}

/** A chat completion (`object: "chat.completion"`) or the usage chunk of a chat stream. */
export function fromOpenAIChatCompletion(response: unknown): ProviderUsage | null {
  return openAIUsage(field(response, 'model'), field(response, 'usage'));
}

/** A Responses API response (`object: "response"`). */
export function fromOpenAIResponse(response: unknown): ProviderUsage | null {
  return openAIUsage(field(response, 'model'), field(response, 'usage'));
}

/** Anthropic usage: input as is, the two cache classes beside it. */
export function anthropicUsage(model: unknown, usage: unknown): ProviderUsage | null {
  if (typeof model !== 'string' || !isRecord(usage)) return null;
  const input = count(usage.input_tokens);
  const output = count(usage.output_tokens);
  if (input === undefined || output === undefined) return null;
  const out: ProviderUsage = { provider: 'anthropic', model, input_tokens: input, output_tokens: output };
  const creation = count(usage.cache_creation_input_tokens);
  const read = count(usage.cache_read_input_tokens);
  if (creation !== undefined) out.cache_creation_input_tokens = creation;
  if (read !== undefined) out.cache_read_input_tokens = read;
  return out;
}

/** An Anthropic message (`type: "message"`). */
export function fromAnthropicMessage(message: unknown): ProviderUsage | null {
  return anthropicUsage(field(message, 'model'), field(message, 'usage'));
}

/** Folds the items of a stream into the call's usage; `usage()` is null until the stream reported it. */
export interface StreamUsageCollector {
  observe(item: unknown): void;
  usage(): ProviderUsage | null;
}

/** OpenAI chat stream: usage comes in the last chunk (empty `choices`) when include_usage was set. */
export function openAIChatStreamCollector(): StreamUsageCollector {
  let found: ProviderUsage | null = null;
  return {
    observe(chunk) {
      if (isRecord(chunk) && isRecord(chunk.usage)) found = fromOpenAIChatCompletion(chunk) ?? found;
    },
    usage: () => found,
  };
}

const RESPONSE_FINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** OpenAI Responses stream: the final event (completed, incomplete or failed) carries the response with usage. */
export function openAIResponsesStreamCollector(): StreamUsageCollector {
  let found: ProviderUsage | null = null;
  return {
    observe(event) {
      if (isRecord(event) && typeof event.type === 'string' && RESPONSE_FINAL_EVENTS.has(event.type)) {
        found = fromOpenAIResponse(event.response) ?? found;
      }
    },
    usage: () => found,
  };
}

/**
 * Anthropic stream: message_start carries the model, input and cache counts; each message_delta
 * carries the cumulative output_tokens (and, in newer API versions, the input and cache counts
 * again). A later count replaces an earlier one.
 */
export function anthropicStreamCollector(): StreamUsageCollector {
  let model: unknown;
  let usage: Json | null = null;
  return {
    observe(event) {
      if (!isRecord(event)) return;
      if (event.type === 'message_start' && isRecord(event.message)) {
        model = event.message.model;
        usage = isRecord(event.message.usage) ? { ...event.message.usage } : {};
      } else if (event.type === 'message_delta' && isRecord(event.usage) && usage) {
        for (const [k, v] of Object.entries(event.usage)) if (v !== null && v !== undefined) usage[k] = v;
      }
    },
    usage: () => (usage ? anthropicUsage(model, usage) : null),
  };
}
