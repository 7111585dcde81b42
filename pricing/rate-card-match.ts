// Rate-card matching: the one copy of the rule that ingest (flagging), the processor (pricing) and
// the api (rate estimation table) share. Pure. A model matches the longest slug that prefixes it
// (lowercased); the card used is the latest whose effective_from is at or before the given time,
// so a price is a function of the event and the cards, whatever order events are processed in.
import { Big } from '../core/money.js';
import type {
  RateEstimationItem,
  RateEstimationTable,
  TokenRateCard,
  UnitRate,
} from './pricing.types.js';

export type {
  
  
  RateEstimationTable,
  TokenRateCard,
  UnitRate,
} from './pricing.types.js';
import { compareCodePoints } from '../core/compare.js';
export { loadStandardRateCards } from './standard-rate-cards.js';

// ---------------------------------------------------------------------------------------------
// Token rate cards

/** A card with its rates parsed once, so pricing an event does no string parsing. */
export interface IndexedTokenCard {
  readonly card: TokenRateCard;
  /** The lowercased model_slug. */
  readonly slug: string;
  readonly fromMs: number;
  readonly input: Big;
  readonly output: Big;
  readonly cacheCreation: Big | null;
  readonly cacheRead: Big | null;
  readonly reasoning: Big | null;
}

/**
 * Cards grouped by slug (each group sorted by effective_from) plus the distinct slug lengths,
 * longest first: a lookup tries one Map probe per length instead of scanning every card.
 */
export interface TokenRateIndex {
  readonly kind: 'token-rate-index';
  readonly bySlug: ReadonlyMap<string, readonly IndexedTokenCard[]>;
  readonly slugLengths: readonly number[];
}

function parseRate(value: string, slug: string, field: string): Big {
  try {
    return new Big(value);
  } catch {
    throw new Error(`rate card ${slug}: ${field} is not a decimal (${JSON.stringify(value)})`);
  }
}

function parseNullableRate(value: string | null, slug: string, field: string): Big | null {
  return value === null ? null : parseRate(value, slug, field);
}

export function buildTokenRateIndex(cards: readonly TokenRateCard[]): TokenRateIndex {
  const bySlug = new Map<string, IndexedTokenCard[]>();
  for (const card of cards) {
    const slug = card.model_slug.toLowerCase();
    if (slug === '') throw new Error('rate card with an empty model_slug');
    const fromMs = card.effective_from.getTime();
    if (Number.isNaN(fromMs)) throw new Error(`rate card ${slug}: effective_from is not a valid date`);
    const indexed: IndexedTokenCard = {
      card,
      slug,
      fromMs,
      input: parseRate(card.input_cost_per_million, slug, 'input_cost_per_million'),
      output: parseRate(card.output_cost_per_million, slug, 'output_cost_per_million'),
      cacheCreation: parseNullableRate(card.cache_creation_cost_per_million, slug, 'cache_creation_cost_per_million'),
      cacheRead: parseNullableRate(card.cache_read_cost_per_million, slug, 'cache_read_cost_per_million'),
      reasoning: parseNullableRate(card.reasoning_cost_per_million, slug, 'reasoning_cost_per_million'),
    };
    const group = bySlug.get(slug);
    if (group) group.push(indexed);
    else bySlug.set(slug, [indexed]);
  }
  // Stable sort: of two cards with the same slug and effective_from, the later one in the list
  // wins (mergeRateCards puts organization cards last).
  for (const group of bySlug.values()) group.sort((a, b) => a.fromMs - b.fromMs);
  const slugLengths = [...new Set([...bySlug.keys()].map((s) => s.length))].sort((a, b) => b - a);
  return { kind: 'token-rate-index', bySlug, slugLengths };
}

/** The card of a slug group in effect at `atMs`: the latest with effective_from <= atMs. */
function inEffect<T extends { fromMs: number }>(group: readonly T[], atMs: number): T | null {
  for (let i = group.length - 1; i >= 0; i--) {
    if (group[i]!.fromMs <= atMs) return group[i]!;
  }
  return null;
}

/**
 * The card that prices `model` at `at`, or null.
 *
 * No fallback to a shorter slug: when the longest matching slug has no card in effect at `at`
 * (its first card starts later), the answer is null rather than a shorter slug's card. A longer
 * slug names a different model (gpt-4o-mini is not gpt-4o, at a sixteenth of the price); pricing
 * it at the shorter slug's rate would silently misstate cost, while null marks the event
 * pending_rate_card, visible and re-priced once a card covering that date is added.
 */
export function lookupTokenCard(index: TokenRateIndex, model: string, at: Date): IndexedTokenCard | null {
  const name = model.toLowerCase();
  const atMs = at.getTime();
  for (const length of index.slugLengths) {
    if (length > name.length) continue;
    const group = index.bySlug.get(length === name.length ? name : name.slice(0, length));
    if (group) return inEffect(group, atMs);
  }
  return null;
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

/**
 * An organization's cards replace every standard card with the same slug (whatever their
 * effective_from), so an organization that prices a model owns that model's whole price history.
 */
export function mergeRateCards(
  standard: readonly TokenRateCard[],
  organization: readonly TokenRateCard[],
): TokenRateCard[] {
  const replaced = new Set(organization.map((c) => c.model_slug.toLowerCase()));
  return [
    ...standard
      .filter((c) => !replaced.has(c.model_slug.toLowerCase()))
      .map((c): TokenRateCard => ({ ...c, source: 'standard' })),
    ...organization.map((c): TokenRateCard => ({ ...c, source: 'organization' })),
  ];
}

/** An organization's stored card (the control plane's camelCase record), structurally typed. */
export interface TokenRateRecord {
  modelSlug: string;
  inputCostPerMillion: string;
  outputCostPerMillion: string;
  cacheCreationCostPerMillion: string | null;
  cacheReadCostPerMillion: string | null;
  reasoningCostPerMillion: string | null;
  effectiveFrom: Date;
}

export function tokenRateCardFromRecord(record: TokenRateRecord): TokenRateCard {
  return {
    model_slug: record.modelSlug,
    input_cost_per_million: record.inputCostPerMillion,
    output_cost_per_million: record.outputCostPerMillion,
    cache_creation_cost_per_million: record.cacheCreationCostPerMillion,
    cache_read_cost_per_million: record.cacheReadCostPerMillion,
    reasoning_cost_per_million: record.reasoningCostPerMillion,
    effective_from: record.effectiveFrom,
    source: 'organization',
  };
}

/** Rates in canonical decimal form: "2.50" → "2.5"; never exponent notation. */
function rateString(rate: Big): string {
  return rate.toFixed();
}

/**
 * The spec's rate estimation table at `at`: one item per slug (the card in effect then; slugs
 * whose first card starts later are left out), sorted by model_slug in code-point order.
 */
export function rateEstimationTable(
  cards: readonly TokenRateCard[] | TokenRateIndex,
  at: Date,
): RateEstimationTable {
  const index = asTokenIndex(cards);
  const atMs = at.getTime();
  const items: RateEstimationItem[] = [];
  for (const group of index.bySlug.values()) {
    const card = inEffect(group, atMs);
    if (!card) continue;
    items.push({
      model_slug: card.slug,
      input_cost_per_million: rateString(card.input),
      cache_creation_cost_per_million: card.cacheCreation && rateString(card.cacheCreation),
      cache_read_cost_per_million: card.cacheRead && rateString(card.cacheRead),
      output_cost_per_million: rateString(card.output),
      reasoning_cost_per_million: card.reasoning && rateString(card.reasoning),
    });
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

