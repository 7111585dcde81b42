// The forecast rules around the method: windows, the days still to come, the exact observed part,
// revenue and margin figures, and the price that reaches a target margin.
import { describe, expect, it } from 'vitest';
import {
  costFigure,
  daysAhead,
  epochDay,
  horizonWindow,
  reachesTarget,
  requiredPrice,
  revenueAndMargin,
} from '../../../../api/forecasts/forecasts.js';
import { Big } from '../../../../core/money.js';

const at = (iso: string) => new Date(iso);
const day = (date: string) => epochDay(at(`${date}T00:00:00Z`));

describe('horizonWindow', () => {
  it('month-end is the UTC calendar month; next-30-days is today and 29 more days', () => {
    expect(horizonWindow('month-end', at('2025-02-10T23:00:00Z'))).toEqual({ startDay: day('2025-02-01'), endDay: day('2025-03-01') });
    expect(horizonWindow('month-end', at('2025-12-31T23:59:59Z'))).toEqual({ startDay: day('2025-12-01'), endDay: day('2026-01-01') });
    expect(horizonWindow('next-30-days', at('2025-02-10T06:00:00Z'))).toEqual({ startDay: day('2025-02-10'), endDay: day('2025-03-12') });
  });
});

describe('daysAhead', () => {
  it('the rest of today as a share in whole hours, then whole days up to the window end', () => {
    expect(daysAhead(at('2025-02-10T18:00:00Z'), day('2025-02-13'))).toEqual([
      { day: day('2025-02-10'), share: 0.25 },
      { day: day('2025-02-11'), share: 1 },
      { day: day('2025-02-12'), share: 1 },
    ]);
    // At midnight today is still wholly to come; a window that ended has nothing ahead.
    expect(daysAhead(at('2025-02-10T00:00:00Z'), day('2025-02-11'))).toEqual([{ day: day('2025-02-10'), share: 1 }]);
    expect(daysAhead(at('2025-02-10T12:00:00Z'), day('2025-02-10'))).toEqual([]);
    // 17:20: the hour under way counts as to come, so 7 of 24 hours.
    expect(daysAhead(at('2025-02-10T17:20:00Z'), day('2025-02-11'))).toEqual([{ day: day('2025-02-10'), share: 7 / 24 }]);
  });
});

describe('costFigure', () => {
  it('the window so far exactly, plus the forecast of the rest from the 56 days before today', () => {
    // 56 days of 0.1 before 2025-02-10 and 0.05 today so far (noon): flat 0.1 a day.
    const costs = new Map<number, Big>();
    for (let d = day('2025-02-10') - 56; d < day('2025-02-10'); d++) costs.set(d, new Big('0.1'));
    costs.set(day('2025-02-10'), new Big('0.05'));
    // Month to date: Feb 1–9 = 0.9, today 0.05 → 0.95; to come: half of today 0.05 + Feb 11–28
    // (18 days) 1.8 → 2.8. The flat history backtests exactly: no spread.
    const f = costFigure(costs, at('2025-02-10T12:00:00Z'), horizonWindow('month-end', at('2025-02-10T12:00:00Z')));
    expect([f.observed, f.value, f.low, f.high].map((b) => b.toFixed())).toEqual(['0.95', '2.8', '2.8', '2.8']);
  });
});

describe('revenueAndMargin', () => {
  it('revenue has no spread; the margin is low against the high cost and high against the low cost', () => {
    const m = revenueAndMargin(new Big(100), { value: new Big(60), low: new Big(50), high: new Big(75) });
    expect([m.revenue.value, m.revenue.low, m.revenue.high].map(String)).toEqual(['100', '100', '100']);
    expect([m.margin.value, m.margin.low, m.margin.high].map(String)).toEqual(['40', '25', '50']);
  });
});

describe('price for a target margin', () => {
  it('cost ÷ (1 − target) rounded up to the cent; reached when price × (1 − target) ≥ cost, exactly', () => {
    // 46 / 0.6 = 76.666… → 76.67; 31.5 / 0.6 = 52.5; 10 / 0.7 = 14.2857… → 14.29.
    expect(requiredPrice(new Big(46), new Big(40)).toFixed(2)).toBe('76.67');
    expect(requiredPrice(new Big('31.5'), new Big(40)).toFixed(2)).toBe('52.50');
    expect(requiredPrice(new Big(10), new Big(30)).toFixed(2)).toBe('14.29');
    expect(requiredPrice(new Big('0.001'), new Big(0)).toFixed(2)).toBe('0.01');
    expect(requiredPrice(new Big(0), new Big(40)).toFixed(2)).toBe('0.00');
    // 100 × 0.6 = 60: exactly the cost reaches 40%; a thousandth more does not.
    expect(reachesTarget(new Big(100), new Big(60), new Big(40))).toBe(true);
    expect(reachesTarget(new Big(100), new Big('60.001'), new Big(40))).toBe(false);
    // 100.005 × 0.6 = 60.003 ≥ 60.0025 although the price rounded up to the cent would be 100.01.
    expect(reachesTarget(new Big('100.005'), new Big('60.0025'), new Big(40))).toBe(true);
    expect(requiredPrice(new Big('60.0025'), new Big(40)).toFixed(2)).toBe('100.01');
  });
});
