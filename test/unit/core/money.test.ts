import { describe, expect, it } from 'vitest';
import { formatMoney, percentOf, sumMoney } from '../../../core/money.js';

describe('money', () => {
  it.each([
    ['12.500000000000', '12.5'],
    ['0.000000000000', '0'],
    ['-0.0000000000001', '0'],
    ['0.0000000000005', '0.000000000001'], // half-up at the 12th digit
    ['123456789012345678.123456789012', '123456789012345678.123456789012'],
    ['100', '100'],
    ['-3.10', '-3.1'],
    // DuckDB's DECIMAL(38,12) text: trimmed without rounding.
    ['-0.000000000000', '0'],
    ['-12.000000000000', '-12'],
    ['10.0', '10'],
    ['-0', '0'],
    ['0.000750000000', '0.00075'],
  ])('formats %s as %s', (input, out) => {
    expect(formatMoney(input)).toBe(out);
  });

  it('sums without binary floating error', () => {
    expect(formatMoney(sumMoney(['0.1', '0.2']))).toBe('0.3');
    expect(formatMoney(sumMoney(Array(10).fill('0.000000000001')))).toBe('0.00000000001');
  });

  it('percentages are numbers rounded to 2 decimals', () => {
    expect(percentOf('1', '3')).toBe(33.33);
    expect(percentOf('2', '3')).toBe(66.67);
    expect(percentOf('5', '0')).toBe(0);
  });
});
