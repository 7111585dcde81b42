// The ingestion wire shapes (spec "Usage event ingestion request", "Ingest response"; docs/design.md
// "Ingest field types"), written for tsoa so the OpenAPI document describes every field. The
// rules tsoa cannot express (conditional requiredness, finiteness, metadata size, dimensions)
// live in validate-event.ts, which runs before tsoa's own check.

/** Span kinds of the session call tree. */
export type SpanKind = 'agent' | 'tool' | 'llm' | 'retrieval' | 'task';

/**
 * A decimal string ≥ 0 and below 10^15 (the most one event may cost), e.g. `"0.0125"`.
 * @pattern ^\d{1,15}(\.\d+)?$ must be a decimal string below 10^15
 */
type CostOverrideString = string;

/**
 * A finite number ≥ 0 and below 10^15 (the most one event may cost).
 * @minimum 0
 * @maximum 999999999999999.9
 */
type CostOverrideNumber = number;

/**
 * One usage event: an LLM call (no `metric`: `model`, `input_tokens` and `output_tokens` required)
 * or a metered operation (`metric` with `unit` and `quantity`, and `model` or `provider`).
 * Optional fields may be omitted or null. Any other top-level field is rejected.
 */
export interface UsageEventRequest {
  /**
   * Deduplication key, 1–255 characters. The same key is never counted twice and never spends a
   * second credit; `event_id` is derived from it, so retries get the same id.
   * @minLength 1
   * @maxLength 255
   * @example "req_01HZX3B6Q8W2"
   * @pattern ^[^\u0000]*$
   */
  idempotency_key: string;
  /**
   * Event time, ISO 8601 with a time zone (`Z` or `±hh:mm`); default: the time received.
   * Accepted from 2000-01-01T00:00:00Z (inclusive) to 2100-01-01T00:00:00Z (exclusive).
   * More than 24 hours old or more than 1 minute ahead flags the event.
   * @format date-time
   * @example "2026-01-15T10:30:00Z"
   */
  timestamp?: string | null;
  /**
   * External id of your end user (1–255 characters). The end user is created on first sight.
   * @example "customer_42"
   * @minLength 1
   * @maxLength 255
   * @pattern ^[^\u0000]*$
   */
  user_id?: string | null;
  /**
   * Model called, e.g. `gpt-4o-mini`. Required when `metric` is omitted; priced by the longest
   * rate-card slug that prefixes it.
   * @example "gpt-4o-mini"
   * @minLength 1
   * @maxLength 255
   * @pattern ^[^\u0000]*$
   */
  model?: string | null;
  /**
   * Provider, e.g. `openai`. With `metric`, identifies what is priced when `model` is absent.
   * @example "openai"
   * @minLength 1
   * @maxLength 255
   * @pattern ^[^\u0000]*$
   */
  provider?: string | null;
  /**
   * Input (prompt) tokens, a non-negative integer. Required when `metric` is omitted.
   * @isLong
   * @minimum 0
   * @maximum 1000000000000000
   */
  input_tokens?: number | null;
  /**
   * Output (completion) tokens, a non-negative integer. Required when `metric` is omitted.
   * @isLong
   * @minimum 0
   * @maximum 1000000000000000
   */
  output_tokens?: number | null;
  /**
   * Tokens written to the prompt cache, a non-negative integer, priced at the cache-creation rate.
   * @isLong
   * @minimum 0
   * @maximum 1000000000000000
   */
  cache_creation_input_tokens?: number | null;
  /**
   * The part of `cache_creation_input_tokens` written with a one-hour TTL (Anthropic's
   * `cache_creation.ephemeral_1h_input_tokens`), priced at the card's one-hour cache-write rate;
   * the rest is priced at the cache-creation rate. At most `cache_creation_input_tokens`.
   * @isLong
   * @minimum 0
   * @maximum 1000000000000000
   */
  cache_creation_1h_input_tokens?: number | null;
  /**
   * Tokens read from the prompt cache, a non-negative integer, priced at the cache-read rate.
   * @isLong
   * @minimum 0
   * @maximum 1000000000000000
   */
  cache_read_input_tokens?: number | null;
  /**
   * Reasoning tokens, a non-negative integer, priced at the reasoning rate.
   * @isLong
   * @minimum 0
   * @maximum 1000000000000000
   */
  reasoning_tokens?: number | null;
  /**
   * Metered operation other than an LLM call, e.g. `image_generation`; needs `unit` and
   * `quantity`.
   * @example "image_generation"
   * @minLength 1
   * @maxLength 255
   * @pattern ^[^\u0000]*$
   */
  metric?: string | null;
  /**
   * Unit of `quantity`, recorded exactly as sent and never converted; the unit rate must use it.
   * @example "image"
   * @minLength 1
   * @maxLength 255
   * @pattern ^[^\u0000]*$
   */
  unit?: string | null;
  /**
   * Amount in `unit`: a finite number ≥ 0. Required with `metric`.
   * @minimum 0
   */
  quantity?: number | null;
  /**
   * Total cost in USD that replaces the computed one: a decimal string or number ≥ 0 (at most 12
   * fractional digits are kept, rounded half-up). A missing rate card then does not flag the event.
   * @example "0.0125"
   */
  cost_override?: CostOverrideString | CostOverrideNumber | null;
  /**
   * Provider service tier the call was billed in (`standard`, `batch`, `flex`, `priority`…),
   * lowercased; selects the rate card of that tier. A tier without its own card is priced at the
   * standard card and the event is flagged. Absent: `standard`.
   * @example "batch"
   * @pattern ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$ must be 1–64 letters, digits, _, - or ., starting with a letter or digit
   */
  service_tier?: string | null;
  /**
   * Session (trace) the event belongs to.
   * @minLength 1
   * @maxLength 255
   * @pattern ^[^\u0000]*$
   */
  session_id?: string | null;
  /**
   * Span within the session.
   * @minLength 1
   * @maxLength 255
   * @pattern ^[^\u0000]*$
   */
  span_id?: string | null;
  /**
   * Parent span; absent on a root span.
   * @minLength 1
   * @maxLength 255
   * @pattern ^[^\u0000]*$
   */
  parent_span_id?: string | null;
  /**
   * Display name of the span.
   * @minLength 1
   * @maxLength 255
   * @pattern ^[^\u0000]*$
   */
  span_name?: string | null;
  /** Kind of span. */
  span_kind?: SpanKind | null;
  /**
   * When the span's call started (ISO 8601 with a time zone); with `timestamp` as its end it gives
   * the span's duration. Accepted from 2000-01-01T00:00:00Z (inclusive) to 2100-01-01T00:00:00Z
   * (exclusive).
   * @format date-time
   */
  started_at?: string | null;
  /**
   * Agent that made the call; falls back to `metadata.agent_id`.
   * @minLength 1
   * @maxLength 255
   * @pattern ^[^\u0000]*$
   */
  agent_id?: string | null;
  /**
   * Workflow that made the call; falls back to `metadata.workflow_id`.
   * @minLength 1
   * @maxLength 255
   * @pattern ^[^\u0000]*$
   */
  workflow_id?: string | null;
  /**
   * Product feature that made the call; falls back to `metadata.feature`.
   * @minLength 1
   * @maxLength 255
   * @pattern ^[^\u0000]*$
   */
  feature?: string | null;
  /**
   * Free key-value object: at most 64 keys, 16 KiB as JSON and 32 levels of nesting; every key
   * and string well-formed Unicode without NUL (as every string of the event). Holds custom dimension values;
   * keys of `is_required` dimensions must be present and `number` dimensions need finite numbers.
   */
  metadata?: { [key: string]: unknown } | null;
}

type IngestStatus = 'accepted' | 'accepted_flagged';

/** The 202 body: the event is durably queued for cost calculation. */
export interface IngestResponse {
  /**
   * UUIDv5 of (organization, idempotency_key): the same on every retry of the key.
   * @format uuid
   */
  event_id: string;
  /** `accepted_flagged` when the event needs attention; see `flag_reason`. */
  status: IngestStatus;
  /** Human-readable outcome. */
  message: string;
  /**
   * Why the event was flagged: timestamp more than 24 hours old, more than 1 minute in the
   * future, or no rate card for its model or unit (without `cost_override`). Several causes are
   * joined by "; ".
   */
  flag_reason?: string;
}

/**
 * A batch of 1 to 1000 events, each under the rules of POST /usage-events. The request is
 * authenticated, rate-limited (one request = one unit) and signed once, over the whole body.
 */
export interface UsageEventBatchRequest {
  /**
   * The events, in order (1–1000).
   * @minItems 1
   * @maxItems 1000
   */
  events: UsageEventRequest[];
}

/** One event's failure inside a batch: the error envelope's `error` object without correlation ids. */
export interface BatchEventError {
  error: {
    /** VALIDATION_ERROR, INSUFFICIENT_CREDITS, SUBSCRIPTION_INACTIVE or SERVICE_UNAVAILABLE. */
    code: string;
    message: string;
    /** `field` for validation errors, `actionHint` BUY_CREDITS on 402 codes, `retryable`. */
    details?: { [key: string]: unknown };
  };
}

/** One result per event, in request order: the 202 body of POST /usage-events, or the event's error. */
export interface UsageEventBatchResponse {
  results: Array<IngestResponse | BatchEventError>;
}

/** The flat 401 body of a signature fault (the spec's one exception to the error envelope). */
export interface SignatureErrorBody {
  /** Human-readable. */
  error: string;
  /** SIGNATURE_MISSING, SIGNATURE_INVALID or TIMESTAMP_OUT_OF_RANGE. */
  code: string;
}
