// The scenario kinds beside substitutions, checked, and the rates they price at: price changes
// (a provider's or a model's token rates × (1 + percent/100), per class or all), a cache hit rate
// (a share of uncached input moved to cache reads) and hypothetical cards (in place of every card
// of their slug). Rates stay exact decimals and go through the processor's own card index and
// priceEvent; nothing here prices or does I/O.
import { ValidationError } from '../../core/errors.js';
import { Big } from '../../core/money.js';
import { parseNullableRate, parseRate, requireText } from '../../core/http/input.js';
import { textFault } from '../../core/text.js';
import type { PricingRates } from '../../pricing/price-event.js';
import { buildTokenRateIndex, type TokenRateCard } from '../../pricing/rate-card-match.js';
import type { WhatIfCacheHitRate, WhatIfCard, WhatIfPriceChange, WhatIfTokenClass } from './what-if.types.js';

const MAX_CHANGES = 20;
const MAX_CARDS = 20;

type RateField =
  | 'input_cost_per_million'
  | 'output_cost_per_million'
  | 'cache_creation_cost_per_million'
  | 'cache_creation_1h_cost_per_million'
  | 'cache_read_cost_per_million'
  | 'reasoning_cost_per_million';

/** The card fields a token class names; cache_creation covers both write durations. */
const CLASS_FIELDS: Readonly<Record<WhatIfTokenClass, readonly RateField[]>> = {
  input: ['input_cost_per_million'],
  output: ['output_cost_per_million'],
  cache_creation: ['cache_creation_cost_per_million', 'cache_creation_1h_cost_per_million'],
  cache_read: ['cache_read_cost_per_million'],
  reasoning: ['reasoning_cost_per_million'],
};
const ALL_FIELDS = Object.values(CLASS_FIELDS).flat();

export interface PriceChange {
  provider: string | null;
  model: string | null;
  fields: readonly RateField[];
  /** 1 + percent/100, exact. */
  factor: Big;
}

export interface CacheHitRate {
  /** percent/100 of each event's uncached input tokens. */
  share: Big;
  model: string | null;
}

function optionalName(raw: unknown, field: string): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string') throw new ValidationError(field, 'must be a string');
  const name = requireText(field, raw, 256);
  const fault = textFault(name);
  if (fault !== null) throw new ValidationError(field, fault);
  return raw;
}

function percentIn(raw: unknown, field: string, min: number, max: number): Big {
  if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < min || raw > max) {
    throw new ValidationError(field, `must be a number from ${min} to ${max}`);
  }
  // The shortest decimal text of the number (20.5 → "20.5"), never binary arithmetic.
  return new Big(String(raw));
}

/** Up to 20 changes, each naming a provider, a model or both (neither = every card), percent in [-100, 1000]. */
export function parsePriceChanges(raw: readonly WhatIfPriceChange[] | undefined): PriceChange[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new ValidationError('price_changes', 'must be a list');
  if (raw.length > MAX_CHANGES) throw new ValidationError('price_changes', `must list at most ${MAX_CHANGES} changes`);
  return raw.map((c, i) => {
    const at = `price_changes[${i}]`;
    if (typeof c !== 'object' || c === null) throw new ValidationError(at, 'must be an object');
    const tokenClass = c.token_class ?? null;
    if (tokenClass !== null && !Object.hasOwn(CLASS_FIELDS, tokenClass)) {
      throw new ValidationError(`${at}.token_class`, `must be one of ${Object.keys(CLASS_FIELDS).join(', ')}`);
    }
    return {
      provider: optionalName(c.provider, `${at}.provider`),
      model: optionalName(c.model, `${at}.model`),
      fields: tokenClass === null ? ALL_FIELDS : CLASS_FIELDS[tokenClass as WhatIfTokenClass],
      factor: percentIn(c.percent, `${at}.percent`, -100, 1000).div(100).plus(1),
    };
  });
}

export function parseCacheHitRate(raw: WhatIfCacheHitRate | undefined): CacheHitRate | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'object') throw new ValidationError('cache_hit_rate', 'must be an object');
  return {
    share: percentIn(raw.percent, 'cache_hit_rate.percent', 0, 100).div(100),
    model: optionalName(raw.model, 'cache_hit_rate.model'),
  };
}

/** Hypothetical standard-tier cards in effect since the epoch, each slug once (lowercased as the index does). */
export function parseCards(raw: readonly WhatIfCard[] | undefined): TokenRateCard[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new ValidationError('cards', 'must be a list');
  if (raw.length > MAX_CARDS) throw new ValidationError('cards', `must list at most ${MAX_CARDS} cards`);
  const seen = new Set<string>();
  return raw.map((c, i) => {
    const at = `cards[${i}]`;
    if (typeof c !== 'object' || c === null) throw new ValidationError(at, 'must be an object');
    const slug = optionalName(c.model_slug, `${at}.model_slug`);
    if (slug === null) throw new ValidationError(`${at}.model_slug`, 'must be a non-empty model slug');
    const lower = slug.toLowerCase();
    if (seen.has(lower)) throw new ValidationError(`${at}.model_slug`, `gives "${lower}" a second card`);
    seen.add(lower);
    return {
      id: `what-if:${lower}`,
      model_slug: lower,
      input_cost_per_million: parseRate(`${at}.input_cost_per_million`, c.input_cost_per_million),
      output_cost_per_million: parseRate(`${at}.output_cost_per_million`, c.output_cost_per_million),
      cache_creation_cost_per_million: parseNullableRate(`${at}.cache_creation_cost_per_million`, c.cache_creation_cost_per_million),
      cache_creation_1h_cost_per_million: parseNullableRate(
        `${at}.cache_creation_1h_cost_per_million`,
        c.cache_creation_1h_cost_per_million,
      ),
      cache_read_cost_per_million: parseNullableRate(`${at}.cache_read_cost_per_million`, c.cache_read_cost_per_million),
      reasoning_cost_per_million: parseNullableRate(`${at}.reasoning_cost_per_million`, c.reasoning_cost_per_million),
      effective_from: new Date(0),
    };
  });
}

function scaled<T extends Partial<Record<RateField, string | null>>>(rates: T, change: PriceChange): T {
  const out = { ...rates };
  for (const f of change.fields) {
    const v = rates[f];
    if (v !== null && v !== undefined) (out as Record<RateField, string | null>)[f] = new Big(v).times(change.factor).toFixed();
  }
  return out;
}

/** A card with every change applied, base rates, context tiers and time windows alike. */
function scaledCard(card: TokenRateCard, changes: readonly PriceChange[]): TokenRateCard {
  return changes.reduce<TokenRateCard>(
    (c, change) => ({
      ...scaled(c, change),
      ...(c.tiers ? { tiers: c.tiers.map((t) => scaled(t, change)) } : {}),
      ...(c.time_of_day_windows ? { time_of_day_windows: c.time_of_day_windows.map((w) => scaled(w, change)) } : {}),
    }),
    card,
  );
}

/** The rates the scenario prices one event at, chosen by its provider and (substituted) model. */
export interface ScenarioRates {
  ratesFor(provider: string | null, model: string | null): PricingRates;
  /** Whether a price change applies to events of this provider and model. */
  changes(provider: string | null, model: string | null): boolean;
  /** The slugs of the hypothetical cards. */
  readonly hypothetical: ReadonlySet<string>;
}

/**
 * The organization's merged cards with each hypothetical card in place of its slug's cards, and,
 * per set of applicable price changes, the same cards scaled (each index built once).
 */
export function scenarioRates(
  cards: readonly TokenRateCard[],
  base: PricingRates,
  changes: readonly PriceChange[],
  hypothetical: readonly TokenRateCard[],
): ScenarioRates {
  const slugs = new Set(hypothetical.map((c) => c.model_slug));
  const merged = [...cards.filter((c) => !slugs.has(c.model_slug.toLowerCase())), ...hypothetical];
  // Without hypothetical cards, events no change matches price at the organization's own index.
  const indexes = new Map<string, PricingRates>(slugs.size === 0 ? [['', base]] : []);
  const applicable = (provider: string | null, model: string | null) =>
    changes.flatMap((c, i) => ((c.provider === null || c.provider === provider) && (c.model === null || c.model === model) ? [i] : []));
  return {
    hypothetical: slugs,
    changes: (provider, model) => applicable(provider, model).length > 0,
    ratesFor(provider, model) {
      const which = applicable(provider, model);
      const key = which.join(',');
      let rates = indexes.get(key);
      if (!rates) {
        const picked = which.map((i) => changes[i]!);
        rates = { tokenCards: buildTokenRateIndex(merged.map((c) => scaledCard(c, picked))), unitRates: base.unitRates };
        indexes.set(key, rates);
      }
      return rates;
    },
  };
}
