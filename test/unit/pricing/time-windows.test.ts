// Time-of-day windows: an event's timestamp picks the window whose rates price it (UTC, start
// inclusive, end exclusive, windows past midnight, weekdays), and the window is recorded with the
// card. Every figure is worked out by hand in the comment above it.
import { describe, expect, it } from 'vitest';
import { buildTokenRateIndex, buildUnitRateIndex } from '../../../pricing/rate-card-match.js';
import { priceEvent, type PricingRates } from '../../../pricing/price-event.js';
import type { TimeWindow, TokenRateCard } from '../../../pricing/pricing.types.js';
import { layOutTimeWindows, minuteOfWeek } from '../../../pricing/time-windows.js';
import { loadStandardRateCards } from '../../../pricing/standard-rate-cards.js';
import type { UsageEvent } from '../../../schemas/usage-event.js';
import { usageEvent } from '../../support/usage-event-builder.js';

// DeepSeek's 2025 terms for deepseek-chat: $0.27 input, $0.07 cache hit, $1.10 output; half that
// from 16:30 to 00:30 UTC every day.
const OFF_PEAK: TimeWindow = {
  name: 'off-peak',
  start_utc: '16:30',
  end_utc: '00:30',
  input_cost_per_million: '0.135',
  output_cost_per_million: '0.55',
  cache_creation_cost_per_million: '0.135',
  cache_read_cost_per_million: '0.035',
  reasoning_cost_per_million: '0.55',
};
const CHAT: TokenRateCard = {
  model_slug: 'deepseek-chat',
  input_cost_per_million: '0.27',
  output_cost_per_million: '1.1',
  cache_creation_cost_per_million: '0.27',
  cache_read_cost_per_million: '0.07',
  reasoning_cost_per_million: '1.1',
  time_of_day_windows: [OFF_PEAK],
  effective_from: new Date('2025-02-26T16:30:00Z'),
};
const rates = (cards: TokenRateCard[]): PricingRates => ({ tokenCards: buildTokenRateIndex(cards), unitRates: buildUnitRateIndex([]) });
const chat = rates([CHAT]);
const call = (timestamp: string, overrides: Partial<UsageEvent> = {}): UsageEvent =>
  usageEvent({
    timestamp: new Date(timestamp),
    model: 'deepseek-chat',
    input_tokens: 1_000_000,
    cache_read_input_tokens: 2_000_000,
    output_tokens: 500_000,
    ...overrides,
  });

describe('a daily off-peak window (16:30–00:30 UTC, deepseek-chat 2025)', () => {
  it('an event at a peak hour is priced at the card rates', () => {
    // 10:00 UTC: input 1M × 0.27 = 0.27; read 2M × 0.07 = 0.14; output 0.5M × 1.10 = 0.55; total 0.96
    expect(priceEvent(call('2025-03-04T10:00:00Z'), chat)).toMatchObject({
      input_cost: '0.27',
      cache_read_cost: '0.14',
      output_cost: '0.55',
      total_cost: '0.96',
      time_of_day_window: null,
    });
  });

  it('an event in the discounted window is priced at the window rates and records the window', () => {
    // 20:00 UTC: input 1M × 0.135 = 0.135; read 2M × 0.035 = 0.07; output 0.5M × 0.55 = 0.275; total 0.48
    expect(priceEvent(call('2025-03-04T20:00:00Z'), chat)).toMatchObject({
      status: 'completed',
      input_cost: '0.135',
      cache_read_cost: '0.07',
      output_cost: '0.275',
      total_cost: '0.48',
      rate_card_slug: 'deepseek-chat',
      rate_card_id: 'standard:deepseek-chat:standard:2025-02-26T16:30:00.000Z',
      context_tier_above_prompt_tokens: null,
      time_of_day_window: 'off-peak',
    });
  });

  it('exactly at the start is in the window; a millisecond before is not', () => {
    expect(priceEvent(call('2025-03-04T16:30:00.000Z'), chat)).toMatchObject({ total_cost: '0.48', time_of_day_window: 'off-peak' });
    expect(priceEvent(call('2025-03-04T16:29:59.999Z'), chat)).toMatchObject({ total_cost: '0.96', time_of_day_window: null });
  });

  it('crosses midnight: 23:59 and 00:15 are in it, exactly the end (00:30) is not', () => {
    expect(priceEvent(call('2025-03-04T23:59:00Z'), chat)).toMatchObject({ total_cost: '0.48', time_of_day_window: 'off-peak' });
    expect(priceEvent(call('2025-03-05T00:15:00Z'), chat)).toMatchObject({ total_cost: '0.48', time_of_day_window: 'off-peak' });
    expect(priceEvent(call('2025-03-05T00:29:59.999Z'), chat)).toMatchObject({ total_cost: '0.48', time_of_day_window: 'off-peak' });
    expect(priceEvent(call('2025-03-05T00:30:00Z'), chat)).toMatchObject({ total_cost: '0.96', time_of_day_window: null });
  });

  it('a class the window cannot price leaves the event pending, naming the window', () => {
    const noReads = rates([{ ...CHAT, time_of_day_windows: [{ ...OFF_PEAK, cache_read_cost_per_million: null }] }]);
    expect(priceEvent(call('2025-03-04T20:00:00Z'), noReads)).toMatchObject({
      status: 'pending_rate_card',
      pending_reason: 'rate card "deepseek-chat" has no cache read rate in time window "off-peak"',
    });
    expect(priceEvent(call('2025-03-04T10:00:00Z'), noReads)).toMatchObject({ status: 'completed', total_cost: '0.96' });
  });
});

describe('weekday windows (DeepSeek V4 2026: off-peak on weekdays outside 01–04 and 06–10 UTC, all weekend)', () => {
  const half = { input_cost_per_million: '0.15', output_cost_per_million: '0.6', cache_creation_cost_per_million: '0.15' };
  const rest = { cache_read_cost_per_million: '0.003', reasoning_cost_per_million: '0.6' };
  const weekday = [1, 2, 3, 4, 5];
  const flash = rates([
    {
      model_slug: 'deepseek-v4-flash',
      input_cost_per_million: '0.3',
      output_cost_per_million: '1.2',
      cache_creation_cost_per_million: '0.3',
      cache_read_cost_per_million: '0.006',
      reasoning_cost_per_million: '1.2',
      time_of_day_windows: [
        { name: 'off-peak', days: weekday, start_utc: '00:00', end_utc: '01:00', ...half, ...rest },
        { name: 'off-peak', days: weekday, start_utc: '04:00', end_utc: '06:00', ...half, ...rest },
        { name: 'off-peak', days: weekday, start_utc: '10:00', end_utc: '00:00', ...half, ...rest },
        { name: 'off-peak', days: [6, 7], start_utc: '00:00', end_utc: '00:00', ...half, ...rest },
      ],
      effective_from: new Date('2026-08-16T16:00:00Z'),
    },
  ]);
  const v4 = (timestamp: string) =>
    priceEvent(
      usageEvent({ timestamp: new Date(timestamp), model: 'deepseek-v4-flash', input_tokens: 1_000_000, output_tokens: 1_000_000 }),
      flash,
    );

  it('Wednesday 02:00 is peak; 05:00, 12:00 and Saturday 02:00 are off-peak', () => {
    // peak: 1M × 0.30 + 1M × 1.20 = 1.5; off-peak: 1M × 0.15 + 1M × 0.60 = 0.75
    expect(v4('2026-09-02T02:00:00Z')).toMatchObject({ total_cost: '1.5', time_of_day_window: null }); // a Wednesday
    expect(v4('2026-09-02T05:00:00Z')).toMatchObject({ total_cost: '0.75', time_of_day_window: 'off-peak' });
    expect(v4('2026-09-02T12:00:00Z')).toMatchObject({ total_cost: '0.75', time_of_day_window: 'off-peak' });
    expect(v4('2026-09-05T02:00:00Z')).toMatchObject({ total_cost: '0.75', time_of_day_window: 'off-peak' }); // a Saturday
    expect(v4('2026-09-07T02:00:00Z')).toMatchObject({ total_cost: '1.5', time_of_day_window: null }); // Monday again
  });
});

describe('the minute of the UTC week', () => {
  it('Monday 00:00 is 0 and Sunday 23:59 is the last minute', () => {
    expect(minuteOfWeek(new Date('2026-09-07T00:00:00Z'))).toBe(0);
    expect(minuteOfWeek(new Date('2026-09-06T23:59:59Z'))).toBe(10_079);
    expect(minuteOfWeek(new Date('1969-12-29T00:00:30Z'))).toBe(0); // before the epoch too
  });
});

describe('window rules', () => {
  const fault = (field: string, message: string) => new Error(`${field} ${message}`);
  const w = (over: Partial<TimeWindow>): TimeWindow => ({ ...OFF_PEAK, ...over });

  it('refuses malformed times, days and overlapping windows, naming the field', () => {
    expect(() => layOutTimeWindows([w({ start_utc: '24:00' })], 'time_of_day_windows', fault)).toThrow('time_of_day_windows[0].start_utc');
    expect(() => layOutTimeWindows([w({ end_utc: '1:30' })], 'time_of_day_windows', fault)).toThrow('time_of_day_windows[0].end_utc');
    expect(() => layOutTimeWindows([w({ days: [0] })], 'time_of_day_windows', fault)).toThrow('time_of_day_windows[0].days');
    expect(() => layOutTimeWindows([w({}), w({ start_utc: '00:00', end_utc: '01:00' })], 'time_of_day_windows', fault)).toThrow(
      'time_of_day_windows[1] overlaps time_of_day_windows[0]',
    );
  });

  it('a Friday window past midnight runs into Saturday, which a Saturday-only window may not also cover', () => {
    const friday = w({ days: [5], start_utc: '22:00', end_utc: '02:00' });
    expect(() => layOutTimeWindows([friday, w({ days: [6], start_utc: '01:00', end_utc: '03:00' })], 'tw', fault)).toThrow(
      'tw[1] overlaps tw[0]',
    );
    expect(() => layOutTimeWindows([friday, w({ days: [6], start_utc: '02:00', end_utc: '03:00' })], 'tw', fault)).not.toThrow();
  });

  it('a card cannot have both context tiers and windows', () => {
    const tiers = [{ above_prompt_tokens: 1000, ...OFF_PEAK }];
    expect(() => buildTokenRateIndex([{ ...CHAT, tiers }])).toThrow('context tiers or time windows, not both');
  });
});

describe("the shipped DeepSeek cards follow DeepSeek's terms at each date", () => {
  const standard = rates(loadStandardRateCards());
  const ds = (model: string, timestamp: string) =>
    priceEvent(
      usageEvent({
        timestamp: new Date(timestamp),
        model,
        input_tokens: 1_000_000,
        cache_read_input_tokens: 1_000_000,
        output_tokens: 1_000_000,
      }),
      standard,
    );

  it('deepseek-v4-pro on a weekday: peak 01:00–04:00 UTC at twice the off-peak rates; Saturday at the same hour off-peak', () => {
    // Tuesday 2026-11-24 02:00 UTC, peak: 1M × 1.32 + 1M × 0.044 + 1M × 3.96 = 5.324
    expect(ds('deepseek-v4-pro', '2026-11-24T02:00:00Z')).toMatchObject({ total_cost: '5.324', time_of_day_window: 'peak' });
    // Tuesday 12:00 UTC, off-peak: 1M × 0.66 + 1M × 0.022 + 1M × 1.98 = 2.662
    expect(ds('deepseek-v4-pro', '2026-11-24T12:00:00Z')).toMatchObject({ total_cost: '2.662', time_of_day_window: null });
    // Saturday 2026-11-28 02:00 UTC: off-peak all weekend → 2.662
    expect(ds('deepseek-v4-pro', '2026-11-28T02:00:00Z')).toMatchObject({ total_cost: '2.662', time_of_day_window: null });
    // before Beijing weekends became off-peak, Saturday 2026-08-22 02:00 UTC was peak → 5.324
    expect(ds('deepseek-v4-pro', '2026-08-22T02:00:00Z')).toMatchObject({ total_cost: '5.324', time_of_day_window: 'peak' });
  });

  it('deepseek-chat: the nightly discount in 2025, the flat V3.2 price now', () => {
    // 2025-03-04 20:00 UTC, off-peak: 1M × 0.135 + 1M × 0.035 + 1M × 0.55 = 0.72
    expect(ds('deepseek-chat', '2025-03-04T20:00:00Z')).toMatchObject({ total_cost: '0.72', time_of_day_window: 'off-peak' });
    // 2025-03-04 10:00 UTC, standard: 1M × 0.27 + 1M × 0.07 + 1M × 1.10 = 1.44
    expect(ds('deepseek-chat', '2025-03-04T10:00:00Z')).toMatchObject({ total_cost: '1.44', time_of_day_window: null });
    // 2026-11-24 20:00 UTC, flat V3.2: 1M × 0.28 + 1M × 0.028 + 1M × 0.42 = 0.728 (was 0.72 at every hour)
    expect(ds('deepseek-chat', '2026-11-24T20:00:00Z')).toMatchObject({ total_cost: '0.728', time_of_day_window: null });
  });
});
