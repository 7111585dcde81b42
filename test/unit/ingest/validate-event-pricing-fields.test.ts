// Ingest rules of the fields pricing added in issue 15: service_tier and one-hour cache writes.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../core/errors.js';
import { validateEvent } from '../../../ingest/validate-event.js';

const llm = { idempotency_key: 'k1', model: 'claude-sonnet-4-5', input_tokens: 10, output_tokens: 5 };

function fieldRefused(raw: unknown): string {
  try {
    validateEvent(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).field;
  }
  throw new Error('expected a ValidationError');
}

describe('service_tier', () => {
  it('is optional (null = standard) and stored lowercase', () => {
    expect(validateEvent(llm).service_tier).toBeNull();
    expect(validateEvent({ ...llm, service_tier: 'Batch' }).service_tier).toBe('batch');
  });

  it('refuses what is not a tier name, naming the field', () => {
    for (const bad of ['', ' batch', 'batch tier', 'x'.repeat(65), 7])
      expect(fieldRefused({ ...llm, service_tier: bad })).toBe('service_tier');
  });
});

describe('cache_creation_1h_input_tokens', () => {
  it('is a part of cache_creation_input_tokens', () => {
    expect(validateEvent({ ...llm, cache_creation_input_tokens: 100, cache_creation_1h_input_tokens: 100 })).toMatchObject({
      cache_creation_input_tokens: 100,
      cache_creation_1h_input_tokens: 100,
    });
    expect(validateEvent(llm).cache_creation_1h_input_tokens).toBeNull();
  });

  it('more than the cache writes, or without them, is a 400 naming the field', () => {
    expect(fieldRefused({ ...llm, cache_creation_input_tokens: 10, cache_creation_1h_input_tokens: 11 })).toBe(
      'cache_creation_1h_input_tokens',
    );
    expect(fieldRefused({ ...llm, cache_creation_1h_input_tokens: 1 })).toBe('cache_creation_input_tokens');
    expect(fieldRefused({ ...llm, cache_creation_input_tokens: 10, cache_creation_1h_input_tokens: -1 })).toBe(
      'cache_creation_1h_input_tokens',
    );
  });
});
