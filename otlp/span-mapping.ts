// The OTLP span → Marginal rule: pure, no I/O. A span that reports model usage becomes one usage
// event request (the body POST /v1/usage-events takes, checked afterwards by ingest's own
// validateEvent); a span without usage becomes a structural span of the call tree (timing, zero
// own cost); a span that looks like a model call but cannot be priced (no model, unknown or
// inconsistent counts) is rejected with the reason. Invariants: the idempotency key depends only
// on the trace and span ids, so a re-sent export maps to the same keys; token classes come out
// disjoint (GenAI semantic conventions count cached input inside input_tokens and reasoning
// inside output_tokens; older names are read the same way).
import { textFault } from '../core/text.js';
import type { SpanKind } from '../ingest/ingest.types.js';
import type { AttributeValue, Attributes, OtlpSpan } from './otlp-codec.js';

/** A span the tree shows without usage of its own (never an event, never a credit). */
export interface StructuralSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  sessionId: string;
  name: string;
  kind: SpanKind | null;
  agentId: string | null;
  startedAt: Date;
  endedAt: Date;
}

/** The body of one POST /v1/usage-events, as JSON would carry it. */
type UsageEventBody = Record<string, unknown> & { idempotency_key: string };

export type SpanMapping =
  | { type: 'usage'; spanId: string; event: UsageEventBody }
  | { type: 'structural'; span: StructuralSpan }
  | { type: 'rejected'; spanId: string; reason: string };

/** Resource or span attribute → metadata key, set per organization (e.g. deployment.environment → env). */
export type MetadataMapping = ReadonlyMap<string, string>;

// Attribute names, current GenAI semantic conventions first, then the names older or
// framework-specific instrumentations still emit (OpenLLMetry llm.*, OpenInference, Vercel AI SDK ai.*).
const INPUT_TOKENS = [
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.prompt_tokens',
  'llm.usage.prompt_tokens',
  'llm.token_count.prompt',
  'ai.usage.inputTokens',
  'ai.usage.promptTokens',
];
const OUTPUT_TOKENS = [
  'gen_ai.usage.output_tokens',
  'gen_ai.usage.completion_tokens',
  'llm.usage.completion_tokens',
  'llm.token_count.completion',
  'ai.usage.outputTokens',
  'ai.usage.completionTokens',
];
const CACHE_READ_TOKENS = [
  'gen_ai.usage.cache_read.input_tokens',
  'gen_ai.usage.cache_read_input_tokens',
  'gen_ai.usage.input_tokens.cached',
  'llm.usage.cache_read_input_tokens',
  'llm.token_count.prompt_details.cache_read',
  'ai.usage.cachedInputTokens',
];
const CACHE_CREATION_TOKENS = [
  'gen_ai.usage.cache_creation.input_tokens',
  'gen_ai.usage.cache_creation_input_tokens',
  'gen_ai.usage.input_tokens.cache_write',
  'llm.usage.cache_creation_input_tokens',
  'llm.token_count.prompt_details.cache_write',
];
const REASONING_TOKENS = [
  'gen_ai.usage.reasoning.output_tokens',
  'gen_ai.usage.output_tokens.reasoning',
  'gen_ai.usage.reasoning_tokens',
  'llm.usage.reasoning_tokens',
  'llm.token_count.completion_details.reasoning',
  'ai.usage.reasoningTokens',
];
const MODEL = [
  'gen_ai.response.model',
  'gen_ai.request.model',
  'llm.response.model',
  'llm.request.model',
  'llm.model_name',
  'ai.response.model',
  'ai.model.id',
];
const PROVIDER = ['gen_ai.provider.name', 'gen_ai.system', 'llm.provider', 'llm.system', 'ai.model.provider'];
const SESSION = ['gen_ai.conversation.id', 'session.id', 'traceloop.association.properties.session_id'];
const USER = ['user.id', 'enduser.id', 'traceloop.association.properties.user_id'];
const AGENT = ['gen_ai.agent.id', 'gen_ai.agent.name'];
const WORKFLOW = ['gen_ai.workflow.id', 'gen_ai.workflow.name', 'workflow.id', 'traceloop.workflow.name'];
const FEATURE = ['feature', 'app.feature'];

const MAX_NAME_LENGTH = 255;

/** gen_ai.operation.name → span_kind. */
const OPERATION_KINDS: Record<string, SpanKind> = {
  invoke_agent: 'agent',
  create_agent: 'agent',
  execute_tool: 'tool',
  chat: 'llm',
  text_completion: 'llm',
  generate_content: 'llm',
  embeddings: 'llm',
  retrieval: 'retrieval',
};
/** OpenLLMetry's traceloop.span.kind and OpenInference's openinference.span.kind (lowercased) → span_kind. */
const FRAMEWORK_KINDS: Record<string, SpanKind> = {
  agent: 'agent',
  tool: 'tool',
  llm: 'llm',
  embedding: 'llm',
  retriever: 'retrieval',
  workflow: 'task',
  task: 'task',
  chain: 'task',
};

/**
 * Vercel AI SDK: the outer ai.generateText / ai.streamText / … span repeats the usage summed over
 * its ai.*.doGenerate / doStream / doEmbed children, so only those children are priced.
 */
function isVercelAggregate(attrs: Attributes): boolean {
  const op = attrs['ai.operationId'];
  return typeof op === 'string' && op.startsWith('ai.') && !/\.do[A-Z]\w*$/.test(op);
}

function first(names: readonly string[], ...sources: Attributes[]): AttributeValue | undefined {
  for (const source of sources) {
    for (const n of names) {
      const v = source[n];
      if (v !== undefined && v !== null && v !== '') return v;
    }
  }
  return undefined;
}

function text(v: AttributeValue | undefined): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

/** A token count: a non-negative integer (int, integral double, or digits as text); undefined when absent. */
function count(names: readonly string[], attrs: Attributes): number | undefined | { bad: string } {
  for (const n of names) {
    const v = attrs[n];
    if (v === undefined || v === null) continue;
    const num = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
    if (typeof num !== 'number' || !Number.isSafeInteger(num) || num < 0) return { bad: `${n} is not a non-negative integer token count` };
    return num;
  }
  return undefined;
}

function kindOf(attrs: Attributes, hasUsage: boolean): SpanKind | null {
  const op = text(attrs['gen_ai.operation.name']);
  if (op && OPERATION_KINDS[op]) return OPERATION_KINDS[op]!;
  const framework = text(attrs['traceloop.span.kind'] ?? attrs['openinference.span.kind']);
  if (framework && FRAMEWORK_KINDS[framework.toLowerCase()]) return FRAMEWORK_KINDS[framework.toLowerCase()]!;
  if (text(attrs['llm.request.type'])) return 'llm';
  return hasUsage ? 'llm' : null;
}

/** Does the span say it is a model call (so a missing usage is a fault, not a structural span)? */
function isModelCall(attrs: Attributes): boolean {
  const op = text(attrs['gen_ai.operation.name']);
  return (op !== null && OPERATION_KINDS[op] === 'llm') || text(attrs['llm.request.type']) !== null;
}

function metadataOf(span: OtlpSpan, mapping: MetadataMapping): Record<string, string | number | boolean> {
  const metadata: Record<string, string | number | boolean> = {};
  for (const [attribute, key] of mapping) {
    const v = first([attribute], span.attributes, span.resourceAttributes);
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') metadata[key] = v;
  }
  return metadata;
}

interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  reasoning_tokens?: number;
}

/** Inclusive totals → disjoint classes; a string is why the counts cannot be used. */
function disjointUsage(attrs: Attributes): Usage | string | null {
  const read = (names: readonly string[]) => count(names, attrs);
  const [input, output, cacheRead, cacheCreation, reasoning] = [
    INPUT_TOKENS,
    OUTPUT_TOKENS,
    CACHE_READ_TOKENS,
    CACHE_CREATION_TOKENS,
    REASONING_TOKENS,
  ].map(read);
  for (const c of [input, output, cacheRead, cacheCreation, reasoning]) if (typeof c === 'object') return c.bad;
  if (input === undefined && output === undefined) {
    return cacheRead !== undefined || cacheCreation !== undefined || reasoning !== undefined
      ? 'token classes without gen_ai.usage.input_tokens or gen_ai.usage.output_tokens'
      : null;
  }
  const inTotal = (input as number | undefined) ?? 0;
  const outTotal = (output as number | undefined) ?? 0;
  const cr = (cacheRead as number | undefined) ?? 0;
  const cc = (cacheCreation as number | undefined) ?? 0;
  const rs = (reasoning as number | undefined) ?? 0;
  if (cr + cc > inTotal)
    return `cache tokens (${cr} read + ${cc} creation) exceed gen_ai.usage.input_tokens (${inTotal}), which includes them`;
  if (rs > outTotal) return `reasoning tokens (${rs}) exceed gen_ai.usage.output_tokens (${outTotal}), which includes them`;
  return {
    input_tokens: inTotal - cr - cc,
    output_tokens: outTotal - rs,
    ...(cacheRead !== undefined ? { cache_read_input_tokens: cr } : {}),
    ...(cacheCreation !== undefined ? { cache_creation_input_tokens: cc } : {}),
    ...(reasoning !== undefined ? { reasoning_tokens: rs } : {}),
  };
}

/** The idempotency key of a span's usage event: a re-sent export maps to the same key. */
export function idempotencyKeyOf(traceId: string, spanId: string): string {
  return `otlp:${traceId}:${spanId}`;
}

/** Maps one decoded span (see the module header). */
export function mapSpan(span: OtlpSpan, mapping: MetadataMapping = new Map()): SpanMapping {
  if (!/^[0-9a-f]{32}$/.test(span.traceId) || /^0+$/.test(span.traceId))
    return { type: 'rejected', spanId: span.spanId, reason: 'traceId must be 16 bytes, not all zero' };
  if (!/^[0-9a-f]{16}$/.test(span.spanId) || /^0+$/.test(span.spanId))
    return { type: 'rejected', spanId: span.spanId, reason: 'spanId must be 8 bytes, not all zero' };
  const attrs = span.attributes;
  const res = span.resourceAttributes;
  const startedAt = new Date(span.startTimeUnixMs);
  const endedAt = new Date(span.endTimeUnixMs);
  if (endedAt < startedAt) return { type: 'rejected', spanId: span.spanId, reason: 'endTimeUnixNano is before startTimeUnixNano' };
  const sessionId = text(first(SESSION, attrs, res)) ?? span.traceId;
  const agentId = text(first(AGENT, attrs, res));

  const aggregate = isVercelAggregate(attrs);
  const usage = aggregate ? null : disjointUsage(attrs);
  if (typeof usage === 'string') return { type: 'rejected', spanId: span.spanId, reason: usage };
  if (usage === null) {
    if (!aggregate && isModelCall(attrs))
      return {
        type: 'rejected',
        spanId: span.spanId,
        reason: 'model call without token counts (gen_ai.usage.input_tokens / output_tokens)',
      };
    const fault = structuralFault({ name: span.name, session: sessionId, agent: agentId });
    if (fault) return { type: 'rejected', spanId: span.spanId, reason: fault };
    return {
      type: 'structural',
      span: {
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId,
        sessionId,
        name: displayName(span.name),
        kind: aggregate ? 'task' : kindOf(attrs, false),
        agentId,
        startedAt,
        endedAt,
      },
    };
  }
  const model = text(first(MODEL, attrs));
  if (model === null)
    return { type: 'rejected', spanId: span.spanId, reason: 'usage without a model (gen_ai.response.model or gen_ai.request.model)' };
  // The Vercel AI SDK names providers "openai.chat"; the rate cards know "openai".
  const provider = text(first(PROVIDER, attrs, res))?.split('.')[0] ?? null;
  const event: UsageEventBody = {
    idempotency_key: idempotencyKeyOf(span.traceId, span.spanId),
    timestamp: endedAt.toISOString(),
    started_at: startedAt.toISOString(),
    model,
    ...(provider ? { provider } : {}),
    ...usage,
    session_id: sessionId,
    span_id: span.spanId,
    ...(span.parentSpanId ? { parent_span_id: span.parentSpanId } : {}),
    ...(span.name ? { span_name: displayName(span.name) } : {}),
    span_kind: kindOf(attrs, true),
    ...optional('user_id', text(first(USER, attrs, res))),
    ...optional('agent_id', agentId),
    ...optional('workflow_id', text(first(WORKFLOW, attrs, res))),
    ...optional('feature', text(first(FEATURE, attrs, res))),
  };
  const metadata = metadataOf(span, mapping);
  if (Object.keys(metadata).length > 0) event.metadata = metadata;
  return { type: 'usage', spanId: span.spanId, event };
}

/**
 * What ingest's validation would refuse in the fields a structural span stores (they skip it):
 * text must be well-formed Unicode without NUL (PostgreSQL refuses the rest), ids ≤ 255 units.
 */
function structuralFault(fields: { name: string; session: string; agent: string | null }): string | null {
  for (const [what, value] of Object.entries(fields)) {
    if (value === null) continue;
    const fault = textFault(value);
    if (fault) return `${what === 'name' ? 'span name' : what === 'session' ? 'session id' : 'agent id'} ${fault}`;
    if (what !== 'name' && value.length > MAX_NAME_LENGTH)
      return `${what === 'session' ? 'session id' : 'agent id'} is longer than ${MAX_NAME_LENGTH} characters`;
  }
  return null;
}

/** Span names are display text: cut to ingest's 255-unit limit (never inside a surrogate pair). */
function displayName(name: string): string {
  if (name.length <= MAX_NAME_LENGTH) return name;
  const cut = name.slice(0, MAX_NAME_LENGTH);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

function optional(key: string, value: string | null): Record<string, string> {
  return value === null ? {} : { [key]: value };
}
