// Pure alert rules with worked examples: retry schedule, signature header, which addresses are
// private, budget periods and thresholds.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { backoffMs, nextAttempt, RETRY_WINDOW_MS } from '../../../alerts/webhooks/retry-schedule.js';
import { signatureHeader } from '../../../alerts/webhooks/signature.js';
import { isPrivateAddress } from '../../../alerts/webhooks/outbound-address.js';
import { budgetFigures, budgetPeriod, thresholdsReached } from '../../../alerts/budgets/budget-rules.js';

describe('retry schedule', () => {
  it('doubles from 30 s to a 6 h cap, jittered between half the step and the step', () => {
    expect(backoffMs(1, () => 0)).toBe(15_000);
    expect(backoffMs(1, () => 1)).toBe(30_000);
    expect(backoffMs(2, () => 1)).toBe(60_000);
    expect(backoffMs(5, () => 1)).toBe(480_000);
    expect(backoffMs(20, () => 1)).toBe(6 * 3600_000);
    expect(backoffMs(20, () => 0)).toBe(3 * 3600_000);
  });
  it('gives up once 3 days passed since the first failure, and never schedules past that', () => {
    const first = new Date('2026-11-01T00:00:00Z');
    expect(nextAttempt(1, first, first, () => 1)).toEqual({ retryAt: new Date('2026-11-01T00:00:30Z') });
    const late = new Date(first.getTime() + RETRY_WINDOW_MS - 1000);
    expect(nextAttempt(30, first, late, () => 1)).toEqual({ retryAt: new Date(first.getTime() + RETRY_WINDOW_MS) });
    expect(nextAttempt(31, first, new Date(first.getTime() + RETRY_WINDOW_MS))).toEqual({ giveUp: true });
  });
});

describe('signature header', () => {
  it('is t=<seconds>,v1=<HMAC-SHA256 hex of "t.body"> per secret, newest first', () => {
    const body = '{"id":"evt_1"}';
    const expected = (secret: string) => crypto.createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(signatureHeader(['whsec_a'], 1_700_000_000.9, body)).toBe(`t=1700000000,v1=${expected('whsec_a')}`);
    expect(signatureHeader(['whsec_b', 'whsec_a'], 1_700_000_000, body)).toBe(
      `t=1700000000,v1=${expected('whsec_b')},v1=${expected('whsec_a')}`,
    );
    // A published HMAC-SHA256 vector (RFC 4231 test case 2) through the same primitive.
    expect(crypto.createHmac('sha256', 'Jefe').update('what do ya want for nothing?').digest('hex')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });
});

describe('private addresses', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.0.0.5', true],
    ['172.16.3.4', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['::', true],
    ['fd00::1', true],
    ['fe80::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:8.8.8.8', false],
    ['8.8.8.8', false],
    ['2606:4700::1111', false],
    ['not-an-ip', true],
  ])('%s → %s', (address, blocked) => {
    expect(isPrivateAddress(address)).toBe(blocked);
  });
});

describe('budget rules', () => {
  it('periods are UTC calendar day, ISO week from Monday, calendar month', () => {
    const now = new Date('2026-11-25T13:00:00Z'); // a Wednesday
    expect(budgetPeriod('daily', now)).toEqual({ start: new Date('2026-11-25T00:00:00Z'), end: new Date('2026-11-26T00:00:00Z') });
    expect(budgetPeriod('weekly', now)).toEqual({ start: new Date('2026-11-23T00:00:00Z'), end: new Date('2026-11-30T00:00:00Z') });
    expect(budgetPeriod('monthly', new Date('2026-12-31T23:59:59Z'))).toEqual({
      start: new Date('2026-12-01T00:00:00Z'),
      end: new Date('2027-01-01T00:00:00Z'),
    });
  });
  it('a threshold is reached when spent × 100 ≥ amount × threshold, in decimals', () => {
    expect(thresholdsReached('2.4999999999', '5', [50, 80, 100])).toEqual([]);
    expect(thresholdsReached('2.5', '5', [50, 80, 100])).toEqual([50]);
    expect(thresholdsReached('0.3', '0.3', [100])).toEqual([100]);
    expect(budgetFigures('6', '5', [50, 80, 100])).toEqual({
      spent: '6',
      remaining: '0',
      percent: 120,
      thresholds_crossed: [50, 80, 100],
      exhausted: true,
    });
    expect(budgetFigures('0.1', '0.3', [50])).toEqual({
      spent: '0.1',
      remaining: '0.2',
      percent: 33.33,
      thresholds_crossed: [],
      exhausted: false,
    });
  });
});
