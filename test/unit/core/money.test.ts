import { describe, expect, it } from 'vitest';
import {
  Big,
  changePercent,
  formatMoney,
  fractionDigits,
  isDecimalString,
  isUnsignedDecimalString,
  percentOf,
  sumMoney,
} from '../../../core/money.js';

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

describe('the decimal-string pattern', () => {
  it('accepts plain decimals only', () => {
    for (const ok of ['0', '3', '0.075', '-2.5', '0012.50']) expect(isDecimalString(ok), ok).toBe(true);
    for (const bad of ['', '.5', '5.', '+1', '1e3', ' 1', '1 ', '0x10', 'NaN', '1,5', '--1', '１'])
      expect(isDecimalString(bad), bad).toBe(false);
  });
  it('unsigned: no minus sign, even on zero', () => {
    expect(isUnsignedDecimalString('12.5')).toBe(true);
    expect(isUnsignedDecimalString('-12.5')).toBe(false);
    expect(isUnsignedDecimalString('-0')).toBe(false);
  });
  it('counts fractional digits as written', () => {
    expect(fractionDigits('3')).toBe(0);
    expect(fractionDigits('1.250')).toBe(3);
    expect(fractionDigits('-0.000000000001')).toBe(12);
  });
});

describe('changePercent, a period change by the percent rule', () => {
  it('divides the change by the previous value, 2 decimals half-up, null over a zero base', () => {
    expect(changePercent('150', '100')).toBe(50);
    expect(changePercent('1', '3')).toBe(-66.67); // -2/3 = -66.666…
    expect(changePercent('0.005', '0.004')).toBe(25);
    expect(changePercent('1.00005', '1')).toBe(0.01); // 0.005 % rounds half-up to 0.01
    expect(changePercent('5', '0')).toBeNull();
    expect(changePercent('0', '0')).toBeNull();
  });

  it('reads a shrinking loss as a positive change (|previous| is the base)', () => {
    expect(changePercent('-5', '-10')).toBe(50); // (-5 - -10) / 10
    expect(changePercent('-15', '-10')).toBe(-50);
    expect(changePercent('5', '-10')).toBe(150);
  });
});

describe('percentOf, the one percent rule', () => {
  it('rounds the exact quotient half away from zero, for negative parts too', () => {
    expect(percentOf('1', '8')).toBe(12.5);
    expect(percentOf('1', '1600')).toBe(0.06); // 0.0625 → 0.06
    expect(percentOf('1', '800')).toBe(0.13); // 0.125 → 0.13
    expect(percentOf('-1', '800')).toBe(-0.13);
    expect(percentOf('-20.005', '100')).toBe(-20.01);
    expect(percentOf('19.99499999', '100')).toBe(19.99);
    expect(percentOf('1', '-8')).toBe(-12.5);
    expect(percentOf('-0.000000000001', '1')).toBe(0);
    expect(percentOf(new Big('2.5'), new Big('7'))).toBe(35.71);
    expect(percentOf('1.0000000000001', '3')).toBe(33.33); // 13 fraction digits: exact too
  });

  it("equals Big's correctly rounded division on 20,000 random and tie-making pairs", () => {
    // The reference: Big's quotient rounded once, half away from zero, at 2 places.
    const Ref = Big();
    Ref.DP = 2;
    Ref.RM = Big.roundHalfUp;
    // Park–Miller: every product stays below 2^53, so each draw is exact (a larger multiplier lost
    // its low bits in floating point and drew almost only negative decimals).
    let seed = 7;
    const next = () => (seed = (seed * 48_271) % 2_147_483_647);
    const decimal = () => {
      const digits = String(next() % 10 ** (1 + (next() % 9)));
      const fraction = String(next())
        .padStart(10, '0')
        .slice(0, next() % 13);
      return `${next() % 4 === 0 ? '-' : ''}${digits}${fraction ? `.${fraction}` : ''}`;
    };
    for (let i = 0; i < 20_000; i++) {
      const tie = i % 5 === 0;
      // A tie's whole has at most 7 fraction digits, so the part (5 more) stays within money's 12.
      const whole = i % 10 === 1 ? '0' : tie ? new Big(decimal()).round(7, Big.roundDown).toFixed() : decimal();
      // Every fifth part a tie: ±whole × (2k + 1) / 20000, exactly halfway between two results,
      // of either sign.
      const odd = (2 * (next() % 20_000) + 1) * (next() % 2 === 0 ? 1 : -1);
      const part = tie && whole !== '0' ? new Big(whole).times(odd).div(20_000).toFixed() : decimal();
      if (tie && whole !== '0') expect(part.split('.')[1]?.length ?? 0).toBeLessThanOrEqual(12);
      const w = new Ref(whole);
      const expected = w.eq(0) ? 0 : Number(new Ref(part).times(100).div(w).toFixed(2)) || 0;
      expect(percentOf(part, whole), `${part} / ${whole}`).toBe(expected);
    }
  });
});
