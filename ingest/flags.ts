// Why an accepted event needs attention (spec "States and transitions": accepted_flagged). Pure:
// the event, the time it was received and the organization's rates in; the flag reason, or null.
// Rate matching is pricing/'s, so ingest flags exactly what the processor cannot price.
import { missingRateReason, pricingNoteFor, type PricingRates, type RateQuery } from '../pricing/price-event.js';

const MAX_AGE_MS = 24 * 60 * 60 * 1000;
const MAX_FUTURE_MS = 60 * 1000;

const FLAG_TOO_OLD = 'timestamp is more than 24 hours old';
const FLAG_IN_FUTURE = 'timestamp is more than 1 minute in the future';

export interface FlaggableEvent extends RateQuery {
  cost_override: string | null;
}

/** The causes joined by "; ", or null when the event is not flagged. */
export function flagReasonFor(event: FlaggableEvent, receivedAt: Date, rates: PricingRates): string | null {
  const reasons: string[] = [];
  const ageMs = receivedAt.getTime() - event.timestamp.getTime();
  if (ageMs > MAX_AGE_MS) reasons.push(FLAG_TOO_OLD);
  else if (-ageMs > MAX_FUTURE_MS) reasons.push(FLAG_IN_FUTURE);
  if (event.cost_override === null) {
    const missing = missingRateReason(event, rates);
    if (missing !== null) reasons.push(missing);
    // A service tier without its own card: priced, but not at the tier's price.
    else if (event.service_tier) {
      const note = pricingNoteFor(event, rates);
      if (note !== null) reasons.push(note);
    }
  }
  return reasons.length > 0 ? reasons.join('; ') : null;
}
