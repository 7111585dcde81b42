import { describe, expect, it } from 'vitest';
import { recognizeRevenue, isRecognizedIn } from '../../../revenue/recognize-revenue.js';
import { formatMoney } from '../../../core/money.js';

const d = (s: string) => new Date(s);
const rec = (amount: string, start: string, end: string) => ({ amount, periodStart: d(start), periodEnd: d(end) });
const win = (start: string, end: string) => ({ start: d(start), end: d(end) });

describe('recognizeRevenue', () => {
  it('spreads the amount over the billing period by milliseconds of overlap', () => {
    // 300 over 30 days, 20 of them in the window → 200.
    expect(recognizeRevenue(rec('300', '2026-01-01', '2026-01-31'), win('2026-01-11', '2026-02-01')).toFixed()).toBe('200');
    // A period straddling the window start: 600 over 62 days (Dec 15 → Feb 15), January holds 31 → 300.
    expect(recognizeRevenue(rec('600', '2025-12-15', '2026-02-15'), win('2026-01-01', '2026-02-01')).toFixed()).toBe('300');
  });

  it('keeps full precision; the wire rounds to 12 digits half-up', () => {
    // 100 over 3 days, 1 day in the window → 33.333…
    const r = recognizeRevenue(rec('100', '2026-01-01', '2026-01-04'), win('2026-01-02', '2026-01-03'));
    expect(formatMoney(r)).toBe('33.333333333333');
    // 200 / 3 → 66.666…67 at 12 digits.
    expect(formatMoney(recognizeRevenue(rec('200', '2026-01-01', '2026-01-04'), win('2026-01-01', '2026-01-02')))).toBe('66.666666666667');
    // Milliseconds count: 1 USD over 3 ms, 1 ms in the window.
    expect(
      formatMoney(
        recognizeRevenue(rec('1', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.003Z'), win('2026-01-01T00:00:00.002Z', '2026-01-02')),
      ),
    ).toBe('0.333333333333');
  });

  it('recognizes refunds negatively', () => {
    expect(recognizeRevenue(rec('-50', '2026-01-01', '2026-01-11'), win('2026-01-06', '2026-02-01')).toFixed()).toBe('-25');
  });

  it('a period wholly inside the window recognizes exactly its amount; none outside it', () => {
    expect(recognizeRevenue(rec('19.99', '2026-01-10', '2026-01-20'), win('2026-01-01', '2026-02-01')).toFixed()).toBe('19.99');
    expect(recognizeRevenue(rec('19.99', '2025-12-01', '2026-01-01'), win('2026-01-01', '2026-02-01')).toFixed()).toBe('0');
    expect(isRecognizedIn(rec('19.99', '2025-12-01', '2026-01-01'), win('2026-01-01', '2026-02-01'))).toBe(false);
    expect(isRecognizedIn(rec('19.99', '2025-12-01', '2026-01-01T00:00:00.001Z'), win('2026-01-01', '2026-02-01'))).toBe(true);
  });

  it('refuses an empty billing period', () => {
    expect(() => recognizeRevenue(rec('1', '2026-01-01', '2026-01-01'), win('2025-01-01', '2027-01-01'))).toThrow(/positive length/);
  });
});
