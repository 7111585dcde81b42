// History re-pricing's transform, with a worked example: a card corrected in the past.
import { describe, expect, it } from 'vitest';
import { buildTokenRateIndex, buildUnitRateIndex } from '../../../pricing/rate-card-match.js';
import type { TokenRateCard } from '../../../pricing/pricing.types.js';
import { emptyTally, repriceHistoryTransform } from '../../../processor/repricing-jobs.js';
import { lakeEvent } from '../../support/lake-event-builder.js';

const card = (from: string, input: string, output: string): TokenRateCard => ({
  model_slug: 'gpt-4o',
  input_cost_per_million: input,
  output_cost_per_million: output,
  cache_creation_cost_per_million: null,
  cache_read_cost_per_million: null,
  reasoning_cost_per_million: null,
  effective_from: new Date(from),
  id: `card-${from}`,
});
const rates = (cards: TokenRateCard[]) => ({ tokenCards: buildTokenRateIndex(cards), unitRates: buildUnitRateIndex([]) });
const RANGE = { start: new Date('2025-03-01T00:00:00Z'), end: new Date('2025-04-01T00:00:00Z') };
const AT = new Date('2025-05-01T00:00:00Z');

describe('repriceHistoryTransform', () => {
  // An event of 2025-03-10 priced at $2.50/$10 (100 in × 2.5 / 1e6 = 0.00025; 50 out × 10 / 1e6 = 0.0005; total 0.00075).
  const stored = lakeEvent({ kafka_offset: 1, event_timestamp: new Date('2025-03-10T12:00:00Z') });

  it('a card corrected in the past re-prices the event at the correction', () => {
    // The provider's invoice says $3/$12 from 2025-03-01: 100 × 3 / 1e6 = 0.0003; 50 × 12 / 1e6 = 0.0006; total 0.0009
    const tally = emptyTally();
    const next = repriceHistoryTransform(rates([card('2024-01-01', '2.5', '10'), card('2025-03-01', '3', '12')]), RANGE, AT, tally)(stored);
    expect(next).toMatchObject({
      event_id: stored.event_id,
      input_cost: '0.0003',
      output_cost: '0.0006',
      total_cost: '0.0009',
      status: 'completed',
      rate_card_id: 'card-2025-03-01',
      rate_card_effective_from: new Date('2025-03-01'),
      priced_at: AT,
    });
    expect(tally.examined).toBe(1);
    expect(tally.changed).toBe(1);
    expect(tally.before.toFixed()).toBe('0.00075');
    expect(tally.after.toFixed()).toBe('0.0009');
  });

  it('an event whose price does not change is kept (nothing rewritten); events outside the range and failed ones are not touched', () => {
    const tally = emptyTally();
    const transform = repriceHistoryTransform(rates([card('2024-01-01', '2.5', '10')]), RANGE, AT, tally);
    // Same rates, same cost; the stored row's card id differs from the derived one only when the card is new.
    const same = { ...stored, rate_card_id: 'card-2024-01-01', rate_card_effective_from: new Date('2024-01-01') };
    expect(transform(same)).toBeNull();
    expect(transform({ ...stored, event_timestamp: new Date('2025-04-01T00:00:00Z') })).toBeNull();
    expect(transform({ ...stored, status: 'failed' })).toBeNull();
    expect(tally).toMatchObject({ examined: 1, changed: 0 });
    expect(tally.before.eq(tally.after)).toBe(true);
  });

  it('a pending event the cards now price is completed; applying the result again changes nothing', () => {
    const pending = {
      ...stored,
      status: 'pending_rate_card' as const,
      total_cost: '0',
      input_cost: null,
      output_cost: null,
      status_reason: 'no rate card',
    };
    const r = rates([card('2025-03-01', '3', '12')]);
    const once = repriceHistoryTransform(r, RANGE, AT, emptyTally())(pending);
    expect(once).toMatchObject({ status: 'completed', status_reason: null, total_cost: '0.0009' });
    // A processor killed after the rewrite re-runs it: the same rates give the same row, so nothing is rewritten twice.
    expect(repriceHistoryTransform(r, RANGE, AT, emptyTally())(once!)).toBeNull();
  });
});
