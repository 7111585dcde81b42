// The standard catalog's upstream: prices from the pinned, MIT-licensed @pydantic/genai-prices
// package turned into our standard card entries, and the diff between them and the cards we
// ship. Pure (the package's provider data in, entries and changes out); scripts/cli/prices.ts
// reads the package and writes pricing/standard-rate-cards.json.
//
// Mapping: input_mtok → input, output_mtok → output and reasoning (every provider bills reasoning
// at the output rate), cache_read_mtok → cache read, cache_write_mtok → cache creation (else the
// input rate when the model has cached reads: those providers do not surcharge writes),
// cache_write_1h_mtok → one-hour writes. Tiered prices ({base, tiers: [{start, price}]}, applied
// above `start` input tokens) become context tiers. Prices dated by a start_date constraint become
// cards effective from that date; time-of-day prices (off-peak discounts) are left out. The
// package's numbers are JSON literals such as 0.075; String() gives that literal back, so rates
// stay the decimals the source wrote.
import { Big } from '../../core/money.js';
import type { ContextTier, StandardRateCardEntry } from '../pricing.types.js';
import { RATE_FIELDS } from '../standard-rate-cards.js';

/** The parts of the package's types this module reads (structural, so tests can build them). */
type TieredPrice = { base: number; tiers: { start: number; price: number }[] };
type PriceValue = number | TieredPrice | undefined;
interface CatalogModel {
  id: string;
  deprecated?: boolean;
  prices: Record<string, PriceValue> | { constraint?: { type: string; start_date?: string }; prices: Record<string, PriceValue> }[];
}
export interface CatalogProvider {
  id: string;
  pricing_urls?: string[];
  models: CatalogModel[];
}

export interface CatalogPin {
  package: string;
  version: string;
  /** YYYY-MM-DD: the release date of the pinned version, the date every price carries. */
  released: string;
  providers: string[];
  /** Slugs whose cards we keep by hand: the catalog never adds a card for them. */
  hand_corrected: { model_slug: string; reason: string }[];
}

/** Providers named as ours: the package's `google` is Gemini, `xai` is xAI. */
const RATE_KEYS = ['input_mtok', 'output_mtok', 'cache_read_mtok', 'cache_write_mtok', 'cache_write_1h_mtok'] as const;
const EPOCH_DATE = '2020-01-01';

const rate = (n: number): string => new Big(String(n)).toFixed();
const baseOf = (p: PriceValue): number | undefined => (typeof p === 'object' ? p.base : p);
/** The price at a tier threshold: the last tier starting at or below it, else the base. */
function atThreshold(p: PriceValue, start: number): number | undefined {
  if (typeof p !== 'object') return p;
  let price = p.base;
  for (const t of [...p.tiers].sort((a, b) => a.start - b.start)) if (t.start <= start) price = t.price;
  return price;
}

type Rates = Omit<StandardRateCardEntry, 'model_slug' | 'provider' | 'effective_from' | 'source' | 'source_date' | 'note' | 'service_tier' | 'tiers'>;

function ratesAt(prices: Record<string, PriceValue>, pick: (p: PriceValue) => number | undefined): Rates | null {
  const input = pick(prices.input_mtok);
  const output = pick(prices.output_mtok);
  if (input === undefined || output === undefined) return null;
  const read = pick(prices.cache_read_mtok);
  const write = pick(prices.cache_write_mtok);
  const write1h = pick(prices.cache_write_1h_mtok);
  return {
    input_cost_per_million: rate(input),
    output_cost_per_million: rate(output),
    cache_creation_cost_per_million: write !== undefined ? rate(write) : read !== undefined ? rate(input) : null,
    cache_read_cost_per_million: read === undefined ? null : rate(read),
    reasoning_cost_per_million: rate(output),
    cache_creation_1h_cost_per_million: write1h === undefined ? null : rate(write1h),
  };
}

function tiersOf(prices: Record<string, PriceValue>): ContextTier[] {
  const starts = new Set<number>();
  for (const k of RATE_KEYS) {
    const p = prices[k];
    if (typeof p === 'object') for (const t of p.tiers) starts.add(t.start);
  }
  return [...starts]
    .sort((a, b) => a - b)
    .flatMap((start) => {
      const r = ratesAt(prices, (p) => atThreshold(p, start));
      return r ? [{ above_prompt_tokens: start, ...r }] : [];
    });
}

/** One provider's models as standard card entries (one per price period), sorted by slug and date. */
export function catalogEntries(provider: CatalogProvider, pin: CatalogPin): StandardRateCardEntry[] {
  const source = provider.pricing_urls?.find((u) => u.startsWith('https://')) ?? 'https://github.com/pydantic/genai-prices';
  const out: StandardRateCardEntry[] = [];
  for (const model of provider.models) {
    if (model.deprecated) continue;
    const periods = Array.isArray(model.prices)
      ? model.prices.filter((c) => !c.constraint || c.constraint.type === 'start_date')
      : [{ prices: model.prices }];
    for (const period of periods) {
      const base = ratesAt(period.prices, baseOf);
      if (!base) continue;
      const tiers = tiersOf(period.prices);
      const from = 'constraint' in period && period.constraint?.start_date ? period.constraint.start_date.slice(0, 10) : EPOCH_DATE;
      out.push({
        model_slug: model.id.toLowerCase(),
        provider: provider.id,
        ...base,
        ...(tiers.length > 0 ? { tiers } : {}),
        effective_from: from,
        source,
        source_date: pin.released,
        note: `${pin.package}@${pin.version}`,
      });
    }
  }
  return out.sort((a, b) => (a.model_slug === b.model_slug ? a.effective_from.localeCompare(b.effective_from) : a.model_slug < b.model_slug ? -1 : 1));
}

/** What the catalog would change about one (slug, service tier): a new model, or new rates. */
interface CatalogChange {
  model_slug: string;
  provider: string;
  kind: 'new_model' | 'new_rates';
  /** The rate fields (and `tiers`) that differ, for new_rates. */
  fields?: string[];
  /** The rates we ship now (latest card), absent for a new model. */
  current?: Rates & { tiers?: ContextTier[] };
  proposed: StandardRateCardEntry;
}

export interface CatalogDiff {
  changes: CatalogChange[];
  /** Slugs the catalog has with the same rates as ours. */
  unchanged: number;
  /** Slugs the catalog would change but we keep by hand. */
  kept_by_hand: string[];
}


function sameRate(a: string | null | undefined, b: string | null | undefined): boolean {
  const x = a ?? null;
  const y = b ?? null;
  return x === null || y === null ? x === y : new Big(x).eq(y);
}

function sameRates(a: Partial<Rates>, b: Partial<Rates>): boolean {
  return RATE_FIELDS.every((f) => sameRate(a[f], b[f]));
}

function sameTiers(a: readonly ContextTier[] = [], b: readonly ContextTier[] = []): boolean {
  return a.length === b.length && a.every((t, i) => t.above_prompt_tokens === b[i]!.above_prompt_tokens && sameRates(t, b[i]!));
}

const latestCard = (cards: readonly StandardRateCardEntry[]) =>
  [...cards].sort((a, b) => a.effective_from.localeCompare(b.effective_from)).at(-1);

/**
 * Compares the catalog's latest price of each slug with the standard-tier card we ship last for
 * it. The catalog is only ever a proposal: history stays, hand-corrected slugs are skipped.
 */
export function diffCatalog(shipped: readonly StandardRateCardEntry[], catalog: readonly StandardRateCardEntry[], pin: CatalogPin): CatalogDiff {
  const hand = new Set(pin.hand_corrected.map((h) => h.model_slug));
  const bySlug = new Map<string, StandardRateCardEntry[]>();
  for (const c of shipped) {
    if ((c.service_tier ?? 'standard') !== 'standard') continue;
    bySlug.set(c.model_slug, [...(bySlug.get(c.model_slug) ?? []), c]);
  }
  const proposedBySlug = new Map<string, StandardRateCardEntry>();
  for (const c of catalog) proposedBySlug.set(c.model_slug, latestCard([...(proposedBySlug.has(c.model_slug) ? [proposedBySlug.get(c.model_slug)!] : []), c])!);
  const diff: CatalogDiff = { changes: [], unchanged: 0, kept_by_hand: [] };
  for (const [slug, proposed] of [...proposedBySlug].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const current = latestCard(bySlug.get(slug) ?? []);
    if (current && sameRates(current, proposed) && sameTiers(current.tiers, proposed.tiers)) {
      diff.unchanged++;
      continue;
    }
    if (hand.has(slug)) {
      diff.kept_by_hand.push(slug);
      continue;
    }
    const { model_slug: _s, provider: _p, effective_from: _e, source: _src, source_date: _d, note: _n, service_tier: _t, ...rates } = current ?? ({} as StandardRateCardEntry);
    const fields = current ? [...RATE_FIELDS.filter((f) => !sameRate(current[f], proposed[f])), ...(sameTiers(current.tiers, proposed.tiers) ? [] : ['tiers'])] : [];
    diff.changes.push({
      model_slug: slug,
      provider: proposed.provider,
      kind: current ? 'new_rates' : 'new_model',
      ...(current ? { fields, current: rates } : {}),
      proposed,
    });
  }
  return diff;
}

/**
 * The cards an apply adds: each change as a new card effective `from` (a new model keeps the
 * catalog's own dates). Existing cards are never changed or removed.
 */
export function cardsToAdd(diff: CatalogDiff, from: string): StandardRateCardEntry[] {
  return diff.changes.map((c) => (c.kind === 'new_model' ? c.proposed : { ...c.proposed, effective_from: from }));
}
