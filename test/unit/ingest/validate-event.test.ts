import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../core/errors.js';
import { parseIsoDateTime, validateEvent, type DimensionRule } from '../../../ingest/validate-event.js';

const llm = { idempotency_key: 'k1', model: 'gpt-4o', input_tokens: 10, output_tokens: 5 };
const metric = { idempotency_key: 'm1', metric: 'image_generation', unit: 'image', quantity: 2, provider: 'openai' };

/** The field and message of the ValidationError validateEvent throws. */
function rejects(raw: unknown, dims: DimensionRule[] = []): { field: string; message: string; details: unknown } {
  try {
    validateEvent(raw, dims);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    const e = err as ValidationError;
    return { field: e.field, message: e.message, details: e.details };
  }
  throw new Error('expected a ValidationError');
}

describe('validateEvent: accepted shapes', () => {
  it('a minimal LLM event, optional fields null', () => {
    const e = validateEvent(llm);
    expect(e).toMatchObject({
      idempotency_key: 'k1',
      model: 'gpt-4o',
      input_tokens: 10,
      output_tokens: 5,
      timestamp: null,
      user_id: null,
      metric: null,
      quantity: null,
      cost_override: null,
      cache_read_input_tokens: null,
      agent_id: null,
      metadata: {},
      metadata_json: '{}',
    });
  });

  it('JSON null for an optional field means absent', () => {
    expect(validateEvent({ ...llm, user_id: null, metadata: null, cost_override: null, span_kind: null }).user_id).toBeNull();
  });

  it('a metric event with provider, unit and quantity; zero quantity is fine', () => {
    expect(validateEvent(metric)).toMatchObject({
      metric: 'image_generation',
      unit: 'image',
      quantity: 2,
      provider: 'openai',
      model: null,
    });
    expect(validateEvent({ ...metric, quantity: 0 }).quantity).toBe(0);
    expect(validateEvent({ ...metric, quantity: 0.25 }).quantity).toBe(0.25);
  });

  it('cost_override: decimal strings and numbers, normalized to ≤ 12 fractional digits', () => {
    expect(validateEvent({ ...llm, cost_override: '0.0125' }).cost_override).toBe('0.0125');
    expect(validateEvent({ ...llm, cost_override: '12.50' }).cost_override).toBe('12.5');
    expect(validateEvent({ ...llm, cost_override: 3 }).cost_override).toBe('3');
    expect(validateEvent({ ...llm, cost_override: 0 }).cost_override).toBe('0');
    expect(validateEvent({ ...llm, cost_override: 1e-7 }).cost_override).toBe('0.0000001');
    // 13th digit 5 rounds half-up.
    expect(validateEvent({ ...llm, cost_override: '0.0000000000005' }).cost_override).toBe('0.000000000001');
  });

  it('attribution fields: top-level wins, else a string in metadata', () => {
    const e = validateEvent({ ...llm, agent_id: 'top', metadata: { agent_id: 'meta', workflow_id: 'wf', feature: 7 } });
    expect([e.agent_id, e.workflow_id, e.feature]).toEqual(['top', 'wf', null]);
  });

  it('span fields and timestamps', () => {
    const e = validateEvent({
      ...llm,
      timestamp: '2026-01-15T10:30:00.250+02:00',
      started_at: '2026-01-15T08:29:59Z',
      session_id: 's',
      span_id: 'a',
      parent_span_id: 'root',
      span_name: 'plan',
      span_kind: 'agent',
    });
    expect(e.timestamp?.toISOString()).toBe('2026-01-15T08:30:00.250Z');
    expect(e.started_at?.toISOString()).toBe('2026-01-15T08:29:59.000Z');
    expect(e.span_kind).toBe('agent');
  });

  it('metadata is kept as sent and measured as JSON', () => {
    const metadata = { team: 'core', n: 1.5, nested: { a: [1, 'x', null] } };
    const e = validateEvent({ ...llm, metadata });
    expect(e.metadata).toEqual(metadata);
    expect(e.metadata_json).toBe('{"team":"core","n":1.5,"nested":{"a":[1,"x",null]}}');
  });
});

describe('validateEvent: rejections name the field', () => {
  it('not an object', () => {
    expect(rejects([llm]).field).toBe('body');
    expect(rejects(null).field).toBe('body');
    expect(rejects('x').field).toBe('body');
  });

  it('unknown top-level fields, all listed', () => {
    expect(rejects({ ...llm, colour: 'red', size: 1 })).toEqual({
      field: 'colour',
      message: 'colour: unknown fields colour, size',
      details: { field: 'colour', unknownFields: ['colour', 'size'] },
    });
  });

  it('idempotency_key: required, string, 1–255 characters', () => {
    const { idempotency_key: _, ...noKey } = llm;
    expect(rejects(noKey)).toMatchObject({ field: 'idempotency_key', message: 'idempotency_key: is required' });
    expect(rejects({ ...llm, idempotency_key: '' }).message).toBe('idempotency_key: must not be empty');
    expect(rejects({ ...llm, idempotency_key: 42 }).message).toBe('idempotency_key: must be a string');
    expect(rejects({ ...llm, idempotency_key: 'x'.repeat(256) }).message).toBe('idempotency_key: must be at most 255 characters');
    expect(validateEvent({ ...llm, idempotency_key: 'x'.repeat(255) }).idempotency_key).toHaveLength(255);
    expect(rejects({ ...llm, idempotency_key: 'a\u0000b' }).message).toBe('idempotency_key: must not contain NUL characters');
  });

  it('token counts: non-negative integers as JSON numbers', () => {
    expect(rejects({ ...llm, input_tokens: '10' })).toMatchObject({
      field: 'input_tokens',
      message: 'input_tokens: must be a non-negative integer',
    });
    expect(rejects({ ...llm, output_tokens: -1 }).field).toBe('output_tokens');
    expect(rejects({ ...llm, output_tokens: 1.5 }).field).toBe('output_tokens');
    expect(rejects({ ...llm, reasoning_tokens: JSON.parse('1e999') }).field).toBe('reasoning_tokens');
    expect(rejects({ ...llm, cache_read_input_tokens: true }).field).toBe('cache_read_input_tokens');
    expect(rejects({ ...llm, cache_creation_input_tokens: 2 ** 53 }).message).toBe(
      'cache_creation_input_tokens: must be at most 1000000000000000 (10^15)',
    );
  });

  it('an LLM event needs model, input_tokens and output_tokens', () => {
    expect(rejects({ idempotency_key: 'k', input_tokens: 1, output_tokens: 1 }).message).toBe('model: is required when metric is omitted');
    expect(rejects({ idempotency_key: 'k', model: 'm', output_tokens: 1 }).message).toBe(
      'input_tokens: is required when metric is omitted',
    );
    expect(rejects({ idempotency_key: 'k', model: 'm', input_tokens: 1 }).message).toBe(
      'output_tokens: is required when metric is omitted',
    );
    expect(rejects({ ...llm, quantity: 3 }).message).toBe('metric: is required when quantity is sent');
  });

  it('a metric needs unit, quantity, and model or provider', () => {
    expect(rejects({ ...metric, unit: undefined }).message).toBe('unit: is required when metric is sent');
    expect(rejects({ ...metric, quantity: null }).message).toBe('quantity: is required when metric is sent');
    expect(rejects({ ...metric, provider: undefined }).message).toBe('model: model or provider is required when metric is sent');
  });

  it('quantity: a finite number ≥ 0', () => {
    expect(rejects({ ...metric, quantity: -0.5 }).message).toBe('quantity: must be at least 0');
    expect(rejects({ ...metric, quantity: '2' }).message).toBe('quantity: must be a finite number');
    expect(rejects({ ...metric, quantity: JSON.parse('-1e999') }).message).toBe('quantity: must be a finite number');
  });

  it('cost_override: decimal string or number ≥ 0', () => {
    expect(rejects({ ...llm, cost_override: '-1' }).message).toBe('cost_override: must be at least 0');
    expect(rejects({ ...llm, cost_override: -0.01 }).message).toBe('cost_override: must be at least 0');
    expect(rejects({ ...llm, cost_override: '1e3' }).message).toBe('cost_override: must be a decimal string such as "0.0125"');
    expect(rejects({ ...llm, cost_override: '$1' }).field).toBe('cost_override');
    expect(rejects({ ...llm, cost_override: true }).message).toBe('cost_override: must be a decimal string or a number');
    // Below 10^15 as stored (rounded to 12 fractional digits): core/money.ts's per-event bound.
    expect(validateEvent({ ...llm, cost_override: '999999999999999.999999999999' }).cost_override).toBe('999999999999999.999999999999');
    expect(rejects({ ...llm, cost_override: '999999999999999.9999999999995' }).message).toBe('cost_override: must be less than 10^15');
    expect(rejects({ ...llm, cost_override: '1'.padEnd(16, '0') }).message).toBe('cost_override: must be less than 10^15');
    expect(rejects({ ...llm, cost_override: 1e15 }).message).toBe('cost_override: must be less than 10^15');
  });

  it('strings: type and length', () => {
    expect(rejects({ ...llm, user_id: 5 }).message).toBe('user_id: must be a string');
    expect(rejects({ ...llm, model: '' }).message).toBe('model: must not be empty');
    expect(rejects({ ...llm, session_id: 's'.repeat(256) }).field).toBe('session_id');
    expect(rejects({ ...llm, agent_id: ['a'] }).field).toBe('agent_id');
    expect(rejects({ ...llm, metadata: { feature: 'f'.repeat(256) } }).field).toBe('metadata.feature');
  });

  it('span_kind is one of the five kinds', () => {
    expect(rejects({ ...llm, span_kind: 'chain' }).message).toBe('span_kind: must be one of agent, tool, llm, retrieval, task');
  });

  it('timestamps must be ISO 8601 date-times with a zone', () => {
    expect(rejects({ ...llm, timestamp: '2026-01-15T10:30:00' }).field).toBe('timestamp');
    expect(rejects({ ...llm, timestamp: '2026-02-30T00:00:00Z' }).field).toBe('timestamp');
    expect(rejects({ ...llm, timestamp: 1768473000 }).message).toBe('timestamp: must be an ISO 8601 date-time string');
    expect(rejects({ ...llm, started_at: 'yesterday' }).field).toBe('started_at');
  });

  it('metadata: an object of at most 64 keys and 16 KiB, finite numbers', () => {
    expect(rejects({ ...llm, metadata: [1] }).message).toBe('metadata: must be a JSON object');
    const keys65 = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i]));
    expect(rejects({ ...llm, metadata: keys65 }).message).toBe('metadata: must have at most 64 keys (has 65)');
    const keys64 = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, i]));
    expect(Object.keys(validateEvent({ ...llm, metadata: keys64 }).metadata)).toHaveLength(64);
    // {"x":"<s>"} is 8 bytes + s: 16384 bytes fits, 16385 does not.
    expect(validateEvent({ ...llm, metadata: { x: 'a'.repeat(16376) } }).metadata_json).toHaveLength(16384);
    expect(rejects({ ...llm, metadata: { x: 'a'.repeat(16377) } }).message).toBe(
      'metadata: must be at most 16384 bytes as JSON (is 16385)',
    );
    // Multi-byte characters count by their UTF-8 bytes: 'é' is 2.
    expect(rejects({ ...llm, metadata: { x: 'é'.repeat(8189) } }).message).toBe('metadata: must be at most 16384 bytes as JSON (is 16386)');
    expect(rejects({ ...llm, metadata: { a: { b: [1, JSON.parse('1e999')] } } }).message).toBe('metadata.a.b[1]: must be a finite number');
  });
});

describe('validateEvent: dimensions', () => {
  const dims: DimensionRule[] = [
    { key: 'team', valueType: 'string', isRequired: true },
    { key: 'latency_ms', valueType: 'number', isRequired: false },
    { key: 'agent_id', valueType: 'string', isRequired: true },
  ];

  it('required keys must be in metadata (attribution keys may be top-level)', () => {
    expect(rejects({ ...llm, agent_id: 'a' }, dims)).toMatchObject({
      field: 'metadata.team',
      message: 'metadata.team: is required (dimension team is marked is_required)',
    });
    expect(rejects({ ...llm, agent_id: 'a', metadata: { team: null } }, dims).field).toBe('metadata.team');
    expect(rejects({ ...llm, metadata: { team: 'core' } }, dims).field).toBe('metadata.agent_id');
    expect(validateEvent({ ...llm, agent_id: 'a', metadata: { team: 'core' } }, dims).metadata).toEqual({ team: 'core' });
    expect(validateEvent({ ...llm, metadata: { team: 'core', agent_id: 'a' } }, dims).agent_id).toBe('a');
  });

  it('number dimensions need finite numbers when present', () => {
    const base = { ...llm, agent_id: 'a' };
    expect(rejects({ ...base, metadata: { team: 'x', latency_ms: '120' } }, dims)).toMatchObject({
      field: 'metadata.latency_ms',
      message: 'metadata.latency_ms: must be a finite number (dimension latency_ms has value_type number)',
    });
    expect(validateEvent({ ...base, metadata: { team: 'x', latency_ms: 120.5 } }, dims).metadata.latency_ms).toBe(120.5);
    expect(validateEvent({ ...base, metadata: { team: 'x' } }, dims).metadata.latency_ms).toBeUndefined();
  });
});

describe('parseIsoDateTime', () => {
  it.each([
    ['2026-01-15T10:30:00Z', '2026-01-15T10:30:00.000Z'],
    ['2026-01-15T10:30Z', '2026-01-15T10:30:00.000Z'],
    ['2026-01-15t10:30:00.123456z', '2026-01-15T10:30:00.123Z'],
    ['2026-01-15T10:30:00-05:30', '2026-01-15T16:00:00.000Z'],
    ['2026-01-15T00:30:00+0100', '2026-01-14T23:30:00.000Z'],
    ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z'],
    ['0050-06-01T00:00:00Z', '0050-06-01T00:00:00.000Z'],
  ])('%s is %s', (text, iso) => {
    expect(parseIsoDateTime(text)?.toISOString()).toBe(iso);
  });

  it.each([
    '2026-01-15',
    '2026-01-15T10:30:00',
    '2025-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-01-15T24:00:00Z',
    '2026-01-15T10:60:00Z',
    '2026-01-15T10:30:00+24:00',
    ' 2026-01-15T10:30:00Z',
  ])('%s is not a date-time with a zone', (text) => {
    expect(parseIsoDateTime(text)).toBeNull();
  });
});
