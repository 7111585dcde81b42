// The standard catalog's upstream: prices from the pinned, MIT-licensed @pydantic/genai-prices
// package turned into our standard card entries, and the diff between them and the cards we
// ship. Pure (the package's provider data in, entries and changes out); scripts/cli/prices.ts
// reads the package and writes pricing/standard-rate-cards.json.
//
// Providers: the pin maps the catalog's provider ids to ours (`x-ai` → `xai`); only those makers'
// own prices are read. A model a mapped provider lists but the package attributes to another maker
// (Claude on Vertex under `google`) is a resale listing and is skipped: a slug is priced by its
// maker's price, never a reseller's (slugs carry no provider, so a reseller could only overwrite it).
//
// Mapping: input_mtok → input, output_mtok → output, output_reasoning_mtok → reasoning (else the
// output rate: providers bill reasoning as output), cache_read_mtok → cache read, cache_write_mtok →
// cache creation (else the input rate when the model has cached reads: those providers do not
// surcharge writes), cache_write_1h_mtok → one-hour writes. Only the keys the package states are
// "carried"; the derived rates fill new models but never change or drop a rate we already ship.
// Tiered prices ({base, tiers: [{start, price}]}, applied above `start` input tokens) become context
// tiers. Prices dated by a start_date constraint become cards effective from that date; time-of-day
// prices (off-peak discounts) are left out. The package's numbers are JSON literals such as 0.075;
// String() gives that literal back, so rates stay the decimals the source wrote.
import { Big } from '../../core/money.js';
import type { ContextTier, StandardRateCardEntry } from '../pricing.types.js';
import { RATE_FIELDS } from '../standard-rate-cards.js';

/** The parts of the package's types this module reads (structural, so tests can build them). */
type TieredPrice = { base: number; tiers: { start: number; price: number }[] };
export type PriceValue = number | TieredPrice | undefined;
interface MatchLogic {
  equals?: string;
  starts_with?: string;
  ends_with?: string;
  contains?: string;
  regex?: string;
  or?: MatchLogic[];
  and?: MatchLogic[];
}
export interface CatalogModel {
  id: string;
  deprecated?: boolean;
  match?: MatchLogic;
  prices:
    | Record<string, PriceValue>
    | { constraint?: { type: string; start_date?: string; start_time?: string; end_time?: string }; prices: Record<string, PriceValue> }[];
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
  /** Catalog provider id → our provider name: the makers whose own prices we ship. */
  providers: Record<string, string>;
  /** Slugs whose cards we keep by hand: the catalog never adds a card for them. */
  hand_corrected: { model_slug: string; reason: string }[];
}

/** Which catalog provider makes a model id (the package's model-to-provider match), if any. */
export type MakerOf = (modelId: string) => string | undefined;

type RateField = (typeof RATE_FIELDS)[number];
type Rates = Pick<StandardRateCardEntry, RateField>;

/** One catalog price period as a card, and which of its rates the catalog states itself. */
interface CatalogEntry {
  card: StandardRateCardEntry;
  carried: readonly RateField[];
  /** `<catalog provider>/<model id>`: two models claiming one slug make it ambiguous. */
  model: string;
  /** Whether the package's own match logic says a model name is this model (an alias check). */
  names: (name: string) => boolean;
  /** The exact names and prefixes the package's match lists for the model (lowercase). */
  listed: string[];
}

/** A model a mapped provider lists but another maker makes: not read (see the header). */
interface ResoldListing {
  catalog_provider: string;
  model_id: string;
  maker: string;
}

export interface ProviderEntries {
  entries: CatalogEntry[];
  resold: ResoldListing[];
}

const TIERABLE_KEYS = [
  'input_mtok',
  'output_mtok',
  'output_reasoning_mtok',
  'cache_read_mtok',
  'cache_write_mtok',
  'cache_write_1h_mtok',
] as const;
const CARRIED_BY: Record<RateField, string> = {
  input_cost_per_million: 'input_mtok',
  output_cost_per_million: 'output_mtok',
  cache_creation_cost_per_million: 'cache_write_mtok',
  cache_read_cost_per_million: 'cache_read_mtok',
  reasoning_cost_per_million: 'output_reasoning_mtok',
  cache_creation_1h_cost_per_million: 'cache_write_1h_mtok',
};
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
    reasoning_cost_per_million: rate(pick(prices.output_reasoning_mtok) ?? output),
    cache_creation_1h_cost_per_million: write1h === undefined ? null : rate(write1h),
  };
}

function tiersOf(prices: Record<string, PriceValue>): ContextTier[] {
  const starts = new Set<number>();
  for (const k of TIERABLE_KEYS) {
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

/** The package's model match logic (one clause kind per object, or/and of clauses). */
export function matchesName(m: MatchLogic | undefined, name: string): boolean {
  if (!m) return false;
  if (m.or) return m.or.some((x) => matchesName(x, name));
  if (m.and) return m.and.every((x) => matchesName(x, name));
  if (m.equals !== undefined) return name === m.equals;
  if (m.starts_with !== undefined) return name.startsWith(m.starts_with);
  if (m.ends_with !== undefined) return name.endsWith(m.ends_with);
  if (m.contains !== undefined) return name.includes(m.contains);
  if (m.regex !== undefined) return new RegExp(m.regex).test(name);
  return false;
}

function listedNames(m: MatchLogic | undefined): string[] {
  if (!m) return [];
  return [...(m.equals ? [m.equals] : []), ...(m.starts_with ? [m.starts_with] : []), ...(m.or ?? []).flatMap(listedNames)].map((n) =>
    n.toLowerCase(),
  );
}

function startsWithPatterns(m: MatchLogic | undefined): string[] {
  if (!m) return [];
  return [...(m.starts_with ? [m.starts_with] : []), ...(m.or ?? []).flatMap(startsWithPatterns)];
}

/**
 * The slug a catalog model is priced under. We match by prefix, so an id such as
 * `claude-3-5-haiku-latest` (the package matches it as "starts with claude-3-5-haiku") is shipped
 * as the shortest of its own `starts_with` patterns that prefixes the id; otherwise the id itself.
 */
export function slugOf(model: Pick<CatalogModel, 'id' | 'match'>): string {
  const id = model.id.toLowerCase();
  const prefixes = startsWithPatterns(model.match)
    .map((p) => p.toLowerCase())
    .filter((p) => p !== '' && id.startsWith(p))
    .sort((a, b) => a.length - b.length);
  return prefixes[0] ?? id;
}

/**
 * One mapped provider's own models as standard card entries (one per price period), sorted by
 * slug and date; the models it resells are listed apart and not read.
 */
export function catalogEntries(provider: CatalogProvider, pin: CatalogPin, makerOf: MakerOf): ProviderEntries {
  const ours = pin.providers[provider.id];
  if (!ours) throw new Error(`catalog provider "${provider.id}" is not mapped in the pin`);
  const source = provider.pricing_urls?.find((u) => u.startsWith('https://')) ?? 'https://github.com/pydantic/genai-prices';
  const entries: CatalogEntry[] = [];
  const resold: ResoldListing[] = [];
  for (const model of provider.models) {
    if (model.deprecated) continue;
    const maker = makerOf(model.id);
    if (maker !== undefined && maker !== provider.id) {
      resold.push({ catalog_provider: provider.id, model_id: model.id, maker });
      continue;
    }
    const periods = Array.isArray(model.prices)
      ? model.prices.filter((c) => !c.constraint || c.constraint.type === 'start_date')
      : [{ prices: model.prices }];
    for (const period of periods) {
      const base = ratesAt(period.prices, baseOf);
      if (!base) continue;
      const tiers = tiersOf(period.prices);
      const from = 'constraint' in period && period.constraint?.start_date ? period.constraint.start_date.slice(0, 10) : EPOCH_DATE;
      const card: StandardRateCardEntry = {
        model_slug: slugOf(model),
        provider: ours,
        ...base,
        ...(tiers.length > 0 ? { tiers } : {}),
        effective_from: from,
        source,
        source_date: pin.released,
        note: `${pin.package}@${pin.version} (${provider.id}/${model.id})`,
      };
      entries.push({
        card,
        carried: RATE_FIELDS.filter((f) => period.prices[CARRIED_BY[f]] !== undefined),
        model: `${provider.id}/${model.id}`,
        names: (name) => matchesName(model.match, name),
        listed: listedNames(model.match),
      });
    }
  }
  entries.sort((a, b) =>
    a.card.model_slug === b.card.model_slug
      ? a.card.effective_from.localeCompare(b.card.effective_from)
      : a.card.model_slug < b.card.model_slug
        ? -1
        : 1,
  );
  return { entries, resold };
}

/** What the catalog would change about one slug (standard tier): a new model, or new rates. */
interface CatalogChange {
  model_slug: string;
  provider: string;
  kind: 'new_model' | 'new_rates';
  /** The rate fields (and `tiers`) that differ, for new_rates. */
  fields?: string[];
  /** Rates we ship that the catalog does not state: the proposed card keeps ours (`tiers` too). */
  kept?: string[];
  /** The rates we ship now (latest card), absent for a new model. */
  current?: Rates & { tiers?: ContextTier[] };
  proposed: StandardRateCardEntry;
  /** A new model's slug that a shipped slug prefixes: names it matches were priced by that slug's cards until now. */
  shadows?: string;
  /** Set when the package matches the shadowed slug as this same model: `kept` then applies to it. */
  alias_of?: string;
  /** A new model's earlier catalog price periods, added with it. */
  earlier?: StandardRateCardEntry[];
}

export interface CatalogDiff {
  changes: CatalogChange[];
  /** Slugs the catalog has with the same rates as ours (on every rate it states). */
  unchanged: number;
  /** Slugs the catalog would change but we keep by hand: listed in the pin, or checked after its release. */
  kept_by_hand: { model_slug: string; reason: string }[];
  /** Models mapped providers list on behalf of another maker: never read. */
  resold_skipped: ResoldListing[];
  /** Slugs two catalog models would both take: left out until someone decides. */
  ambiguous_slugs: string[];
}

function sameRate(a: string | null | undefined, b: string | null | undefined): boolean {
  const x = a ?? null;
  const y = b ?? null;
  return x === null || y === null ? x === y : new Big(x).eq(y);
}

const latestCard = (cards: readonly StandardRateCardEntry[]) =>
  [...cards].sort((a, b) => a.effective_from.localeCompare(b.effective_from)).at(-1);

const ratesOf = (r: Partial<Rates>): Rates => Object.fromEntries(RATE_FIELDS.map((f) => [f, r[f] ?? null])) as Rates;

/**
 * The card the catalog proposes for a slug we ship (or one that names the same model): the
 * catalog's rates where it states them, ours where it is silent and we have one (so a change never
 * drops a rate, e.g. our one-hour cache-write rate; else the derived rate), and our tiers when the
 * catalog has none. `fields` is empty when nothing the catalog states differs from ours.
 */
function mergeWithShipped(current: StandardRateCardEntry, entry: CatalogEntry) {
  const { card, carried } = entry;
  const silent = RATE_FIELDS.filter((f) => !carried.includes(f));
  const ourTiers = current.tiers ?? [];
  const catalogTiers = card.tiers ?? [];
  const tiers = catalogTiers.map((t): ContextTier => {
    const ourTier = ourTiers.find((o) => o.above_prompt_tokens === t.above_prompt_tokens);
    // A silent class: our rate in the same tier, else the tier's derived rate (input for writes, output for reasoning).
    return { ...t, ...Object.fromEntries(silent.map((f) => [f, ourTier?.[f] ?? t[f] ?? null])) };
  });
  const tiersDiffer =
    catalogTiers.length > 0 &&
    !(
      tiers.length === ourTiers.length &&
      tiers.every(
        (t, i) => t.above_prompt_tokens === ourTiers[i]!.above_prompt_tokens && RATE_FIELDS.every((f) => sameRate(t[f], ourTiers[i]![f])),
      )
    );
  const fields = [...carried.filter((f) => !sameRate(current[f], card[f])), ...(tiersDiffer ? ['tiers'] : [])];
  const kept = [
    ...silent.filter((f) => current[f] != null && !sameRate(current[f], card[f])),
    ...(catalogTiers.length === 0 && ourTiers.length > 0 ? ['tiers'] : []),
  ];
  const keptNote =
    kept.length > 0
      ? `; kept from our card of ${current.effective_from} (${current.source}, ${current.source_date}): ${kept.join(', ')}`
      : '';
  const { tiers: _catalogTiers, ...rest } = card;
  const keptTiers = catalogTiers.length > 0 ? tiers : ourTiers;
  const proposed: StandardRateCardEntry = {
    ...rest,
    ...Object.fromEntries(silent.map((f) => [f, current[f] ?? card[f] ?? null])),
    ...(keptTiers.length > 0 ? { tiers: keptTiers } : {}),
    note: `${card.note ?? ''}${keptNote}`,
  };
  return { fields, kept, proposed };
}

/**
 * A slug we do not ship. When a shipped slug prefixes it, names it matches were priced by that
 * slug's cards until now (`shadows`); when the package says that shorter slug names this same model
 * (claude-sonnet-4 for claude-sonnet-4-0), it is an alias and keeps what our card has that the
 * catalog does not state (tiers, a one-hour rate), as a changed card would.
 */
function newModel(
  slug: string,
  ordered: CatalogEntry[],
  shippedSlugs: string[],
  bySlug: Map<string, StandardRateCardEntry[]>,
): CatalogChange {
  const latest = ordered.at(-1)!;
  const earlier = ordered.slice(0, -1).map((e) => e.card);
  const shadows = shippedSlugs.filter((s) => slug.startsWith(s) && s !== slug).sort((a, b) => b.length - a.length)[0];
  const shadowed = shadows !== undefined ? latestCard(bySlug.get(shadows) ?? []) : undefined;
  const alias = shadowed && latest.names(shadows!) ? mergeWithShipped(shadowed, latest) : undefined;
  return {
    model_slug: slug,
    provider: latest.card.provider,
    kind: 'new_model',
    ...(shadows ? { shadows } : {}),
    ...(alias ? { alias_of: shadows, ...(alias.kept.length > 0 ? { kept: alias.kept } : {}) } : {}),
    proposed: alias ? alias.proposed : latest.card,
    ...(earlier.length > 0 ? { earlier } : {}),
  };
}

/**
 * Compares the catalog's latest price of each slug with the standard-tier card we ship last for
 * it. The catalog is only ever a proposal: history stays; slugs the pin lists as hand-corrected, and
 * slugs whose latest card we checked after the package's release, are skipped (ours win).
 */
export function diffCatalog(shipped: readonly StandardRateCardEntry[], catalog: readonly ProviderEntries[], pin: CatalogPin): CatalogDiff {
  const hand = new Map(pin.hand_corrected.map((h) => [h.model_slug, h.reason]));
  const bySlug = new Map<string, StandardRateCardEntry[]>();
  for (const c of shipped) {
    if ((c.service_tier ?? 'standard') !== 'standard') continue;
    bySlug.set(c.model_slug, [...(bySlug.get(c.model_slug) ?? []), c]);
  }
  // Every period of every slug, and which catalog models claim each slug.
  const periodsBySlug = new Map<string, CatalogEntry[]>();
  const modelsBySlug = new Map<string, Set<string>>();
  for (const e of catalog.flatMap((p) => p.entries)) {
    periodsBySlug.set(e.card.model_slug, [...(periodsBySlug.get(e.card.model_slug) ?? []), e]);
    modelsBySlug.set(e.card.model_slug, (modelsBySlug.get(e.card.model_slug) ?? new Set()).add(e.model));
  }
  const shippedSlugs = [...new Set(shipped.map((c) => c.model_slug))];
  const diff: CatalogDiff = {
    changes: [],
    unchanged: 0,
    kept_by_hand: [],
    resold_skipped: catalog.flatMap((p) => p.resold),
    ambiguous_slugs: [],
  };
  for (const [slug, periods] of [...periodsBySlug].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (modelsBySlug.get(slug)!.size > 1) {
      diff.ambiguous_slugs.push(slug);
      continue;
    }
    const ordered = [...periods].sort((a, b) => a.card.effective_from.localeCompare(b.card.effective_from));
    const latest = ordered.at(-1)!;
    const current = latestCard(bySlug.get(slug) ?? []);
    const merged = current ? mergeWithShipped(current, latest) : undefined;
    if (merged?.fields.length === 0) {
      diff.unchanged++;
      continue;
    }
    const handReason =
      hand.get(slug) ??
      (current && current.source_date > pin.released
        ? `our card was checked on ${current.source_date}, after ${pin.package}@${pin.version} (${pin.released})`
        : undefined);
    if (handReason !== undefined) {
      diff.kept_by_hand.push({ model_slug: slug, reason: handReason });
      continue;
    }
    if (!current || !merged) {
      diff.changes.push(newModel(slug, ordered, shippedSlugs, bySlug));
      continue;
    }
    diff.changes.push({
      model_slug: slug,
      provider: latest.card.provider,
      kind: 'new_rates',
      fields: merged.fields,
      ...(merged.kept.length > 0 ? { kept: merged.kept } : {}),
      current: { ...ratesOf(current), ...(current.tiers ? { tiers: current.tiers } : {}) },
      proposed: merged.proposed,
    });
  }
  diff.changes.push(...cardsForCapturedNames(diff.changes, periodsBySlug, shippedSlugs, new Set(diff.ambiguous_slugs)));
  return diff;
}

const longestPrefix = (slugs: readonly string[], name: string) =>
  slugs.filter((s) => name.startsWith(s)).reduce<string | undefined>((a, s) => (a === undefined || s.length > a.length ? s : a), undefined);

/**
 * Names the package lists for one model that a new slug would price as another model (the catalog's
 * `gpt-4` prefixes `gpt-4-0125-preview`, which the package prices as gpt-4-turbo): each gets cards
 * of its own model, so adding a slug never moves a listed name onto another model's price.
 */
function cardsForCapturedNames(
  changes: readonly CatalogChange[],
  periodsBySlug: ReadonlyMap<string, CatalogEntry[]>,
  shippedSlugs: readonly string[],
  ambiguous: ReadonlySet<string>,
): CatalogChange[] {
  const after = [...shippedSlugs, ...changes.filter((c) => c.kind === 'new_model').map((c) => c.model_slug)];
  const taken = new Set(after);
  const out: CatalogChange[] = [];
  for (const [slug, periods] of periodsBySlug) {
    // Not priced from the catalog: a slug we do not have, or one two models claim (already shipped
    // or not, the diff cannot say which model's names the slug stands for).
    if (!taken.has(slug) || ambiguous.has(slug)) continue;
    const ordered = [...periods].sort((a, b) => a.card.effective_from.localeCompare(b.card.effective_from));
    for (const name of ordered.at(-1)!.listed) {
      const now = longestPrefix(after, name);
      if (taken.has(name) || name.includes('/') || now === undefined || now === slug || now === longestPrefix(shippedSlugs, name)) continue;
      taken.add(name);
      const cards = ordered.map((e) => ({
        ...e.card,
        model_slug: name,
        note: `${e.card.note ?? ''}; the package lists "${name}" as this model, which slug ${now} would otherwise price`,
      }));
      out.push({
        model_slug: name,
        provider: cards[0]!.provider,
        kind: 'new_model',
        shadows: now,
        proposed: cards.at(-1)!,
        ...(cards.length > 1 ? { earlier: cards.slice(0, -1) } : {}),
      });
    }
  }
  return out.sort((a, b) => (a.model_slug < b.model_slug ? -1 : 1));
}

/**
 * The cards an apply adds: each change as a new card effective `from` (a new model keeps the
 * catalog's own dates, earlier periods included). Existing cards are never changed or removed.
 */
export function cardsToAdd(diff: CatalogDiff, from: string): StandardRateCardEntry[] {
  return diff.changes.flatMap((c) =>
    c.kind === 'new_model' ? [...(c.earlier ?? []), c.proposed] : [{ ...c.proposed, effective_from: from }],
  );
}
