// The spike rule on worked examples: each window is written out, each expected figure by hand.
import { describe, expect, it } from 'vitest';
import { detectHourlySpike, detectSpike, hourlySpikeBaseline, spikeBaseline, windowDates } from '../../../../api/anomalies/anomalies.js';
import { DAY_MS, utcDate } from '../../../../core/time.js';

const DAY = '2026-03-02'; // a Monday
const dayBefore = (n: number) => utcDate(new Date(Date.parse(`${DAY}T00:00:00Z`) - n * DAY_MS));

/** The 28 days before DAY costing `costOf(daysBefore)` (undefined = idle), and DAY costing `cost`. */
function series(costOf: (daysBefore: number) => string | undefined, cost: string): Map<string, string> {
  const m = new Map<string, string>();
  for (let n = 1; n <= 28; n++) {
    const c = costOf(n);
    if (c !== undefined) m.set(dayBefore(n), c);
  }
  m.set(DAY, cost);
  return m;
}

describe('detectSpike', () => {
  it('the window is the 28 days before the day, oldest first', () => {
    const w = windowDates(DAY);
    expect(w).toHaveLength(28);
    expect(w[0]).toBe('2026-02-02');
    expect(w[27]).toBe('2026-03-01');
  });

  it('a steady $10 a day then $40: a spike of 4× with baseline 10 (z = 3 / the 5% floor = 60)', () => {
    const spike = detectSpike(
      DAY,
      series(() => '10', '40'),
    )!;
    expect(spike.cost.toString()).toBe('40');
    expect(spike.baseline.toString()).toBe('10');
    expect(spike.ratio).toBe(4);
    expect(spike.zScore).toBeCloseTo(60, 9);
  });

  it('2.3× is not a spike (the ratio must reach 2.4); 2.4× is', () => {
    expect(
      detectSpike(
        DAY,
        series(() => '10', '23'),
      ),
    ).toBeNull();
    expect(
      detectSpike(
        DAY,
        series(() => '10', '24'),
      )?.ratio,
    ).toBe(2.4);
  });

  it('cents never alarm: $0.10 a day then $0.50 is 5× but an increase of 0.40 < 1', () => {
    expect(
      detectSpike(
        DAY,
        series(() => '0.10', '0.50'),
      ),
    ).toBeNull();
    // $0.50 a day then $1.60: an increase of 1.10.
    expect(
      detectSpike(
        DAY,
        series(() => '0.50', '1.60'),
      )?.baseline.toString(),
    ).toBe('0.5');
  });

  it('fewer than 14 days with cost in the window: no baseline, no spike', () => {
    expect(
      detectSpike(
        DAY,
        series((n) => (n <= 13 ? '10' : undefined), '100'),
      ),
    ).toBeNull();
    expect(
      detectSpike(
        DAY,
        series((n) => (n <= 14 ? '10' : undefined), '100'),
      ),
    ).not.toBeNull();
  });

  it('weekly seasonality: a Monday is compared with Mondays ($2) not with the $10 other days', () => {
    const weekly = (n: number) => (n % 7 === 0 ? '2' : '10'); // n days before a Monday: Mondays at n = 7, 14, 21, 28
    const spike = detectSpike(DAY, series(weekly, '8'))!;
    expect(spike.baseline.toString()).toBe('2');
    expect(spike.ratio).toBe(4);
    // $4 is 2× its baseline: not a spike.
    expect(detectSpike(DAY, series(weekly, '4'))).toBeNull();
  });

  it('idle days are left out of the baseline: two idle Mondays do not halve it', () => {
    const twoIdle = (n: number) => (n === 7 || n === 14 ? undefined : '10');
    expect(spikeBaseline(DAY, series(twoIdle, '0')).toString()).toBe('10');
    expect(detectSpike(DAY, series(twoIdle, '20'))).toBeNull();
  });

  it('the baseline is the exact median of the Mondays: 1.10, 1.20, 1.30, 1.40 → 1.25', () => {
    const mondays: Record<number, string> = { 7: '1.40', 14: '1.10', 21: '1.30', 28: '1.20' };
    const spike = detectSpike(
      DAY,
      series((n) => mondays[n] ?? '1.25', '5'),
    )!;
    expect(spike.baseline.toString()).toBe('1.25');
    expect(spike.ratio).toBe(4);
  });

  it('a noisy series must jump further: weeks alternating 50% and 150% of $10 give a scale of 1.4826 × 0.5', () => {
    // Each weekday's four values are 5, 15, 5, 15: median 10, every deviation ±50%.
    const noisy = (n: number) => (Math.ceil(n / 7) % 2 === 0 ? '5' : '15');
    // 25 = 2.5×: z = 1.5 / 0.7413 = 2.02 < 4.
    expect(detectSpike(DAY, series(noisy, '25'))).toBeNull();
    // 40 = 4×: z = 3 / 0.7413 = 4.05.
    expect(detectSpike(DAY, series(noisy, '40'))?.zScore).toBeCloseTo(3 / (1.4826 * 0.5), 9);
  });

  it('the day itself never enters its baseline, and a day with no cost is no spike', () => {
    expect(
      spikeBaseline(
        DAY,
        series(() => '10', '1000'),
      ).toString(),
    ).toBe('10');
    expect(
      detectSpike(
        DAY,
        series(() => '10', '0'),
      ),
    ).toBeNull();
  });
});

describe('detectHourlySpike (the same rule on one hour of day)', () => {
  const HOUR = `${DAY}T14:00:00Z`;
  /** 28 days before DAY: $1 at 14:00 and $9 at 03:00 each day; DAY itself costing `at14` at 14:00. */
  function hourly(at14: string, quiet14 = false): Map<string, string> {
    const m = new Map<string, string>();
    for (let n = 1; n <= 28; n++) {
      if (!quiet14) m.set(`${dayBefore(n)}T14:00:00Z`, '1');
      m.set(`${dayBefore(n)}T03:00:00Z`, '9');
    }
    m.set(HOUR, at14);
    m.set(`${DAY}T03:00:00Z`, '9');
    return m;
  }

  it('a 3× hour: $3 at 14:00 against $1 at 14:00 on the same weekday; ratio 3, z = 2 / the 5% floor = 40', () => {
    const spike = detectHourlySpike(HOUR, hourly('3'))!;
    expect(spike.cost.toString()).toBe('3');
    expect(spike.baseline.toString()).toBe('1');
    expect(spike.ratio).toBe(3);
    expect(spike.zScore).toBeCloseTo(40, 9);
    expect(hourlySpikeBaseline(HOUR, hourly('3')).toString()).toBe('1');
  });

  it('normal hours are not spikes: $9 at 03:00 is its own baseline, $1 at 14:00 too; other hours of day never enter', () => {
    expect(detectHourlySpike(`${DAY}T03:00:00Z`, hourly('3'))).toBeNull();
    expect(detectHourlySpike(HOUR, hourly('1'))).toBeNull();
    // $2 at 14:00 is 2× (< 2.4) although 14:00's cost is far below the $9 hour's.
    expect(detectHourlySpike(HOUR, hourly('2'))).toBeNull();
  });

  it('a quiet hour of day (no cost at 14:00 in 28 days, zero baseline) is never a spike and its baseline is 0', () => {
    expect(detectHourlySpike(HOUR, hourly('50', true))).toBeNull();
    expect(hourlySpikeBaseline(HOUR, hourly('50', true)).toString()).toBe('0');
    // And an hour with no cost at all at that hour: nothing to judge.
    expect(detectHourlySpike(`${DAY}T20:00:00Z`, hourly('3'))).toBeNull();
  });
});
