// Prices one usage event. Pure: the result depends only on the event and the rate cards in effect
// at the event's timestamp, so replays, re-pricing and any processing order give the same cost.
//
// Rounding: each token-class cost (and the unit cost) is rounded once, half-up, to 12 fractional
// digits (the lake's DECIMAL(38,12)), and total_cost is the exact sum of those rounded parts. So
// for every priced event the stored columns add up to total_cost exactly; only cost_override
// makes total_cost exceed their sum (the difference is overridden cost).
import { Big, MONEY_SCALE, formatMoney, toBig } from '../core/money.js';
import {
  lookupTokenCard,
  lookupUnitRate,
  type IndexedTokenCard,
  type IndexedUnitRate,
  type TokenRateIndex,
  type UnitRateIndex,
} from './rate-card-match.js';
import type { UsageEvent } from '../schemas/usage-event.js';
import { UNPRICED_COSTS, type EventCosts } from '../core/lake/events-schema.js';

type PricingStatus = 'completed' | 'pending_rate_card';

export interface PricedCost extends EventCosts {
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
  | 'cache_read_input_tokens'
  | 'reasoning_tokens';

/** What rate matching needs to know about an event; ingest can call hasRateFor with this. */
export type RateQuery = Pick<UsageEvent, 'timestamp' | 'model' | 'provider' | 'metric' | 'unit'> &
  Partial<Pick<UsageEvent, TokenField>>;

/** What pricing needs to know about an event (a UsageEvent is one). */
export type PriceableEvent = RateQuery & Pick<UsageEvent, 'quantity' | 'cost_override'>;

type CostField = 'input_cost' | 'output_cost' | 'cache_creation_cost' | 'cache_read_cost' | 'reasoning_cost';

interface TokenClass {
  tokens: TokenField;
  cost: CostField;
  rate: (card: IndexedTokenCard) => Big | null;
  label: string;
}

// Token classes as sent are disjoint; each is priced at its own rate per million.
const TOKEN_CLASSES: readonly TokenClass[] = [
  { tokens: 'input_tokens', cost: 'input_cost', rate: (c) => c.input, label: 'input' },
  { tokens: 'output_tokens', cost: 'output_cost', rate: (c) => c.output, label: 'output' },
  { tokens: 'cache_creation_input_tokens', cost: 'cache_creation_cost', rate: (c) => c.cacheCreation, label: 'cache creation' },
  { tokens: 'cache_read_input_tokens', cost: 'cache_read_cost', rate: (c) => c.cacheRead, label: 'cache read' },
  { tokens: 'reasoning_tokens', cost: 'reasoning_cost', rate: (c) => c.reasoning, label: 'reasoning' },
];

const PER_TOKEN = new Big('0.000001'); // rates are per million tokens

type Resolution =
  | { kind: 'token'; card: IndexedTokenCard }
  | { kind: 'unit'; rate: IndexedUnitRate }
  | { kind: 'missing'; reason: string; card: IndexedTokenCard | null };

function isMetricEvent(event: RateQuery): boolean {
  return event.metric !== null && event.metric !== '';
}

function tokensOf(event: RateQuery, field: TokenField): number | null {
  return event[field] ?? null;
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
  const card = lookupTokenCard(rates.tokenCards, event.model, at);
  if (!card) {
    return { kind: 'missing', card: null, reason: `no rate card for model "${event.model}" at ${at.toISOString()}` };
  }
  for (const cls of TOKEN_CLASSES) {
    const tokens = tokensOf(event, cls.tokens);
    if (tokens !== null && tokens > 0 && cls.rate(card) === null) {
      return { kind: 'missing', card, reason: `rate card "${card.slug}" has no ${cls.label} rate` };
    }
  }
  return { kind: 'token', card };
}

/** Why the event cannot be priced from rates (ignoring cost_override), or null when it can. */
export function missingRateReason(event: RateQuery, rates: PricingRates): string | null {
  const resolution = resolveRate(event, rates);
  return resolution.kind === 'missing' ? resolution.reason : null;
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

/** "0" for every class the event reports, null for the rest. */
function zeroClassCosts(event: RateQuery): Pick<PricedCost, CostField> {
  const costs = {} as Pick<PricedCost, CostField>;
  for (const cls of TOKEN_CLASSES) costs[cls.cost] = tokensOf(event, cls.tokens) === null ? null : '0';
  return costs;
}

export function priceEvent(event: PriceableEvent, rates: PricingRates): PricedCost {
  const resolution = resolveRate(event, rates);
  const slug = resolution.kind === 'token' ? resolution.card.slug : resolution.kind === 'missing' ? resolution.card?.slug ?? null : null;

  if (event.cost_override !== null && event.cost_override !== undefined) {
    // The override is the event's total; class columns stay zero so nothing is counted twice.
    return {
      status: 'completed',
      ...zeroClassCosts(event),
      unit_cost: isMetricEvent(event) ? '0' : null,
      total_cost: formatMoney(event.cost_override),
      rate_card_slug: slug,
      pending_reason: null,
    };
  }

  switch (resolution.kind) {
    case 'missing':
      return {
        status: 'pending_rate_card',
        ...UNPRICED_COSTS,
        rate_card_slug: slug,
        pending_reason: resolution.reason,
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
      };
    }
    case 'token':
      return exactTokenCost(event, resolution.card) ?? tokenCost(event, resolution.card);
  }
}

/** Token pricing through big.js: any rate, any token count. */
function tokenCost(event: PriceableEvent, card: IndexedTokenCard): PricedCost {
  const costs = {} as Pick<PricedCost, CostField>;
  let total = new Big(0);
  for (const cls of TOKEN_CLASSES) {
    const tokens = tokensOf(event, cls.tokens);
    if (tokens === null) {
      costs[cls.cost] = null;
      continue;
    }
    const rate = cls.rate(card);
    // rate is null only with zero tokens here (resolveRate rejected tokens > 0).
    const cost = rate === null ? new Big(0) : roundCost(toBig(tokens).times(rate).times(PER_TOKEN));
    costs[cls.cost] = formatMoney(cost);
    total = total.plus(cost);
  }
  return {
    status: 'completed',
    ...costs,
    unit_cost: null,
    total_cost: formatMoney(total),
    rate_card_slug: card.slug,
    pending_reason: null,
  };
}

// ---------------------------------------------------------------------------------------------
// The same token pricing in integers, for the common case. A rate per million with at most 6
// fractional digits is a whole number R of 10^-12 USD per token, so a class costs tokens × R
// units exactly — no rounding — and the total is their sum. While those products and the sum stay
// below 2^53 they are exact in a double, and the strings are the ones big.js would give;
// otherwise (finer rates, huge counts) pricing takes tokenCost.

const UNITS_PER_USD = 1e12;
const NOT_EXACT = -1;

/** Per card, each class's rate as 10^-12 USD per token (NOT_EXACT when it has no such form). */
const unitRates = new WeakMap<IndexedTokenCard, readonly number[]>();

function unitRatesOf(card: IndexedTokenCard): readonly number[] {
  let rates = unitRates.get(card);
  if (!rates) {
    rates = TOKEN_CLASSES.map((cls) => {
      const rate = cls.rate(card);
      if (rate === null) return 0; // only ever priced with zero tokens
      const perToken = rate.times(1_000_000); // rate / 10^6 USD per token, in 10^-12 USD
      const whole = perToken.round(0, Big.roundDown);
      return whole.eq(perToken) && whole.gte(0) && whole.lte(Number.MAX_SAFE_INTEGER) ? Number(whole.toFixed(0)) : NOT_EXACT;
    });
    unitRates.set(card, rates);
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

/** One class's cost in units, also added to `sum.units`; null when integers cannot price it exactly. */
function classUnits(tokens: number | null, rate: number, sum: { units: number }): number | null {
  if (tokens === null || tokens === 0) return 0;
  if (rate === NOT_EXACT || !Number.isSafeInteger(tokens) || tokens < 0) return null;
  const units = tokens * rate;
  if (!(units <= Number.MAX_SAFE_INTEGER)) return null;
  sum.units += units;
  return units;
}

function exactTokenCost(event: PriceableEvent, card: IndexedTokenCard): PricedCost | null {
  const rates = unitRatesOf(card); // in TOKEN_CLASSES order
  // Fields read directly (not through tokensOf): this runs for nearly every event.
  const inputTokens = event.input_tokens ?? null;
  const outputTokens = event.output_tokens ?? null;
  const cacheCreationTokens = event.cache_creation_input_tokens ?? null;
  const cacheReadTokens = event.cache_read_input_tokens ?? null;
  const reasoningTokens = event.reasoning_tokens ?? null;
  const sum = { units: 0 };
  const input = classUnits(inputTokens, rates[0]!, sum);
  const output = classUnits(outputTokens, rates[1]!, sum);
  const cacheCreation = classUnits(cacheCreationTokens, rates[2]!, sum);
  const cacheRead = classUnits(cacheReadTokens, rates[3]!, sum);
  const reasoning = classUnits(reasoningTokens, rates[4]!, sum);
  if (input === null || output === null || cacheCreation === null || cacheRead === null || reasoning === null) return null;
  if (!(sum.units <= Number.MAX_SAFE_INTEGER)) return null;
  return {
    status: 'completed',
    input_cost: inputTokens === null ? null : formatUnits(input),
    output_cost: outputTokens === null ? null : formatUnits(output),
    cache_creation_cost: cacheCreationTokens === null ? null : formatUnits(cacheCreation),
    cache_read_cost: cacheReadTokens === null ? null : formatUnits(cacheRead),
    reasoning_cost: reasoningTokens === null ? null : formatUnits(reasoning),
    unit_cost: null,
    total_cost: formatUnits(sum.units),
    rate_card_slug: card.slug,
    pending_reason: null,
  };
}
