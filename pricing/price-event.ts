// Prices one usage event. Pure: the result depends only on the event and the rate cards in effect
// at the event's timestamp, so replays, re-pricing and any processing order give the same cost.
//
// Which rates: the card of the event's service tier (else the standard card, noted), and within
// it the highest context tier whose threshold the prompt (input + cache read + cache creation
// tokens) is above, else the card's base rates; every class of the request uses that one set. A
// card with time-of-day windows (it has no context tiers) is priced at the window the event's
// timestamp falls in (UTC, start inclusive, end exclusive), else at its own rates; the window's
// name is recorded with the card.
// One-hour cache writes are the part of cache_creation_input_tokens sent as
// cache_creation_1h_input_tokens, priced at their own rate; cache_creation_cost covers both.
//
// Rounding: each token-class cost (and the unit cost) is rounded once, half-up, to 12 fractional
// digits (the lake's DECIMAL(38,12)), and total_cost is the exact sum of those rounded parts. So
// for every priced event the stored columns add up to total_cost exactly; only cost_override
// makes total_cost exceed their sum (the difference is overridden cost).
import { Big, MONEY_SCALE, formatMoney, sumMoney, toBig } from '../core/money.js';
import {
  lookupUnitRate,
  matchTokenCard,
  type IndexedTokenCard,
  type IndexedUnitRate,
  type TokenRateIndex,
  type TokenRates,
  type UnitRateIndex,
  windowAt,
} from './rate-card-match.js';
import type { UsageEvent } from '../schemas/usage-event.js';
import { NO_PROVENANCE, UNPRICED_COSTS, type EventCosts, type PricingProvenance } from '../core/lake/events-schema.js';

type PricingStatus = 'completed' | 'pending_rate_card';

export interface PricedCost extends EventCosts, PricingProvenance {
  status: PricingStatus;
  /** The token card's slug that matched the model, when one did. */
  rate_card_slug: string | null;
  pending_reason: string | null;
}

export interface PricingRates {
  tokenCards: TokenRateIndex;
  unitRates: UnitRateIndex;
}

type TokenField =
  | 'input_tokens'
  | 'output_tokens'
  | 'cache_creation_input_tokens'
  | 'cache_creation_1h_input_tokens'
  | 'cache_read_input_tokens'
  | 'reasoning_tokens';

/** What rate matching needs to know about an event; ingest can call hasRateFor with this. */
export type RateQuery = Pick<UsageEvent, 'timestamp' | 'model' | 'provider' | 'metric' | 'unit'> &
  Partial<Pick<UsageEvent, TokenField | 'service_tier'>>;

/** What pricing needs to know about an event (a UsageEvent is one). */
export type PriceableEvent = RateQuery & Pick<UsageEvent, 'quantity' | 'cost_override'>;

interface TokenClass {
  rate: (r: TokenRates) => Big | null;
  label: string;
}

// The priced classes, in this order everywhere below. Classes as sent are disjoint except that
// one-hour writes are a part of cache creation: the five-minute class is the rest of it.
const TOKEN_CLASSES: readonly TokenClass[] = [
  { rate: (r) => r.input, label: 'input' },
  { rate: (r) => r.output, label: 'output' },
  { rate: (r) => r.cacheCreation, label: 'cache creation' },
  { rate: (r) => r.cacheCreation1h, label: 'one-hour cache creation' },
  { rate: (r) => r.cacheRead, label: 'cache read' },
  { rate: (r) => r.reasoning, label: 'reasoning' },
];
const INPUT = 0;
const OUTPUT = 1;
const CACHE_5M = 2;
const CACHE_1H = 3;
const CACHE_READ = 4;
const REASONING = 5;

type ClassTokens = readonly [number | null, number | null, number | null, number | null, number | null, number | null];

/** Tokens per priced class (TOKEN_CLASSES order); null where the event did not report the class. */
function classTokens(event: RateQuery): ClassTokens {
  const creation = event.cache_creation_input_tokens ?? null;
  const oneHour = event.cache_creation_1h_input_tokens ?? null;
  if (oneHour !== null && oneHour > (creation ?? 0)) {
    throw new Error('cache_creation_1h_input_tokens exceeds cache_creation_input_tokens');
  }
  return [
    event.input_tokens ?? null,
    event.output_tokens ?? null,
    creation === null ? null : creation - (oneHour ?? 0),
    oneHour,
    event.cache_read_input_tokens ?? null,
    event.reasoning_tokens ?? null,
  ];
}

/** The prompt size that selects a context tier: input + cache read + cache creation tokens. */
export function promptTokensOf(event: RateQuery): number {
  return (event.input_tokens ?? 0) + (event.cache_read_input_tokens ?? 0) + (event.cache_creation_input_tokens ?? 0);
}

interface ChosenRates {
  rates: TokenRates;
  /** The context tier's threshold, or null at the base rates. */
  above: number | null;
  /** The time-of-day window's name, or null outside every window. */
  window: string | null;
}

/** The rates of the window `at` falls in, else of the highest context tier the prompt is above, else the card's base rates. */
function ratesFor(card: IndexedTokenCard, promptTokens: number, at: Date): ChosenRates {
  const window = windowAt(card, at);
  if (window) return { rates: window, above: null, window: window.name };
  for (let i = card.tiers.length - 1; i >= 0; i--) {
    const tier = card.tiers[i]!;
    if (promptTokens > tier.abovePromptTokens) return { rates: tier, above: tier.abovePromptTokens, window: null };
  }
  return { rates: card, above: null, window: null };
}

const PER_TOKEN = new Big('0.000001'); // rates are per million tokens

interface TokenPricing {
  card: IndexedTokenCard;
  rates: TokenRates;
  tokens: ClassTokens;
  provenance: PricingProvenance;
}

type Resolution =
  | ({ kind: 'token' } & TokenPricing)
  | { kind: 'unit'; rate: IndexedUnitRate }
  | { kind: 'missing'; reason: string; card: IndexedTokenCard | null };

function isMetricEvent(event: RateQuery): boolean {
  return event.metric !== null && event.metric !== '';
}

/** The rate that prices the event, or why there is none. The single matching path for all callers. */
function resolveRate(event: RateQuery, rates: PricingRates): Resolution {
  const at = event.timestamp;
  if (isMetricEvent(event)) {
    const rate = lookupUnitRate(rates.unitRates, event, at);
    if (rate) return { kind: 'unit', rate };
    const subject = [event.model && `model "${event.model}"`, event.provider && `provider "${event.provider}"`]
      .filter(Boolean)
      .join(' or ');
    return {
      kind: 'missing',
      card: null,
      reason: `no unit rate for metric "${event.metric}" in unit "${event.unit ?? ''}"${subject ? ` for ${subject}` : ''} at ${at.toISOString()}`,
    };
  }
  if (!event.model) return { kind: 'missing', card: null, reason: 'event names no model' };
  const match = matchTokenCard(rates.tokenCards, event.model, at, event.service_tier ?? null);
  if (!match) {
    const tier = event.service_tier ? ` (service tier "${event.service_tier}")` : '';
    return { kind: 'missing', card: null, reason: `no rate card for model "${event.model}"${tier} at ${at.toISOString()}` };
  }
  const { card } = match;
  const tokens = classTokens(event);
  const chosen = ratesFor(card, promptTokensOf(event), at);
  for (let i = 0; i < TOKEN_CLASSES.length; i++) {
    const n = tokens[i];
    if (n !== null && n > 0 && TOKEN_CLASSES[i]!.rate(chosen.rates) === null) {
      const where =
        chosen.window !== null ? ` in time window "${chosen.window}"` : chosen.above === null ? '' : ` above ${chosen.above} prompt tokens`;
      return { kind: 'missing', card, reason: `rate card "${card.slug}" has no ${TOKEN_CLASSES[i]!.label} rate${where}` };
    }
  }
  return { kind: 'token', card, rates: chosen.rates, tokens, provenance: provenanceOf(card, chosen, match.fallbackReason) };
}

/** Per card, its provenance at each context tier or window (key: threshold or window name; null: base rates), built once and shared. */
const provenances = new WeakMap<IndexedTokenCard, Map<number | string | null, PricingProvenance>>();

function provenanceOf(card: IndexedTokenCard, chosen: ChosenRates, note: string | null): PricingProvenance {
  const build = (): PricingProvenance => ({
    rate_card_id: card.id,
    rate_card_effective_from: card.card.effective_from,
    rate_card_service_tier: card.serviceTier,
    context_tier_above_prompt_tokens: chosen.above,
    time_of_day_window: chosen.window,
    pricing_note: note,
  });
  if (note !== null) return build();
  let byKey = provenances.get(card);
  if (!byKey) provenances.set(card, (byKey = new Map()));
  const key = chosen.window ?? chosen.above;
  let p = byKey.get(key);
  if (!p) byKey.set(key, (p = build()));
  return p;
}

/** Why the event cannot be priced from rates (ignoring cost_override), or null when it can. */
export function missingRateReason(event: RateQuery, rates: PricingRates): string | null {
  const resolution = resolveRate(event, rates);
  return resolution.kind === 'missing' ? resolution.reason : null;
}

/** Why a priced event is priced otherwise than it asked (its service tier had no card), or null. */
export function pricingNoteFor(event: RateQuery, rates: PricingRates): string | null {
  const resolution = resolveRate(event, rates);
  return resolution.kind === 'token' ? resolution.provenance.pricing_note : null;
}

/**
 * Whether rates alone price the event: a token card for the model covering every class it reports,
 * or a unit rate for its (model | provider, metric, unit). Ingest flags "no rate card" when this is
 * false and the event carries no cost_override.
 */
export function hasRateFor(event: RateQuery, rates: PricingRates): boolean {
  return missingRateReason(event, rates) === null;
}

function roundCost(value: Big): Big {
  return value.round(MONEY_SCALE, Big.roundHalfUp);
}

type ClassCostField =
  | 'input_cost'
  | 'output_cost'
  | 'cache_creation_cost'
  | 'cache_creation_1h_cost'
  | 'cache_read_cost'
  | 'reasoning_cost';

/** "0" for every class the event reports, null for the rest. */
function zeroClassCosts(event: RateQuery): Pick<PricedCost, ClassCostField> {
  const zero = (n: number | null | undefined) => (n === null || n === undefined ? null : '0');
  return {
    input_cost: zero(event.input_tokens),
    output_cost: zero(event.output_tokens),
    cache_creation_cost: zero(event.cache_creation_input_tokens),
    cache_creation_1h_cost: zero(event.cache_creation_1h_input_tokens),
    cache_read_cost: zero(event.cache_read_input_tokens),
    reasoning_cost: zero(event.reasoning_tokens),
  };
}

export function priceEvent(event: PriceableEvent, rates: PricingRates): PricedCost {
  const resolution = resolveRate(event, rates);
  const slug = resolution.kind === 'token' ? resolution.card.slug : resolution.kind === 'missing' ? (resolution.card?.slug ?? null) : null;

  if (event.cost_override !== null && event.cost_override !== undefined) {
    // The override is the event's total; class columns stay zero so nothing is counted twice.
    return {
      status: 'completed',
      ...zeroClassCosts(event),
      unit_cost: isMetricEvent(event) ? '0' : null,
      total_cost: formatMoney(event.cost_override),
      rate_card_slug: slug,
      pending_reason: null,
      ...NO_PROVENANCE,
    };
  }

  switch (resolution.kind) {
    case 'missing':
      return {
        status: 'pending_rate_card',
        ...UNPRICED_COSTS,
        rate_card_slug: slug,
        pending_reason: resolution.reason,
        ...NO_PROVENANCE,
      };
    case 'unit': {
      // Metric events are priced per unit only; token counts they carry are informational.
      // A missing quantity counts as zero units (ingest requires it with a metric).
      const quantity = event.quantity === null ? new Big(0) : toBig(event.quantity);
      const unitCost = roundCost(quantity.times(resolution.rate.costPerUnit));
      return {
        status: 'completed',
        ...zeroClassCosts(event),
        unit_cost: formatMoney(unitCost),
        total_cost: formatMoney(unitCost),
        rate_card_slug: null,
        pending_reason: null,
        ...NO_PROVENANCE,
      };
    }
    case 'token':
      return exactTokenCost(resolution) ?? tokenCost(resolution);
  }
}

/** The priced result from per-class costs (TOKEN_CLASSES order, null = class not reported) and their total. */
function tokenResult(p: TokenPricing, costs: readonly (string | null)[], creationCost: string | null, total: string): PricedCost {
  return {
    status: 'completed',
    input_cost: costs[INPUT]!,
    output_cost: costs[OUTPUT]!,
    cache_creation_cost: creationCost,
    cache_creation_1h_cost: costs[CACHE_1H]!,
    cache_read_cost: costs[CACHE_READ]!,
    reasoning_cost: costs[REASONING]!,
    unit_cost: null,
    total_cost: total,
    rate_card_slug: p.card.slug,
    pending_reason: null,
    ...p.provenance,
  };
}

/** Token pricing through big.js: any rate, any token count. */
function tokenCost(p: TokenPricing): PricedCost {
  const parts = TOKEN_CLASSES.map((cls, i) => {
    const tokens = p.tokens[i]!;
    if (tokens === null) return null;
    const rate = cls.rate(p.rates);
    // rate is null only with zero tokens here (resolveRate rejected tokens > 0).
    return rate === null ? new Big(0) : roundCost(toBig(tokens).times(rate).times(PER_TOKEN));
  });
  const total = sumMoney(parts.filter((part) => part !== null));
  const creation = parts[CACHE_5M] === null ? null : parts[CACHE_5M]!.plus(parts[CACHE_1H] ?? 0);
  return tokenResult(
    p,
    parts.map((part) => part && formatMoney(part)),
    creation && formatMoney(creation),
    formatMoney(total),
  );
}

// ---------------------------------------------------------------------------------------------
// The same token pricing in integers, for the common case. A rate per million with at most 6
// fractional digits is a whole number R of 10^-12 USD per token, so a class costs tokens × R
// units exactly — no rounding — and the total is their sum. While those products and the sum stay
// below 2^53 they are exact in a double, and the strings are the ones big.js would give;
// otherwise (finer rates, huge counts) pricing takes tokenCost.

const UNITS_PER_USD = 1e12;
const NOT_EXACT = -1;

/** Per rate set (a card's base rates or a context tier), each class's rate as 10^-12 USD per token (NOT_EXACT when it has no such form). */
const unitRates = new WeakMap<TokenRates, readonly number[]>();

function unitRatesOf(set: TokenRates): readonly number[] {
  let rates = unitRates.get(set);
  if (!rates) {
    rates = TOKEN_CLASSES.map((cls) => {
      const rate = cls.rate(set);
      if (rate === null) return 0; // only ever priced with zero tokens
      const perToken = rate.times(1_000_000); // rate / 10^6 USD per token, in 10^-12 USD
      const whole = perToken.round(0, Big.roundDown);
      return whole.eq(perToken) && whole.gte(0) && whole.lte(Number.MAX_SAFE_INTEGER) ? Number(whole.toFixed(0)) : NOT_EXACT;
    });
    unitRates.set(set, rates);
  }
  return rates;
}

/** formatMoney of a whole number of 10^-12 USD (non-negative, below 2^53). */
function formatUnits(units: number): string {
  const whole = Math.floor(units / UNITS_PER_USD);
  let fraction = units - whole * UNITS_PER_USD;
  if (fraction === 0) return String(whole);
  let digits = 12;
  while (fraction % 10 === 0) {
    fraction /= 10;
    digits--;
  }
  return `${whole}.${String(fraction).padStart(digits, '0')}`;
}

/** One class's cost in units; null when integers cannot price it exactly. */
function classUnits(tokens: number | null, rate: number): number | null {
  if (tokens === null || tokens === 0) return 0;
  if (rate === NOT_EXACT || !Number.isSafeInteger(tokens) || tokens < 0) return null;
  const units = tokens * rate;
  return units <= Number.MAX_SAFE_INTEGER ? units : null;
}

// Straight-line on purpose: this runs for nearly every event (no arrays, one result literal).
function exactTokenCost(p: TokenPricing): PricedCost | null {
  const r = unitRatesOf(p.rates);
  const t = p.tokens;
  const input = classUnits(t[INPUT], r[INPUT]!);
  const output = classUnits(t[OUTPUT], r[OUTPUT]!);
  const write5m = classUnits(t[CACHE_5M], r[CACHE_5M]!);
  const write1h = classUnits(t[CACHE_1H], r[CACHE_1H]!);
  const read = classUnits(t[CACHE_READ], r[CACHE_READ]!);
  const reasoning = classUnits(t[REASONING], r[REASONING]!);
  if (input === null || output === null || write5m === null || write1h === null || read === null || reasoning === null) return null;
  const sum = input + output + write5m + write1h + read + reasoning;
  if (!(sum <= Number.MAX_SAFE_INTEGER)) return null;
  const prov = p.provenance;
  return {
    status: 'completed',
    input_cost: t[INPUT] === null ? null : formatUnits(input),
    output_cost: t[OUTPUT] === null ? null : formatUnits(output),
    cache_creation_cost: t[CACHE_5M] === null ? null : formatUnits(write5m + write1h),
    cache_creation_1h_cost: t[CACHE_1H] === null ? null : formatUnits(write1h),
    cache_read_cost: t[CACHE_READ] === null ? null : formatUnits(read),
    reasoning_cost: t[REASONING] === null ? null : formatUnits(reasoning),
    unit_cost: null,
    total_cost: formatUnits(sum),
    rate_card_slug: p.card.slug,
    pending_reason: null,
    rate_card_id: prov.rate_card_id,
    rate_card_effective_from: prov.rate_card_effective_from,
    rate_card_service_tier: prov.rate_card_service_tier,
    context_tier_above_prompt_tokens: prov.context_tier_above_prompt_tokens,
    time_of_day_window: prov.time_of_day_window,
    pricing_note: prov.pricing_note,
  };
}
