// Test support: "which card or unit rate prices this?" over a plain list, answered by the same
// index and lookup the processor and ingest use (buildTokenRateIndex + lookupTokenCard,
// buildUnitRateIndex + lookupUnitRate), so the matching tests test production's rule.
import {
  buildTokenRateIndex,
  buildUnitRateIndex,
  lookupTokenCard,
  lookupUnitRate,
  type TokenRateIndex,
  type UnitRateQuery,
} from '../../pricing/rate-card-match.js';
import type { TokenRateCard, UnitRate } from '../../pricing/pricing.types.js';

export function findTokenRateCard(cards: readonly TokenRateCard[] | TokenRateIndex, model: string, at: Date): TokenRateCard | null {
  const index = Array.isArray(cards) ? buildTokenRateIndex(cards as readonly TokenRateCard[]) : (cards as TokenRateIndex);
  return lookupTokenCard(index, model, at)?.card ?? null;
}

export function findUnitRate(rates: readonly UnitRate[], query: UnitRateQuery, at: Date): UnitRate | null {
  return lookupUnitRate(buildUnitRateIndex(rates), query, at)?.rate ?? null;
}
