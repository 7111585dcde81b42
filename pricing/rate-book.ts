// Per-organization pricing rates (standard cards merged with the organization's own cards and
// unit rates), indexed once and cached. A cached entry is reused until the organization's
// rates_version changes; the version is re-read at most every `refreshMs`, so a new card is seen
// by ingest (flags) and the processor (pricing) within about a second without a query per event.
// `cached` false switches the cache off: every call reads and indexes the rates again
// (bench/read-path-layers weighs it).
import type { Queryable } from '../core/control/db.js';
import { getRatesVersion, listRateCards, listUnitRates } from './rate-cards.store.js';
import {
  buildTokenRateIndex,
  buildUnitRateIndex,
  loadStandardRateCards,
  mergeRateCards,
  tokenRateCardFromRecord,
  unitRateFromRecord,
  type TokenRateCard,
} from './rate-card-match.js';
import type { PricingRates } from './price-event.js';

interface Entry {
  version: number;
  checkedAt: number;
  rates: PricingRates;
  cards: TokenRateCard[];
}

export class RateBook {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<Entry>>();
  private readonly standard = loadStandardRateCards();

  constructor(
    private readonly db: Queryable,
    private readonly refreshMs = 1_000,
    private readonly now: () => number = Date.now,
    private readonly cached = true,
  ) {}

  /** Rates for pricing and for ingest's "no rate card" flag. */
  async ratesFor(organizationId: string): Promise<PricingRates> {
    return (await this.entry(organizationId)).rates;
  }

  /** The merged token cards (standard replaced by the organization's), for the rate table. */
  async cardsFor(organizationId: string): Promise<TokenRateCard[]> {
    return (await this.entry(organizationId)).cards;
  }

  /** The rates_version the cached rates were built from. */
  async versionFor(organizationId: string): Promise<number> {
    return (await this.entry(organizationId)).version;
  }

  private async entry(organizationId: string): Promise<Entry> {
    if (!this.cached) return this.refresh(organizationId, undefined);
    const cached = this.entries.get(organizationId);
    if (cached && this.now() - cached.checkedAt < this.refreshMs) return cached;
    const inFlight = this.loading.get(organizationId);
    if (inFlight) return inFlight;
    const p = this.refresh(organizationId, cached).finally(() => this.loading.delete(organizationId));
    this.loading.set(organizationId, p);
    return p;
  }

  private async refresh(organizationId: string, cached: Entry | undefined): Promise<Entry> {
    const version = (await getRatesVersion(this.db, organizationId)) ?? 0;
    if (cached && cached.version === version) {
      cached.checkedAt = this.now();
      return cached;
    }
    const [cards, unitRates] = await Promise.all([listRateCards(this.db, organizationId), listUnitRates(this.db, organizationId)]);
    const merged = mergeRateCards(this.standard, cards.map(tokenRateCardFromRecord));
    const entry: Entry = {
      version,
      checkedAt: this.now(),
      cards: merged,
      rates: {
        tokenCards: buildTokenRateIndex(merged),
        unitRates: buildUnitRateIndex(unitRates.map(unitRateFromRecord)),
      },
    };
    this.entries.set(organizationId, entry);
    return entry;
  }
}
