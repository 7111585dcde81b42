import { describe, expect, it } from 'vitest';
import { backoffStepMs } from '../../../core/backoff.js';

describe('backoffStepMs', () => {
  it('doubles from the first step and stays at the cap', () => {
    const schedule = { firstMs: 250, maxMs: 10_000 };
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((a) => backoffStepMs(a, schedule))).toEqual([250, 500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  });

  it('the processor restart schedule: 1 s, 2 s, … 16 s, then 30 s', () => {
    const schedule = { firstMs: 1_000, maxMs: 30_000 };
    expect([0, 1, 2, 3, 4, 5].map((a) => backoffStepMs(a, schedule))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000]);
  });

  it('stays a finite number at any attempt, a zero first step included', () => {
    expect(backoffStepMs(5_000, { firstMs: 100, maxMs: 5_000 })).toBe(5_000);
    expect(backoffStepMs(5_000, { firstMs: 0, maxMs: 5_000 })).toBe(0);
    expect(backoffStepMs(-1, { firstMs: 100, maxMs: 5_000 })).toBe(100);
  });
});
