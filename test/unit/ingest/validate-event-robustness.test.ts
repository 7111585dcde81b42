// Inputs found by fuzzing (issue 16) that must be a 400 naming the field, never a 202 that poisons
// a partition, a 503 for the neighbours, or a 500: timestamps outside 2000-01-01..2100-01-01
// (docs/design.md "Timestamps accepted"), ill-formed Unicode anywhere in the event (docs/design.md
// "Strings"), metadata nested deeper than the bound, token counts above the one limit.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../core/errors.js';
import { textFault } from '../../../core/text.js';
import { MAX_METADATA_DEPTH, MAX_TOKEN_COUNT, validateEvent } from '../../../ingest/validate-event.js';

const llm = { idempotency_key: 'k1', model: 'gpt-4o', input_tokens: 10, output_tokens: 5 };

function rejectedField(raw: unknown): { field: string; message: string } {
  try {
    validateEvent(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return { field: (err as ValidationError).field, message: (err as ValidationError).message };
  }
  throw new Error('expected a ValidationError');
}

describe('event timestamps: 2000-01-01T00:00:00Z inclusive to 2100-01-01T00:00:00Z exclusive', () => {
  it.each([
    ['0000-01-01T00:00:00Z'],
    ['0001-01-01T00:00:00+01:00'],
    ['1999-12-31T23:59:59.999Z'],
    ['2000-01-01T00:30:00+01:00'], // 1999-12-31T23:30Z
    ['2100-01-01T00:00:00Z'],
    ['9999-12-31T23:59:59Z'],
  ])('timestamp %s is refused', (ts) => {
    expect(rejectedField({ ...llm, timestamp: ts })).toMatchObject({ field: 'timestamp' });
    expect(rejectedField({ ...llm, started_at: ts })).toMatchObject({ field: 'started_at' });
  });

  it.each([['2000-01-01T00:00:00Z'], ['2099-12-31T23:59:59.999Z'], ['2000-01-01T00:30:00-01:00']])('timestamp %s is accepted', (ts) => {
    expect(validateEvent({ ...llm, timestamp: ts }).timestamp).toBeInstanceOf(Date);
    expect(validateEvent({ ...llm, started_at: ts }).started_at).toBeInstanceOf(Date);
  });
});

describe('every string of the event is well-formed Unicode without NUL', () => {
  const lone = 'k\udfff';
  const highAlone = 'a\ud800b';
  it.each([
    ['idempotency_key', { ...llm, idempotency_key: lone }],
    ['model', { ...llm, model: highAlone }],
    ['provider', { ...llm, provider: lone }],
    ['user_id', { ...llm, user_id: lone }],
    ['metric', { idempotency_key: 'm', metric: lone, unit: 'u', quantity: 1, provider: 'p' }],
    ['unit', { idempotency_key: 'm', metric: 'm', unit: lone, quantity: 1, provider: 'p' }],
    ['session_id', { ...llm, session_id: lone }],
    ['agent_id', { ...llm, agent_id: lone }],
    ['metadata.agent_id', { ...llm, metadata: { agent_id: lone } }],
    ['metadata.team', { ...llm, metadata: { team: lone } }],
    ['metadata.a.b[1]', { ...llm, metadata: { a: { b: ['ok', lone] } } }],
    ['metadata.a.b[0]', { ...llm, metadata: { a: { b: ['x\u0000y'] } } }],
  ])('%s', (field, raw) => {
    expect(rejectedField(raw).field).toBe(field);
  });

  it('metadata keys, nested too, name the key', () => {
    expect(rejectedField({ ...llm, metadata: { [lone]: 1 } })).toMatchObject({ field: 'metadata' });
    expect(rejectedField({ ...llm, metadata: { a: { 'x\u0000': 1 } } })).toMatchObject({ field: 'metadata.a' });
  });

  it('paired surrogates (emoji, astral CJK) are fine', () => {
    const e = validateEvent({ ...llm, user_id: 'ü😀𠀋', metadata: { '😀': ['𠀋', { k: '✓' }] } });
    expect(e.user_id).toBe('ü😀𠀋');
  });

  it('textFault names the fault', () => {
    expect(textFault('fine 😀')).toBeNull();
    expect(textFault('\ud83d')).toMatch(/well-formed/);
    expect(textFault('\ude00x')).toMatch(/well-formed/);
    expect(textFault('a\u0000')).toMatch(/NUL/);
  });
});

describe('metadata depth is bounded', () => {
  function nested(depth: number): unknown {
    let v: unknown = 'leaf';
    for (let i = 0; i < depth; i++) v = i % 2 === 0 ? { k: v } : [v];
    return v;
  }

  it(`${MAX_METADATA_DEPTH} levels of objects and arrays below metadata are accepted`, () => {
    expect(() => validateEvent({ ...llm, metadata: { root: nested(MAX_METADATA_DEPTH - 1) } })).not.toThrow();
  });

  it('one level more is a 400 on metadata, and 5,000 levels never overflow the stack', () => {
    expect(rejectedField({ ...llm, metadata: { root: nested(MAX_METADATA_DEPTH) } })).toMatchObject({ field: 'metadata' });
    const deep = JSON.parse(`${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`);
    expect(rejectedField({ ...llm, metadata: deep })).toMatchObject({ field: 'metadata' });
  });
});

describe('token counts have one upper limit, which the Avro record can also carry', () => {
  it('10^15 is accepted, one more is not; 2^53-1 is refused', () => {
    expect(MAX_TOKEN_COUNT).toBe(1_000_000_000_000_000);
    expect(validateEvent({ ...llm, input_tokens: 1e15 }).input_tokens).toBe(1e15);
    expect(rejectedField({ ...llm, input_tokens: 1e15 + 1 })).toMatchObject({ field: 'input_tokens' });
    expect(rejectedField({ ...llm, reasoning_tokens: 2 ** 53 - 1 })).toMatchObject({ field: 'reasoning_tokens' });
  });

  it('five classes at the limit still sum to an exact integer', () => {
    expect(Number.isSafeInteger(5 * MAX_TOKEN_COUNT)).toBe(true);
  });
});

describe('session_id: "the `session_id` metadata value" identifies the session (spec, session tree)', () => {
  it('metadata.session_id is the session when no top-level session_id is sent', () => {
    expect(validateEvent({ ...llm, metadata: { session_id: 'sess-9' } }).session_id).toBe('sess-9');
  });

  it('the top-level field wins when both are present', () => {
    expect(validateEvent({ ...llm, session_id: 'top', metadata: { session_id: 'meta' } }).session_id).toBe('top');
  });

  it('a non-string metadata.session_id is not a session', () => {
    expect(validateEvent({ ...llm, metadata: { session_id: 42 } }).session_id).toBeNull();
  });
});
