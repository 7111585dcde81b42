// The cost forecast method on tiny histories whose forecast is worked out by hand.
import { describe, expect, it } from 'vitest';
import { forecastCost, type DayShare } from '../../../../api/forecasts/forecast-method.js';
import { Big } from '../../../../core/money.js';
import { DAY_MS } from '../../../../core/time.js';

const day = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
const history = (first: string, costs: Array<number | string>) => ({ firstDay: day(first), costs: costs.map((c) => new Big(c)) });
const whole = (first: string, n: number): DayShare[] => Array.from({ length: n }, (_, i) => ({ day: day(first) + i, share: 1 }));
const strings = (f: { value: Big; low: Big; high: Big }) => ({ value: f.value.toFixed(), low: f.low.toFixed(), high: f.high.toFixed() });

// Four weeks from Monday 2025-02-03: 10 on weekdays, 5 on Saturdays and Sundays.
const WEEKS = Array.from({ length: 28 }, (_, i) => (i % 7 < 5 ? 10 : 5));

describe('forecastCost', () => {
  it('carries a weekly pattern forward: weekdays 10, weekends 5 → the next week costs 60, interval exact', () => {
    // Every centred 7-day mean is (5×10 + 2×5)/7 = 60/7, so the weekday factors are 10/(60/7) = 7/6
    // and 5/(60/7) = 7/12 (they average 1); cost ÷ factor is 60/7 every day: slope 0.
    // Mon–Fri 60/7 × 7/6 = 10, Sat–Sun 60/7 × 7/12 = 5: 5×10 + 2×5 = 60. The backtest cuts
    // (after days 21, 19, 17 and 15) forecast their next 7 days perfectly: every error is 0, so low = high = 60.
    const f = forecastCost(history('2025-02-03', WEEKS), whole('2025-03-03', 7));
    expect(strings(f)).toEqual({ value: '60', low: '60', high: '60' });
    // Only Saturday and Sunday: 5 + 5.
    expect(forecastCost(history('2025-02-03', WEEKS), whole('2025-03-08', 2)).value.toFixed()).toBe('10');
  });

  it('follows a linear trend: 10, 11, …, 37 → days 28–30 cost 38 + 39 + 40 = 117', () => {
    // A linear series equals its centred 7-day mean, so every factor is 1; Theil–Sen: slope 1,
    // intercept 10. The backtest cuts are exact too.
    const trend = Array.from({ length: 28 }, (_, i) => 10 + i);
    expect(strings(forecastCost(history('2025-02-03', trend), whole('2025-03-03', 3)))).toEqual({ value: '117', low: '117', high: '117' });
  });

  it('with too little history for a backtest the interval is ±50%: 14 days of 10…23 → 24 + 25 + 26 = 75 in [37.5, 112.5]', () => {
    const trend = Array.from({ length: 14 }, (_, i) => 10 + i);
    expect(strings(forecastCost(history('2025-02-03', trend), whole('2025-02-17', 3)))).toEqual({
      value: '75',
      low: '37.5',
      high: '112.5',
    });
  });

  it('counts the share of a day still to come, rounding each day to 12 decimals before summing', () => {
    const flat = Array.from({ length: 7 }, () => '1');
    // Three days a third to come: each 1/3 → 0.333333333333, summed 0.999999999999 (not 1).
    const thirds = [0, 1, 2].map((i) => ({ day: day('2025-02-10') + i, share: 1 / 3 }));
    expect(forecastCost(history('2025-02-03', flat), thirds).value.toFixed()).toBe('0.999999999999');
    expect(forecastCost(history('2025-02-03', flat), [{ day: day('2025-02-10'), share: 0.25 }]).value.toFixed()).toBe('0.25');
  });

  it('leaves out the days before the first cost: five idle days, then 3 a day → 3 a day', () => {
    const f = forecastCost(history('2025-02-01', [0, 0, 0, 0, 0, 3, 3, 3, 3, 3, 3, 3]), whole('2025-02-13', 2));
    expect(f.value.toFixed()).toBe('6');
  });

  it('never forecasts a negative cost: 20, 18, …, 2 falls to 0 and stays there', () => {
    const falling = Array.from({ length: 10 }, (_, i) => 20 - 2 * i);
    // Day 10 would be 0, day 11 −2: both 0.
    expect(strings(forecastCost(history('2025-02-03', falling), whole('2025-02-13', 2)))).toEqual({ value: '0', low: '0', high: '0' });
  });

  it('a noisy history gets an interval around the forecast; no history forecasts 0', () => {
    // 10 ± up to 3 from a small linear congruential sequence (no period a week could absorb).
    let seed = 7;
    const noisy = Array.from({ length: 42 }, () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return 7 + (seed % 7);
    });
    const f = forecastCost(history('2025-02-03', noisy), whole('2025-03-17', 14));
    expect(f.low.lt(f.value)).toBe(true);
    expect(f.high.gt(f.value)).toBe(true);
    expect(f.low.gte(0)).toBe(true);
    expect(strings(forecastCost(history('2025-02-03', []), whole('2025-03-17', 3)))).toEqual({ value: '0', low: '0', high: '0' });
    expect(strings(forecastCost(history('2025-02-03', [0, 0, 0]), whole('2025-03-17', 3)))).toEqual({ value: '0', low: '0', high: '0' });
  });
});
