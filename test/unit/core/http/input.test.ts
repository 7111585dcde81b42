import { describe, expect, it } from 'vitest';
import { exactlyOne, parseNullableRate, parseRate, requireText, requireUuid } from '../../../../core/http/input.js';
import { ValidationError } from '../../../../core/errors.js';

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err.field;
    throw err;
  }
  return undefined;
}

describe('parseRate', () => {
  it.each([
    ['3', '3'],
    ['3.000', '3'],
    ['0', '0'],
    ['0.075', '0.075'],
    ['007.50', '7.5'],
    ['999999999999999.999999999999', '999999999999999.999999999999'],
    ['0.000000000001', '0.000000000001'],
    [0, '0'],
    [2.5, '2.5'],
    [0.1, '0.1'],
    [1e-7, '0.0000001'],
    [15, '15'],
  ])('%j → %s', (input, expected) => {
    expect(parseRate('r', input)).toBe(expected);
  });

  it.each([
    ['-1'],
    ['1e3'],
    ['1.'],
    ['.5'],
    [' 1'],
    ['abc'],
    [''],
    ['0x10'],
    [-0.5],
    [0.1 + 0.2], // 0.30000000000000004: 17 fractional digits
    ['0.0000000000001'],
    ['1000000000000000'],
    [1e15],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
  ])('refuses %j naming the field', (input) => {
    expect(fieldOf(() => parseRate('input_cost_per_million', input))).toBe('input_cost_per_million');
  });

  it('keeps null and absence as null', () => {
    expect(parseNullableRate('r', null)).toBeNull();
    expect(parseNullableRate('r', undefined)).toBeNull();
    expect(parseNullableRate('r', '1.50')).toBe('1.5');
  });
});

describe('requireText, requireUuid, exactlyOne', () => {
  it('trims text and bounds its length', () => {
    expect(requireText('name', '  Acme  ', 200)).toBe('Acme');
    expect(requireText('name', 'x'.repeat(200), 200)).toHaveLength(200);
    expect(fieldOf(() => requireText('name', '   ', 200))).toBe('name');
    expect(fieldOf(() => requireText('name', 'x'.repeat(201), 200))).toBe('name');
  });

  it('accepts UUIDs (lowercased) only', () => {
    expect(requireUuid('owner_user_id', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11')).toBe('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    expect(fieldOf(() => requireUuid('owner_user_id', 'bob'))).toBe('owner_user_id');
  });

  it('wants exactly one of two fields', () => {
    expect(exactlyOne(['model', 'gpt'], ['provider', undefined])).toEqual({ field: 'model', value: 'gpt' });
    expect(exactlyOne(['model', null], ['provider', 'openai'])).toEqual({ field: 'provider', value: 'openai' });
    expect(fieldOf(() => exactlyOne(['model', 'a'], ['provider', 'b']))).toBe('model');
    expect(fieldOf(() => exactlyOne(['model', undefined], ['provider', undefined]))).toBe('model');
  });
});
