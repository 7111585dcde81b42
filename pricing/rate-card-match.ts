// Rate-card matching: the one copy of the rule that ingest (flagging), the processor (pricing) and
// the api (rate estimation table) share. Pure. A model matches the longest slug that prefixes it
// (lowercased); the card used is the latest whose effective_from is at or before the given time,
// so a price is a function of the event and the cards, whatever order events are processed in.
import { Big } from '../core/money.js';
import {
  STANDARD_SERVICE_TIER,
  type ContextTier,
  type RateEstimationItem,
  type RateEstimationServiceTier,
  type RateEstimationTable,
  type TimeWindow,
  type TokenRateCard,
  type UnitRate,
} from './pricing.types.js';
import { layOutTimeWindows, minuteOfWeek, type WindowWeek } from './time-windows.js';

export type {
  RateEstimationTable,
  TokenRateCard,
  UnitRate,
} from './pricing.types.js';
import { compareCodePoints } from '../core/compare.js';
export { loadStandardRateCards } from './standard-rate-cards.js';

// ---------------------------------------------------------------------------------------------
// Token rate cards

/** One set of token rates, parsed once: a card's base rates or one of its context tiers. */
export interface TokenRates {
  readonly input: Big;
  readonly output: Big;
  readonly cacheCreation: Big | null;
  /** One-hour cache writes; null = they cannot be priced. */
  readonly cacheCreation1h: Big | null;
  readonly cacheRead: Big | null;
  readonly reasoning: Big | null;
}

interface IndexedContextTier extends TokenRates {
  readonly abovePromptTokens: number;
}

/** A time-of-day window with its rates parsed once. */
export interface IndexedTimeWindow extends TokenRates {
  readonly name: string;
  readonly window: TimeWindow;
}

/** A card with its rates parsed once, so pricing an event does no string parsing. Its own fields are the base rates. */
export interface IndexedTokenCard extends TokenRates {
  readonly card: TokenRateCard;
  /** The lowercased model_slug. */
  readonly slug: string;
  readonly serviceTier: string;
  /** What priced events record: the organization card's UUID, or `standard:<slug>:<tier>:<effective_from>`. */
  readonly id: string;
  readonly fromMs: number;
  /** Ascending by threshold; empty when the card has one price whatever the prompt size. */
  readonly tiers: readonly IndexedContextTier[];
  /** Time-of-day windows in the card's order; empty when one price holds at every hour. */
  readonly windows: readonly IndexedTimeWindow[];
  /** Which window covers each minute of the UTC week; null without windows. */
  readonly windowWeek: WindowWeek | null;
  /** This card matched for its own tier, built once (lookups run for every event). */
  readonly ownMatch: TokenCardMatch;
}

/**
 * Cards grouped by slug, then by service tier (each group sorted by effective_from), plus the
 * distinct slug lengths, longest first: a lookup tries one Map probe per length instead of
 * scanning every card.
 */
export interface TokenRateIndex {
  readonly kind: 'token-rate-index';
  readonly bySlug: ReadonlyMap<string, ReadonlyMap<string, readonly IndexedTokenCard[]>>;
  readonly slugLengths: readonly number[];
}

function parseRate(value: string, slug: string, field: string): Big {
  try {
    return new Big(value);
  } catch {
    throw new Error(`rate card ${slug}: ${field} is not a decimal (${JSON.stringify(value)})`);
  }
}

function parseNullableRate(value: string | null | undefined, slug: string, field: string): Big | null {
  return value === null || value === undefined ? null : parseRate(value, slug, field);
}

type RateFields = Pick<
  TokenRateCard,
  | 'input_cost_per_million'
  | 'output_cost_per_million'
  | 'cache_creation_cost_per_million'
  | 'cache_creation_1h_cost_per_million'
  | 'cache_read_cost_per_million'
  | 'reasoning_cost_per_million'
>;

function parseRates(r: RateFields, slug: string): TokenRates {
  return {
    input: parseRate(r.input_cost_per_million, slug, 'input_cost_per_million'),
    output: parseRate(r.output_cost_per_million, slug, 'output_cost_per_million'),
    cacheCreation: parseNullableRate(r.cache_creation_cost_per_million, slug, 'cache_creation_cost_per_million'),
    cacheCreation1h: parseNullableRate(r.cache_creation_1h_cost_per_million, slug, 'cache_creation_1h_cost_per_million'),
    cacheRead: parseNullableRate(r.cache_read_cost_per_million, slug, 'cache_read_cost_per_million'),
    reasoning: parseNullableRate(r.reasoning_cost_per_million, slug, 'reasoning_cost_per_million'),
  };
}

function parseTiers(card: TokenRateCard, slug: string): IndexedContextTier[] {
  const tiers = (card.tiers ?? []).map((t) => {
    if (!Number.isSafeInteger(t.above_prompt_tokens) || t.above_prompt_tokens < 0) {
      throw new Error(`rate card ${slug}: tier above_prompt_tokens must be a non-negative integer`);
    }
    return { abovePromptTokens: t.above_prompt_tokens, ...parseRates(t, slug) };
  });
  tiers.sort((a, b) => a.abovePromptTokens - b.abovePromptTokens);
  for (let i = 1; i < tiers.length; i++) {
    if (tiers[i]!.abovePromptTokens === tiers[i - 1]!.abovePromptTokens) {
      throw new Error(`rate card ${slug}: two tiers above ${tiers[i]!.abovePromptTokens} prompt tokens`);
    }
  }
  return tiers;
}

function parseWindows(card: TokenRateCard, slug: string): { windows: IndexedTimeWindow[]; week: WindowWeek | null } {
  const list = card.time_of_day_windows ?? [];
  if (list.length === 0) return { windows: [], week: null };
  if ((card.tiers ?? []).length > 0) throw new Error(`rate card ${slug}: a card has context tiers or time windows, not both`);
  const week = layOutTimeWindows(list, 'time_of_day_windows', (field, message) => new Error(`rate card ${slug}: ${field} ${message}`));
  return { windows: list.map((w) => ({ name: w.name, window: w, ...parseRates(w, slug) })), week };
}

/** The time-of-day window of a card that covers `at`, or null (the card's own rates hold then). */
export function windowAt(card: IndexedTokenCard, at: Date): IndexedTimeWindow | null {
  if (card.windowWeek === null) return null;
  const i = card.windowWeek[minuteOfWeek(at)]!;
  return i < 0 ? null : card.windows[i]!;
}

/** The id a card prices events under: its own, else one derived from its identity. */
function tokenCardId(card: TokenRateCard): string {
  return (
    card.id ??
    `standard:${card.model_slug.toLowerCase()}:${card.service_tier ?? STANDARD_SERVICE_TIER}:${card.effective_from.toISOString()}`
  );
}

export function buildTokenRateIndex(cards: readonly TokenRateCard[]): TokenRateIndex {
  const bySlug = new Map<string, Map<string, IndexedTokenCard[]>>();
  for (const card of cards) {
    const slug = card.model_slug.toLowerCase();
    if (slug === '') throw new Error('rate card with an empty model_slug');
    const fromMs = card.effective_from.getTime();
    if (Number.isNaN(fromMs)) throw new Error(`rate card ${slug}: effective_from is not a valid date`);
    const serviceTier = (card.service_tier ?? STANDARD_SERVICE_TIER).toLowerCase();
    const { windows, week } = parseWindows(card, slug);
    const indexed: IndexedTokenCard = {
      card,
      slug,
      serviceTier,
      id: tokenCardId(card),
      fromMs,
      ...parseRates(card, slug),
      tiers: parseTiers(card, slug),
      windows,
      windowWeek: week,
      ownMatch: null as unknown as TokenCardMatch, // set just below: it points back at the card
    };
    (indexed as { ownMatch: TokenCardMatch }).ownMatch = { card: indexed, fallbackReason: null };
    let byTier = bySlug.get(slug);
    if (!byTier) bySlug.set(slug, (byTier = new Map()));
    const group = byTier.get(serviceTier);
    if (group) group.push(indexed);
    else byTier.set(serviceTier, [indexed]);
  }
  // Stable sort: of two cards with the same identity, the later one in the list wins
  // (mergeRateCards puts organization cards last).
  for (const byTier of bySlug.values()) for (const group of byTier.values()) group.sort((a, b) => a.fromMs - b.fromMs);
  const slugLengths = [...new Set([...bySlug.keys()].map((s) => s.length))].sort((a, b) => b - a);
  return { kind: 'token-rate-index', bySlug, slugLengths };
}

/** The card of a slug group in effect at `atMs`: the latest with effective_from <= atMs. */
function inEffect<T extends { fromMs: number }>(group: readonly T[] | undefined, atMs: number): T | null {
  if (!group) return null;
  for (let i = group.length - 1; i >= 0; i--) {
    if (group[i]!.fromMs <= atMs) return group[i]!;
  }
  return null;
}

/** The card that priced an event and, when its service tier had no card of its own, why the standard one did. */
export interface TokenCardMatch {
  readonly card: IndexedTokenCard;
  /** Null when the card is of the tier asked for. */
  readonly fallbackReason: string | null;
}

/**
 * The card that prices `model` at `at` in `serviceTier` (default standard), or null.
 *
 * The slug is chosen first, by longest prefix over cards of every service tier; then, within that
 * slug, the card of the asked tier in effect at `at`, else the slug's standard card (with the
 * reason recorded). So a batch request for gpt-4o-mini never takes gpt-4o's batch card.
 *
 * No fallback to a shorter slug: when the longest matching slug has no card in effect at `at`
 * (its first card starts later), the answer is null rather than a shorter slug's card. A longer
 * slug names a different model (gpt-4o-mini is not gpt-4o, at a sixteenth of the price); pricing
 * it at the shorter slug's rate would silently misstate cost, while null marks the event
 * pending_rate_card, visible and re-priced once a card covering that date is added.
 */
export function matchTokenCard(index: TokenRateIndex, model: string, at: Date, serviceTier: string | null = null): TokenCardMatch | null {
  const name = model.toLowerCase();
  const tier = (serviceTier ?? STANDARD_SERVICE_TIER).toLowerCase();
  const atMs = at.getTime();
  for (const length of index.slugLengths) {
    if (length > name.length) continue;
    const byTier = index.bySlug.get(length === name.length ? name : name.slice(0, length));
    if (!byTier) continue;
    const own = inEffect(byTier.get(tier), atMs);
    if (own) return own.ownMatch;
    if (tier === STANDARD_SERVICE_TIER) return null;
    const standard = inEffect(byTier.get(STANDARD_SERVICE_TIER), atMs);
    return standard
      ? { card: standard, fallbackReason: `no "${tier}" service tier card for "${standard.slug}"; priced at the standard card` }
      : null;
  }
  return null;
}

/** The standard-tier card that prices `model` at `at`, or null (matchTokenCard without a service tier). */
export function lookupTokenCard(index: TokenRateIndex, model: string, at: Date): IndexedTokenCard | null {
  return matchTokenCard(index, model, at)?.card ?? null;
}

// Callers that hold a plain array get an index built once per array (arrays are treated as
// immutable once passed in).
const tokenIndexCache = new WeakMap<readonly TokenRateCard[], TokenRateIndex>();

function asTokenIndex(cards: readonly TokenRateCard[] | TokenRateIndex): TokenRateIndex {
  if (!Array.isArray(cards)) return cards as TokenRateIndex;
  const list = cards as readonly TokenRateCard[];
  let index = tokenIndexCache.get(list);
  if (!index) {
    index = buildTokenRateIndex(list);
    tokenIndexCache.set(list, index);
  }
  return index;
}

function identityOf(c: TokenRateCard): string {
  return `${c.model_slug.toLowerCase()}\u0000${(c.service_tier ?? STANDARD_SERVICE_TIER).toLowerCase()}`;
}

/**
 * An organization's cards replace every standard card with the same slug and service tier
 * (whatever their effective_from), so an organization that prices a model in a tier owns that
 * model's whole price history in that tier.
 */
export function mergeRateCards(standard: readonly TokenRateCard[], organization: readonly TokenRateCard[]): TokenRateCard[] {
  const replaced = new Set(organization.map(identityOf));
  return [
    ...standard.filter((c) => !replaced.has(identityOf(c))).map((c): TokenRateCard => ({ ...c, source: 'standard' })),
    ...organization.map((c): TokenRateCard => ({ ...c, source: 'organization' })),
  ];
}

/** An organization's stored card (the control plane's camelCase record), structurally typed. */
export interface TokenRateRecord {
  id: string;
  modelSlug: string;
  serviceTier: string;
  inputCostPerMillion: string;
  outputCostPerMillion: string;
  cacheCreationCostPerMillion: string | null;
  cacheCreation1hCostPerMillion: string | null;
  cacheReadCostPerMillion: string | null;
  reasoningCostPerMillion: string | null;
  tiers: ContextTier[];
  timeWindows?: TimeWindow[];
  effectiveFrom: Date;
}

export function tokenRateCardFromRecord(record: TokenRateRecord): TokenRateCard {
  return {
    id: record.id,
    model_slug: record.modelSlug,
    service_tier: record.serviceTier,
    input_cost_per_million: record.inputCostPerMillion,
    output_cost_per_million: record.outputCostPerMillion,
    cache_creation_cost_per_million: record.cacheCreationCostPerMillion,
    cache_creation_1h_cost_per_million: record.cacheCreation1hCostPerMillion,
    cache_read_cost_per_million: record.cacheReadCostPerMillion,
    reasoning_cost_per_million: record.reasoningCostPerMillion,
    tiers: record.tiers,
    time_of_day_windows: record.timeWindows ?? [],
    effective_from: record.effectiveFrom,
    source: 'organization',
  };
}

/** Rates in canonical decimal form: "2.50" → "2.5"; never exponent notation. */
function rateString(rate: Big): string {
  return rate.toFixed();
}

function nullableRateString(rate: Big | null): string | null {
  return rate && rateString(rate);
}

/** The spec's rate fields of one rate set, plus the additions that are present only when set. */
function rateView(
  r: TokenRates,
  tiers: readonly IndexedContextTier[],
  windows: readonly IndexedTimeWindow[] = [],
): Omit<RateEstimationServiceTier, 'service_tier'> {
  return {
    input_cost_per_million: rateString(r.input),
    cache_creation_cost_per_million: nullableRateString(r.cacheCreation),
    cache_read_cost_per_million: nullableRateString(r.cacheRead),
    output_cost_per_million: rateString(r.output),
    reasoning_cost_per_million: nullableRateString(r.reasoning),
    ...(r.cacheCreation1h ? { cache_creation_1h_cost_per_million: rateString(r.cacheCreation1h) } : {}),
    ...(tiers.length > 0 ? { tiers: tiers.map(tierView) } : {}),
    ...(windows.length > 0 ? { time_of_day_windows: windows.map(windowView) } : {}),
  };
}

function windowView(w: IndexedTimeWindow): TimeWindow {
  return {
    name: w.name,
    ...(w.window.days ? { days: [...w.window.days] } : {}),
    start_utc: w.window.start_utc,
    end_utc: w.window.end_utc,
    input_cost_per_million: rateString(w.input),
    output_cost_per_million: rateString(w.output),
    cache_creation_cost_per_million: nullableRateString(w.cacheCreation),
    cache_creation_1h_cost_per_million: nullableRateString(w.cacheCreation1h),
    cache_read_cost_per_million: nullableRateString(w.cacheRead),
    reasoning_cost_per_million: nullableRateString(w.reasoning),
  };
}

function tierView(t: IndexedContextTier): ContextTier {
  return {
    above_prompt_tokens: t.abovePromptTokens,
    input_cost_per_million: rateString(t.input),
    output_cost_per_million: rateString(t.output),
    cache_creation_cost_per_million: nullableRateString(t.cacheCreation),
    cache_creation_1h_cost_per_million: nullableRateString(t.cacheCreation1h),
    cache_read_cost_per_million: nullableRateString(t.cacheRead),
    reasoning_cost_per_million: nullableRateString(t.reasoning),
  };
}

/**
 * The spec's rate estimation table at `at`: one item per slug with a standard card in effect
 * then (slugs whose first card starts later are left out), sorted by model_slug in code-point
 * order. Context tiers, one-hour cache writes and other service tiers are optional additions.
 */
export function rateEstimationTable(cards: readonly TokenRateCard[] | TokenRateIndex, at: Date): RateEstimationTable {
  const index = asTokenIndex(cards);
  const atMs = at.getTime();
  const items: RateEstimationItem[] = [];
  for (const [slug, byTier] of index.bySlug) {
    const card = inEffect(byTier.get(STANDARD_SERVICE_TIER), atMs);
    if (!card) continue;
    const others: RateEstimationServiceTier[] = [];
    for (const [tier, group] of byTier) {
      const other = tier === STANDARD_SERVICE_TIER ? null : inEffect(group, atMs);
      if (other) others.push({ service_tier: tier, ...rateView(other, other.tiers, other.windows) });
    }
    others.sort((a, b) => compareCodePoints(a.service_tier, b.service_tier));
    items.push({ model_slug: slug, ...rateView(card, card.tiers, card.windows), ...(others.length > 0 ? { service_tiers: others } : {}) });
  }
  items.sort((a, b) => compareCodePoints(a.model_slug, b.model_slug));
  return { items };
}

// ---------------------------------------------------------------------------------------------
// Per-unit rates

export interface IndexedUnitRate {
  readonly rate: UnitRate;
  readonly fromMs: number;
  readonly costPerUnit: Big;
}

/** Rates keyed by (model | provider, lowercased metric, unit as sent), each group by date. */
export interface UnitRateIndex {
  readonly kind: 'unit-rate-index';
  readonly byKey: ReadonlyMap<string, readonly IndexedUnitRate[]>;
}

export interface UnitRateQuery {
  model: string | null;
  provider: string | null;
  metric: string | null;
  unit: string | null;
}

// Model and provider names compare case-insensitively, like token-card slugs; the metric is
// stored lowercase (spec); the unit is compared exactly as sent because units are never converted
// and "MB" is not "mb".
function unitKey(kind: 'model' | 'provider', name: string, metric: string, unit: string): string {
  return `${kind}\u0000${name.toLowerCase()}\u0000${metric.toLowerCase()}\u0000${unit}`;
}

export function buildUnitRateIndex(rates: readonly UnitRate[]): UnitRateIndex {
  const byKey = new Map<string, IndexedUnitRate[]>();
  for (const rate of rates) {
    const name = rate.model ?? rate.provider;
    if (name === null || name === '') throw new Error(`unit rate for ${rate.metric} names neither a model nor a provider`);
    const fromMs = rate.effective_from.getTime();
    if (Number.isNaN(fromMs)) throw new Error(`unit rate for ${name}/${rate.metric}: effective_from is not a valid date`);
    const key = unitKey(rate.model !== null && rate.model !== '' ? 'model' : 'provider', name, rate.metric, rate.unit);
    const indexed: IndexedUnitRate = { rate, fromMs, costPerUnit: parseRate(rate.cost_per_unit, name, 'cost_per_unit') };
    const group = byKey.get(key);
    if (group) group.push(indexed);
    else byKey.set(key, [indexed]);
  }
  for (const group of byKey.values()) group.sort((a, b) => a.fromMs - b.fromMs);
  return { kind: 'unit-rate-index', byKey };
}

/**
 * The rate for a metric event at `at`: the model's own rate when one is in effect, else the
 * provider's. Unlike token slugs, falling back here is intended: a provider rate is the declared
 * default for every model of that provider with no rate of its own at that time.
 */
export function lookupUnitRate(index: UnitRateIndex, query: UnitRateQuery, at: Date): IndexedUnitRate | null {
  const { model, provider, metric, unit } = query;
  if (!metric || unit === null) return null;
  const atMs = at.getTime();
  if (model) {
    const group = index.byKey.get(unitKey('model', model, metric, unit));
    const rate = group && inEffect(group, atMs);
    if (rate) return rate;
  }
  if (provider) {
    const group = index.byKey.get(unitKey('provider', provider, metric, unit));
    const rate = group && inEffect(group, atMs);
    if (rate) return rate;
  }
  return null;
}

/** An organization's stored per-unit rate (the control plane's camelCase record), structurally typed. */
export interface UnitRateRecord {
  model: string | null;
  provider: string | null;
  metric: string;
  unit: string;
  costPerUnit: string;
  effectiveFrom: Date;
}

export function unitRateFromRecord(record: UnitRateRecord): UnitRate {
  return {
    model: record.model,
    provider: record.provider,
    metric: record.metric,
    unit: record.unit,
    cost_per_unit: record.costPerUnit,
    effective_from: record.effectiveFrom,
  };
}
