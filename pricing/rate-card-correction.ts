// What writing a token card changes, and the re-pricing that brings history in line with it. Pure.
// A card prices its identity's events (model_slug, service_tier) from its effective_from until the
// next current card of that identity, so a correction or a new card changes exactly that range;
// an organization's first card of an identity replaces the standard cards' whole history of it.
// Events already priced keep their cost until the range is re-priced (POST …/repricings).
import { EARLIEST_EVENT_TIME, LATEST_EVENT_TIME } from '../schemas/usage-event.js';
import { ALWAYS } from './rate-cards.store.js';

/** Event times whose price a card write changes: [start, end), end null = open. */
export interface AffectedRange {
  start: Date;
  end: Date | null;
}

/**
 * The range a card written at `effectiveFrom` changes, given the effective dates of its
 * identity's other current cards (`siblingDates`, any order) and whether it superseded a card.
 */
export function affectedRange(effectiveFrom: Date, siblingDates: readonly Date[], supersededCard: boolean): AffectedRange {
  if (siblingDates.length === 0 && !supersededCard) return { start: ALWAYS, end: null };
  const later = siblingDates.filter((d) => d.getTime() > effectiveFrom.getTime()).map((d) => d.getTime());
  return { start: effectiveFrom, end: later.length > 0 ? new Date(Math.min(...later)) : null };
}

/**
 * The bounds to re-price a range with: the range cut to the times events can have (an open end
 * becomes the latest accepted event time), so one call covers every stored event in it; null when
 * no event can lie in the range.
 */
export function repricingBounds(range: AffectedRange): { start: Date; end: Date } | null {
  const clamp = (d: Date) => new Date(Math.min(Math.max(d.getTime(), EARLIEST_EVENT_TIME.getTime()), LATEST_EVENT_TIME.getTime()));
  const start = clamp(range.start);
  const end = clamp(range.end ?? LATEST_EVENT_TIME);
  return start < end ? { start, end } : null;
}

/** The re-pricing call that brings a range's stored events to the cards now in effect. */
interface RepricingRequestView {
  method: 'POST';
  /** Under the API's origin: `/v1/admin/organizations/{organizationId}/repricings`. */
  path: string;
  body: { start_date: string; end_date: string };
}

/** What a card write answers beside the card: what it replaced, what it changes, how to re-price that. */
export interface RateCardCorrectionView {
  /** The card of the same model_slug, service_tier and effective_from this one superseded; null when none was current. */
  supersedes_rate_card_id: string | null;
  /**
   * Event times whose price this write changes, ISO 8601 UTC: from the card's effective_from
   * until the next card of its identity (end_date null: open). An organization's first card of a
   * model_slug and service_tier replaces the standard cards' whole history: start_date is then
   * 1970-01-01. Events already priced keep their cost until the range is re-priced.
   */
  affected_range: { start_date: string; end_date: string | null };
  /**
   * The re-pricing of that range (the admin re-pricing call, bounds cut to the times events can
   * have); `npm run cli -- rate-cards create … --reprice` sends it. Null when no event can lie in the range.
   */
  repricing: RepricingRequestView | null;
}

export function rateCardCorrectionView(
  organizationId: string,
  write: { superseded: { id: string } | null; card: { effectiveFrom: Date }; siblingDates: readonly Date[] },
): RateCardCorrectionView {
  const range = affectedRange(write.card.effectiveFrom, write.siblingDates, write.superseded !== null);
  const bounds = repricingBounds(range);
  return {
    supersedes_rate_card_id: write.superseded?.id ?? null,
    affected_range: { start_date: range.start.toISOString(), end_date: range.end?.toISOString() ?? null },
    repricing: bounds && {
      method: 'POST',
      path: `/v1/admin/organizations/${organizationId}/repricings`,
      body: { start_date: bounds.start.toISOString(), end_date: bounds.end.toISOString() },
    },
  };
}
