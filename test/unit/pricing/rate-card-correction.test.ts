// The range a card write changes and the re-pricing offered for it (pricing/rate-card-correction.ts),
// with the dates written out.
import { describe, expect, it } from 'vitest';
import { affectedRange, rateCardCorrectionView, repricingBounds } from '../../../pricing/rate-card-correction.js';

const d = (iso: string) => new Date(iso);
const ORG = '11111111-2222-4333-8444-555555555555';

describe('affectedRange', () => {
  it('a correction changes its effective date up to the next card of its identity', () => {
    const siblings = [d('2025-01-01'), d('2025-09-01'), d('2025-07-01')];
    expect(affectedRange(d('2025-03-01'), siblings, true)).toEqual({ start: d('2025-03-01'), end: d('2025-07-01') });
  });

  it('the latest card of an identity leaves the range open', () => {
    expect(affectedRange(d('2025-03-01'), [d('2025-01-01')], true)).toEqual({ start: d('2025-03-01'), end: null });
    expect(affectedRange(d('2025-03-01'), [], true)).toEqual({ start: d('2025-03-01'), end: null });
  });

  it('a new card among others changes the same range as a correction would', () => {
    expect(affectedRange(d('2025-03-01'), [d('2025-01-01'), d('2025-06-01')], false)).toEqual({
      start: d('2025-03-01'),
      end: d('2025-06-01'),
    });
  });

  it("an organization's first card of an identity replaces the standard cards' whole history", () => {
    expect(affectedRange(d('2025-03-01'), [], false)).toEqual({ start: new Date(0), end: null });
  });

  it('a sibling 1 ms later ends the range', () => {
    expect(affectedRange(d('2025-03-01'), [d('2025-03-01T00:00:00.001Z')], true).end).toEqual(d('2025-03-01T00:00:00.001Z'));
  });
});

describe('repricingBounds', () => {
  it('keeps a range inside the event times as it is', () => {
    expect(repricingBounds({ start: d('2025-03-01'), end: d('2025-07-01') })).toEqual({ start: d('2025-03-01'), end: d('2025-07-01') });
  });

  it('cuts to [2000-01-01, 2100-01-01), the times an event can have; an open end is 2100-01-01', () => {
    expect(repricingBounds({ start: new Date(0), end: null })).toEqual({ start: d('2000-01-01'), end: d('2100-01-01') });
    expect(repricingBounds({ start: d('2025-03-01'), end: d('2200-01-01') })).toEqual({ start: d('2025-03-01'), end: d('2100-01-01') });
  });

  it('is null when no event can lie in the range', () => {
    expect(repricingBounds({ start: d('2100-06-01'), end: null })).toBeNull();
    expect(repricingBounds({ start: new Date(0), end: d('1999-01-01') })).toBeNull();
  });
});

describe('rateCardCorrectionView', () => {
  it('names the superseded card, the range and the re-pricing call', () => {
    const view = rateCardCorrectionView(ORG, {
      superseded: { id: 'a-card' },
      card: { effectiveFrom: d('2025-03-01') },
      siblingDates: [d('2025-08-01')],
    });
    expect(view).toEqual({
      supersedes_rate_card_id: 'a-card',
      affected_range: { start_date: '2025-03-01T00:00:00.000Z', end_date: '2025-08-01T00:00:00.000Z' },
      repricing: {
        method: 'POST',
        path: `/v1/admin/organizations/${ORG}/repricings`,
        body: { start_date: '2025-03-01T00:00:00.000Z', end_date: '2025-08-01T00:00:00.000Z' },
      },
    });
  });

  it('an open range: end_date null, re-priced up to 2100-01-01', () => {
    const view = rateCardCorrectionView(ORG, { superseded: null, card: { effectiveFrom: d('2025-03-01') }, siblingDates: [] });
    expect(view.supersedes_rate_card_id).toBeNull();
    expect(view.affected_range).toEqual({ start_date: '1970-01-01T00:00:00.000Z', end_date: null });
    expect(view.repricing?.body).toEqual({ start_date: '2000-01-01T00:00:00.000Z', end_date: '2100-01-01T00:00:00.000Z' });
  });
});
