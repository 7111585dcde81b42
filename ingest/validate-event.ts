// The field rules of one ingestion event (spec "Usage event ingestion request", docs/design.md
// "Ingest field types"). Pure: the raw JSON value and the organization's dimension definitions in,
// a normalized event out, or a ValidationError naming the first failing field (dotted path for
// metadata keys). JSON types are taken as sent: "5" is not a token count.
import { ValidationError } from '../core/errors.js';
import { textFault } from '../core/text.js';
import { formatMoney, integerDigits, isDecimalString, isUnsignedDecimalString, MAX_EVENT_COST_DIGITS } from '../core/money.js';
import type { DimensionValueType } from '../core/control/dimensions.js';
import type { SpanKind } from './ingest.types.js';
import { eventTimeInRange, TOKEN_FIELDS } from '../schemas/usage-event.js';

const MAX_STRING_LENGTH = 255;
const MAX_METADATA_KEYS = 64;
const MAX_METADATA_BYTES = 16 * 1024;
/** Nesting levels of objects and arrays, metadata itself included (deeper JSON is refused). */
export const MAX_METADATA_DEPTH = 32;
/**
 * One limit for every token count: the Avro `long` (avsc) carries up to 2^53-2, and five classes
 * at 10^15 still add up to an exact integer (the event's quantity).
 */
export const MAX_TOKEN_COUNT = 1_000_000_000_000_000;
const SPAN_KINDS: readonly SpanKind[] = ['agent', 'tool', 'llm', 'retrieval', 'task'];

type TokenField = (typeof TOKEN_FIELDS)[number];

/** Fields read from the top level, else from a string under the same key in metadata (top level wins). */
const ATTRIBUTION_FIELDS = ['agent_id', 'workflow_id', 'feature', 'session_id'] as const;
type AttributionField = (typeof ATTRIBUTION_FIELDS)[number];

const PLAIN_STRING_FIELDS = ['user_id', 'model', 'provider', 'metric', 'unit', 'span_id', 'parent_span_id', 'span_name'] as const;
type PlainStringField = (typeof PLAIN_STRING_FIELDS)[number];

/** Every accepted top-level field; anything else is a 400 naming it. */
const EVENT_FIELDS: ReadonlySet<string> = new Set([
  'idempotency_key',
  'timestamp',
  ...PLAIN_STRING_FIELDS,
  ...TOKEN_FIELDS,
  'quantity',
  'cost_override',
  'span_kind',
  'started_at',
  ...ATTRIBUTION_FIELDS,
  'metadata',
  'service_tier',
]);

/** A provider service tier name (standard, batch, flex, priority…): stored lowercase. */
const SERVICE_TIER = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

/** What validation needs to know about a dimension definition. */
export interface DimensionRule {
  key: string;
  valueType: DimensionValueType;
  isRequired: boolean;
}

/** A valid event, normalized: absent optional fields are null, money is a decimal string. */
export type ValidatedEvent = {
  idempotency_key: string;
  /** Null when the client sent none (ingest uses the time received). */
  timestamp: Date | null;
  quantity: number | null;
  /** formatMoney of what was sent (≤ 12 fractional digits). */
  cost_override: string | null;
  span_kind: SpanKind | null;
  started_at: Date | null;
  /** Lowercase; null = standard. */
  service_tier: string | null;
  metadata: Record<string, unknown>;
  /** JSON text of metadata, as measured and as published. */
  metadata_json: string;
} & Record<PlainStringField | AttributionField, string | null> &
  Record<TokenField, number | null>;

type Body = Record<string, unknown>;

function isPlainObject(v: unknown): v is Body {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Absent and JSON null both mean "not sent" for optional fields. */
function sent(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function checkString(field: string, v: unknown): string {
  if (typeof v !== 'string') throw new ValidationError(field, 'must be a string');
  if (v.length === 0) throw new ValidationError(field, 'must not be empty');
  if (v.length > MAX_STRING_LENGTH) throw new ValidationError(field, `must be at most ${MAX_STRING_LENGTH} characters`);
  const fault = textFault(v);
  if (fault) throw new ValidationError(field, fault);
  return v;
}

function optionalString(body: Body, field: string): string | null {
  const v = body[field];
  return sent(v) ? checkString(field, v) : null;
}

function serviceTier(body: Body): string | null {
  const v = optionalString(body, 'service_tier');
  if (v === null) return null;
  const tier = v.toLowerCase();
  if (!SERVICE_TIER.test(tier)) {
    throw new ValidationError('service_tier', 'must be 1–64 letters, digits, "_", "-" or ".", starting with a letter or digit');
  }
  return tier;
}

/** One-hour cache writes are a part of cache_creation_input_tokens, never more. */
function checkOneHourCacheWrites(tokens: Record<TokenField, number | null>): void {
  const oneHour = tokens.cache_creation_1h_input_tokens;
  if (oneHour === null) return;
  if (tokens.cache_creation_input_tokens === null) {
    throw new ValidationError(
      'cache_creation_input_tokens',
      'is required when cache_creation_1h_input_tokens is sent (the one-hour writes are a part of it)',
    );
  }
  if (oneHour > tokens.cache_creation_input_tokens) {
    throw new ValidationError(
      'cache_creation_1h_input_tokens',
      'must be at most cache_creation_input_tokens (the one-hour writes are a part of it)',
    );
  }
}

function optionalTokens(body: Body, field: TokenField): number | null {
  const v = body[field];
  if (!sent(v)) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ValidationError(field, 'must be a non-negative integer');
  if (!Number.isInteger(v) || v < 0) throw new ValidationError(field, 'must be a non-negative integer');
  if (v > MAX_TOKEN_COUNT) throw new ValidationError(field, `must be at most ${MAX_TOKEN_COUNT} (10^15)`);
  return v;
}

// YYYY-MM-DDThh:mm[:ss[.fraction]] then Z or ±hh[:]mm. The zone is required: a local time
// without one names no instant.
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/** Parses an ISO 8601 date-time with a time zone; null when it is not one (or names no real date). */
export function parseIsoDateTime(text: string): Date | null {
  const m = ISO_DATE_TIME.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number, number];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  // Avro timestamp-millis: finer fractions are truncated to the millisecond.
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  // setUTCFullYear, unlike Date.UTC, takes years 0–99 literally.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  // Feb 30 rolls over to March; a real date survives the round trip.
  if (date.getUTCDate() !== day || date.getUTCMonth() !== month - 1) return null;
  let at = date.getTime();
  if (m[9] !== undefined) {
    const offHours = Number(m[10]);
    const offMinutes = Number(m[11]);
    if (offHours > 23 || offMinutes > 59) return null;
    const offset = (offHours * 60 + offMinutes) * 60_000;
    at = m[9] === '+' ? at - offset : at + offset;
  }
  return new Date(at);
}

function optionalDateTime(body: Body, field: string): Date | null {
  const v = body[field];
  if (!sent(v)) return null;
  if (typeof v !== 'string') throw new ValidationError(field, 'must be an ISO 8601 date-time string');
  const d = parseIsoDateTime(v);
  if (!d) throw new ValidationError(field, 'must be an ISO 8601 date-time with a time zone, e.g. 2026-01-15T10:30:00Z');
  // Outside this range the lake cannot file the event (year 0 has no date partition).
  if (!eventTimeInRange(d)) {
    throw new ValidationError(field, 'must be from 2000-01-01T00:00:00Z (inclusive) to 2100-01-01T00:00:00Z (exclusive)');
  }
  return d;
}

function costOverride(body: Body): string | null {
  const v = body.cost_override;
  if (!sent(v)) return null;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new ValidationError('cost_override', 'must be a finite number');
    if (v < 0) throw new ValidationError('cost_override', 'must be at least 0');
  } else if (typeof v === 'string') {
    if (!isUnsignedDecimalString(v)) {
      throw new ValidationError('cost_override', isDecimalString(v) ? 'must be at least 0' : 'must be a decimal string such as "0.0125"');
    }
  } else {
    throw new ValidationError('cost_override', 'must be a decimal string or a number');
  }
  // Checked as it will be stored (rounded to 12 digits), against the one per-event cost bound.
  const cost = formatMoney(v);
  if (integerDigits(cost) > MAX_EVENT_COST_DIGITS)
    throw new ValidationError('cost_override', `must be less than 10^${MAX_EVENT_COST_DIGITS}`);
  return cost;
}

/**
 * The first fault inside a metadata value, walked depth-first and bounded in depth (so no input
 * can exhaust the stack): a container nested deeper than MAX_METADATA_DEPTH, a non-finite number
 * (JSON's 1e999 parses to Infinity), or a key or string that is not client text.
 */
function metadataFault(value: unknown, path: string, depth: number): ValidationError | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : new ValidationError(path, 'must be a finite number');
  if (typeof value === 'string') {
    const fault = textFault(value);
    return fault ? new ValidationError(path, fault) : null;
  }
  if (typeof value !== 'object' || value === null) return null;
  if (depth > MAX_METADATA_DEPTH)
    return new ValidationError('metadata', `must nest objects and arrays at most ${MAX_METADATA_DEPTH} levels deep`);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const f = metadataFault(value[i], `${path}[${i}]`, depth + 1);
      if (f) return f;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value)) {
    const keyFault = textFault(k);
    if (keyFault) return new ValidationError(path, `keys ${keyFault}`);
    const f = metadataFault(v, `${path}.${k}`, depth + 1);
    if (f) return f;
  }
  return null;
}

function metadataOf(body: Body): { metadata: Record<string, unknown>; json: string } {
  const v = body.metadata;
  if (!sent(v)) return { metadata: {}, json: '{}' };
  if (!isPlainObject(v)) throw new ValidationError('metadata', 'must be a JSON object');
  const keys = Object.keys(v);
  if (keys.length > MAX_METADATA_KEYS)
    throw new ValidationError('metadata', `must have at most ${MAX_METADATA_KEYS} keys (has ${keys.length})`);
  const fault = metadataFault(v, 'metadata', 1);
  if (fault) throw fault;
  const json = JSON.stringify(v);
  const bytes = Buffer.byteLength(json);
  if (bytes > MAX_METADATA_BYTES) {
    throw new ValidationError('metadata', `must be at most ${MAX_METADATA_BYTES} bytes as JSON (is ${bytes})`);
  }
  return { metadata: v, json };
}

/** Top-level field wins; else a string under the same key in metadata. */
function attribution(body: Body, metadata: Record<string, unknown>, field: AttributionField): string | null {
  const top = optionalString(body, field);
  if (top !== null) return top;
  const fromMetadata = metadata[field];
  return typeof fromMetadata === 'string' ? checkString(`metadata.${field}`, fromMetadata) : null;
}

function checkDimensions(event: ValidatedEvent, dimensions: readonly DimensionRule[]): void {
  for (const dim of dimensions) {
    const value = event.metadata[dim.key];
    const field = `metadata.${dim.key}`;
    if (!sent(value)) {
      // A required agent_id / workflow_id / feature dimension is also met by the top-level field.
      const top = (ATTRIBUTION_FIELDS as readonly string[]).includes(dim.key) ? event[dim.key as AttributionField] : null;
      if (dim.isRequired && top === null) throw new ValidationError(field, `is required (dimension ${dim.key} is marked is_required)`);
      continue;
    }
    if (dim.valueType === 'number' && (typeof value !== 'number' || !Number.isFinite(value))) {
      throw new ValidationError(field, `must be a finite number (dimension ${dim.key} has value_type number)`);
    }
  }
}

/** Validates one event; throws ValidationError naming the first failing field. */
export function validateEvent(raw: unknown, dimensions: readonly DimensionRule[] = []): ValidatedEvent {
  if (!isPlainObject(raw)) throw new ValidationError('body', 'must be a JSON object');
  const body = raw;
  const unknown = Object.keys(body).filter((k) => !EVENT_FIELDS.has(k));
  if (unknown.length > 0) {
    throw new ValidationError(unknown[0]!, `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`, {
      unknownFields: unknown,
    });
  }

  if (!sent(body.idempotency_key)) throw new ValidationError('idempotency_key', 'is required');
  const idempotency_key = checkString('idempotency_key', body.idempotency_key);
  const timestamp = optionalDateTime(body, 'timestamp');

  const strings = {} as Record<PlainStringField, string | null>;
  for (const f of PLAIN_STRING_FIELDS) strings[f] = optionalString(body, f);
  const tokens = {} as Record<TokenField, number | null>;
  for (const f of TOKEN_FIELDS) tokens[f] = optionalTokens(body, f);

  let quantity: number | null = null;
  if (sent(body.quantity)) {
    if (typeof body.quantity !== 'number' || !Number.isFinite(body.quantity))
      throw new ValidationError('quantity', 'must be a finite number');
    if (body.quantity < 0) throw new ValidationError('quantity', 'must be at least 0');
    quantity = body.quantity;
  }
  const cost_override = costOverride(body);

  let span_kind: SpanKind | null = null;
  if (sent(body.span_kind)) {
    if (!SPAN_KINDS.includes(body.span_kind as SpanKind)) throw new ValidationError('span_kind', `must be one of ${SPAN_KINDS.join(', ')}`);
    span_kind = body.span_kind as SpanKind;
  }
  const started_at = optionalDateTime(body, 'started_at');
  const service_tier = serviceTier(body);
  const { metadata, json } = metadataOf(body);
  checkOneHourCacheWrites(tokens);

  if (strings.metric === null) {
    // An LLM call: the model and both token counts are required; unit/quantity mean a metric.
    if (strings.model === null) throw new ValidationError('model', 'is required when metric is omitted');
    if (tokens.input_tokens === null) throw new ValidationError('input_tokens', 'is required when metric is omitted');
    if (tokens.output_tokens === null) throw new ValidationError('output_tokens', 'is required when metric is omitted');
    if (strings.unit !== null || quantity !== null) {
      throw new ValidationError('metric', `is required when ${strings.unit !== null ? 'unit' : 'quantity'} is sent`);
    }
  } else {
    if (strings.unit === null) throw new ValidationError('unit', 'is required when metric is sent');
    if (quantity === null) throw new ValidationError('quantity', 'is required when metric is sent');
    if (strings.model === null && strings.provider === null) {
      throw new ValidationError('model', 'model or provider is required when metric is sent');
    }
  }

  const event: ValidatedEvent = {
    idempotency_key,
    timestamp,
    ...strings,
    ...tokens,
    quantity,
    cost_override,
    span_kind,
    started_at,
    service_tier,
    agent_id: attribution(body, metadata, 'agent_id'),
    workflow_id: attribution(body, metadata, 'workflow_id'),
    feature: attribution(body, metadata, 'feature'),
    // The spec's session tree is keyed by "the session_id metadata value".
    session_id: attribution(body, metadata, 'session_id'),
    metadata,
    metadata_json: json,
  };
  checkDimensions(event, dimensions);
  return event;
}
