// What-if re-pricing rules over plain data: a scenario (substitutions, price changes, a cache hit
// rate, hypothetical cards), the rewrite of an event group under it (model renamed, token classes
// scaled and moved, rounded half-up to whole tokens), and the actual and simulated figures per end
// user. Pricing is priceEvent itself, the processor's function, over the cards in effect at each
// event's timestamp (as the scenario changes them); an event with cost_override keeps its override
// (priceEvent returns it), and events the scenario does not touch are never re-priced: their stored
// cost is carried over exactly. Nothing here does I/O.
import { AppError, ValidationError } from '../../core/errors.js';
import { Big, formatMoney, sumMoney, toBig } from '../../core/money.js';
import { priceEvent, type PriceableEvent, type PricingRates } from '../../pricing/price-event.js';
import { matchTokenCard, type TokenRateCard } from '../../pricing/rate-card-match.js';
import type { WhatIfRequest } from './what-if.types.js';
import {
  parseCacheHitRate,
  parseCards,
  parsePriceChanges,
  type CacheHitRate,
  type PriceChange,
  type ScenarioRates,
} from './what-if-scenario.js';
import { marginFigures } from '../../revenue/profitability.js';
import { compareCodePoints } from '../../core/compare.js';
import { textFault } from '../../core/text.js';
import type { WhatIfEndUser, WhatIfResult, WhatIfSubstitution } from './what-if.types.js';

const MAX_SUBSTITUTIONS = 20;
const MAX_TOKEN_RATIO = 1000;

export interface Substitution {
  fromModel: string;
  toModel: string;
  tokenRatio: Big;
  /** Where it sits in the request, for error fields. */
  index: number;
}

/** 422: a substitution's target model has no rate card that prices the events moved to it. */
class NoRateCardError extends AppError {
  constructor(field: string, reason: string) {
    super(422, 'NO_RATE_CARD', `${field}: ${reason}`, { field });
  }
}

function modelName(raw: unknown, field: string): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw new ValidationError(field, 'must be a non-empty model name');
  if (raw.length > 256) throw new ValidationError(field, 'must be at most 256 characters');
  const fault = textFault(raw);
  if (fault !== null) throw new ValidationError(field, fault);
  return raw;
}

function tokenRatio(raw: unknown, field: string): Big {
  if (raw === undefined || raw === null) return new Big(1);
  if (typeof raw !== 'number' || !Number.isFinite(raw) || raw <= 0 || raw > MAX_TOKEN_RATIO) {
    throw new ValidationError(field, `must be a number above 0 and at most ${MAX_TOKEN_RATIO}`);
  }
  return new Big(String(raw));
}

/** The request's substitutions, checked: at most 20, names non-empty, each from_model once, ratios in (0, 1000]. */
export function parseSubstitutions(raw: readonly WhatIfSubstitution[] | undefined): Substitution[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new ValidationError('substitutions', 'must be a list');
  if (raw.length > MAX_SUBSTITUTIONS) throw new ValidationError('substitutions', `must list at most ${MAX_SUBSTITUTIONS} substitutions`);
  const seen = new Set<string>();
  return raw.map((s, index) => {
    const at = `substitutions[${index}]`;
    if (typeof s !== 'object' || s === null) throw new ValidationError(at, 'must be an object');
    const fromModel = modelName(s.from_model, `${at}.from_model`);
    if (seen.has(fromModel)) throw new ValidationError(`${at}.from_model`, `substitutes "${fromModel}" a second time`);
    seen.add(fromModel);
    return {
      fromModel,
      toModel: modelName(s.to_model, `${at}.to_model`),
      tokenRatio: tokenRatio(s.token_ratio, `${at}.token_ratio`),
      index,
    };
  });
}

/** `tokens` × `ratio` rounded half-up to a whole token; null (class not reported) stays null. */
export function scaleTokens(tokens: number | null, ratio: Big): number | null {
  if (tokens === null) return null;
  return Number(toBig(tokens).times(ratio).round(0, Big.roundHalfUp).toFixed(0));
}

/**
 * Events the scenario may touch that price alike: same model, token classes, card inputs and
 * timestamp (cards and time-of-day windows depend on it), same end user; `count` of them whose
 * stored costs sum to `actual_cost`.
 */
export interface SubstitutedGroup extends PriceableEvent {
  end_user_id: string | null;
  count: number;
  actual_cost: string;
  /** The token classes are already the sums of the events' scaled tokens (a linear group: count 1). */
  tokens_scaled?: boolean;
}

export interface Scenario {
  substitutions: Substitution[];
  priceChanges: PriceChange[];
  cacheHitRate: CacheHitRate | null;
  /** Hypothetical cards, in place of their slugs' cards. */
  cards: TokenRateCard[];
}

/** Every kind checked field by field; at least one change of any kind (400 naming substitutions). */
export function parseScenario(body: Pick<WhatIfRequest, 'substitutions' | 'price_changes' | 'cache_hit_rate' | 'cards'>): Scenario {
  const scenario = {
    substitutions: parseSubstitutions(body.substitutions),
    priceChanges: parsePriceChanges(body.price_changes),
    cacheHitRate: parseCacheHitRate(body.cache_hit_rate),
    cards: parseCards(body.cards),
  };
  if (
    scenario.substitutions.length === 0 &&
    scenario.priceChanges.length === 0 &&
    scenario.cacheHitRate === null &&
    scenario.cards.length === 0
  ) {
    throw new ValidationError('substitutions', 'give at least one change: substitutions, price_changes, cache_hit_rate or cards');
  }
  return scenario;
}

/** Whether the scenario can change events other than the substituted models' (so every event is read). */
export function touchesAnyModel(scenario: Scenario): boolean {
  return scenario.priceChanges.length > 0 || scenario.cacheHitRate !== null || scenario.cards.length > 0;
}

/** The group's events with a substitution applied: the target model, every token class scaled. */
function substitutedEvent(group: SubstitutedGroup, sub: Substitution | undefined): PriceableEvent {
  const r = group.tokens_scaled ? new Big(1) : (sub?.tokenRatio ?? new Big(1));
  return {
    timestamp: group.timestamp,
    model: sub?.toModel ?? group.model,
    provider: group.provider,
    metric: group.metric,
    unit: group.unit,
    quantity: group.quantity,
    cost_override: group.cost_override,
    service_tier: group.service_tier ?? null,
    input_tokens: scaleTokens(group.input_tokens ?? null, r),
    output_tokens: scaleTokens(group.output_tokens ?? null, r),
    cache_creation_input_tokens: scaleTokens(group.cache_creation_input_tokens ?? null, r),
    cache_creation_1h_input_tokens: scaleTokens(group.cache_creation_1h_input_tokens ?? null, r),
    cache_read_input_tokens: scaleTokens(group.cache_read_input_tokens ?? null, r),
    reasoning_tokens: scaleTokens(group.reasoning_tokens ?? null, r),
  };
}

/** `share` of the uncached input moved to cache reads (rounded half-up), or null when the card has no cache-read rate. */
function withCacheHits(event: PriceableEvent, share: Big, rates: PricingRates): PriceableEvent | null {
  const input = event.input_tokens ?? null;
  if (input === null || event.model === null || event.model === undefined) return null;
  const match = matchTokenCard(rates.tokenCards, event.model, new Date(event.timestamp), event.service_tier ?? null);
  if (match === null || match.card.cacheRead === null) return null;
  const moved = scaleTokens(input, share)!;
  return { ...event, input_tokens: input - moved, cache_read_input_tokens: (event.cache_read_input_tokens ?? 0) + moved };
}

/** The group's events as the scenario has them and the rates they price at, or null when the scenario leaves them alone. */
function scenarioEvent(
  group: SubstitutedGroup,
  scenario: Scenario,
  sr: ScenarioRates,
): { event: PriceableEvent; rates: PricingRates } | null {
  const sub = scenario.substitutions.find((s) => s.fromModel === group.model);
  let event = substitutedEvent(group, sub);
  const rates = sr.ratesFor(group.provider ?? null, event.model ?? null);
  let touched = sub !== undefined;
  // Price changes, cache hits and hypothetical cards reprice token events only (metric events keep their unit rates).
  if (group.metric === null || group.metric === undefined) {
    touched ||= sr.changes(group.provider ?? null, event.model ?? null);
    const hits = scenario.cacheHitRate;
    if (hits !== null && (hits.model === null || hits.model === event.model)) {
      const moved = withCacheHits(event, hits.share, rates);
      if (moved !== null) [event, touched] = [moved, true];
    }
    if (!touched && sr.hypothetical.size > 0 && event.model) {
      const card = matchTokenCard(rates.tokenCards, event.model, new Date(event.timestamp), event.service_tier ?? null);
      touched = card !== null && sr.hypothetical.has(card.card.slug);
    }
  }
  return touched ? { event, rates } : null;
}

/** The field a scenario's unpriceable event is blamed on. */
function blamedField(group: SubstitutedGroup, scenario: Scenario): string {
  const sub = scenario.substitutions.find((s) => s.fromModel === group.model);
  if (sub) return `substitutions[${sub.index}].to_model`;
  if (scenario.cards.length > 0) return 'cards';
  return scenario.cacheHitRate !== null ? 'cache_hit_rate' : 'price_changes';
}

/** The simulated cost of all the group's events, or null when untouched; 422 naming the field when the scenario's cards cannot price them. */
export function simulatedCostOf(group: SubstitutedGroup, scenario: Scenario, sr: ScenarioRates): Big | null {
  const changed = scenarioEvent(group, scenario, sr);
  if (changed === null) return null;
  const priced = priceEvent(changed.event, changed.rates);
  if (priced.status !== 'completed') throw new NoRateCardError(blamedField(group, scenario), priced.pending_reason ?? 'not priced');
  return toBig(priced.total_cost).times(group.count);
}

/** 422 when a to_model has no standard-tier card in effect at the range's last instant (checked before reading the lake). */
export function assertCardsExist(subs: readonly Substitution[], sr: ScenarioRates, end: Date): void {
  const last = new Date(end.getTime() - 1);
  for (const s of subs) {
    if (!matchTokenCard(sr.ratesFor(null, s.toModel).tokenCards, s.toModel, last)) {
      throw new NoRateCardError(`substitutions[${s.index}].to_model`, `no rate card for model "${s.toModel}" at ${last.toISOString()}`);
    }
  }
}

/** Fractional digits of a decimal (0 for an integer). */
const decimals = (b: Big): number => Math.max(0, b.c.length - 1 - b.e);
/** Ratios the lake query scales tokens by exactly (DECIMAL(18,12)). */
const MAX_RATIO_DECIMALS = 12;
/** A rate per million with at most 6 decimals prices whole tokens to at most 12: priceEvent's rounding never cuts. */
const MAX_RATE_DECIMALS = 6;

/**
 * The substitutions whose moved events price linearly, so the lake may sum each end user's scaled
 * tokens and priceEvent price the sum once (exactly the sum of the events' prices): a scenario of
 * substitutions only, a ratio of at most 12 decimals, and every card whose slug begins the
 * to_model's name without context tiers or time windows, with rates of at most 6 decimals and no
 * card starting inside the range (one card prices the whole range). Others are priced event group
 * by event group. Measured: bench/results/what-if.md.
 */
export function linearSubstitutions(scenario: Scenario, rates: ScenarioRates, range: { start: Date; end: Date }): Substitution[] {
  if (touchesAnyModel(scenario)) return [];
  return scenario.substitutions.filter((s) => {
    if (decimals(s.tokenRatio) > MAX_RATIO_DECIMALS) return false;
    const name = s.toModel.toLowerCase();
    const cards = [...rates.ratesFor(null, s.toModel).tokenCards.bySlug]
      .filter(([slug]) => name.startsWith(slug))
      .flatMap(([, byTier]) => [...byTier.values()].flat());
    return cards.every(
      (c) =>
        c.tiers.length === 0 &&
        c.windows.length === 0 &&
        (c.fromMs <= range.start.getTime() || c.fromMs >= range.end.getTime()) &&
        [c.input, c.output, c.cacheCreation, c.cacheCreation1h, c.cacheRead, c.reasoning].every(
          (r) => r === null || decimals(r) <= MAX_RATE_DECIMALS,
        ),
    );
  });
}

/** An end user's (or the unattributed events', id null) stored cost of completed events in the range. */
export interface ActualCost {
  endUserId: string | null;
  externalId: string | null;
  cost: string;
}

export interface WhatIfInput {
  actual: readonly ActualCost[];
  groups: readonly SubstitutedGroup[];
  scenario: Scenario;
  rates: ScenarioRates;
  /** Recognized revenue per internal end-user id (those with revenue in the range); null = margins not shown. */
  revenue: ReadonlyMap<string, Big> | null;
}

/** Actual and simulated cost in total and per end user, with margins where revenue is known. */
export function whatIf(input: WhatIfInput): WhatIfResult {
  // Per end user (key '' for unattributed): the change the scenario makes to its stored cost.
  const change = new Map<string, Big>();
  for (const g of input.groups) {
    const simulated = simulatedCostOf(g, input.scenario, input.rates);
    if (simulated === null) continue;
    const key = g.end_user_id ?? '';
    const delta = simulated.minus(toBig(g.actual_cost));
    change.set(key, (change.get(key) ?? new Big(0)).plus(delta));
  }
  const endUsers: WhatIfEndUser[] = [];
  for (const a of input.actual) {
    if (a.endUserId === null) continue;
    const actual = toBig(a.cost);
    const simulated = actual.plus(change.get(a.endUserId) ?? 0);
    const revenue = input.revenue?.get(a.endUserId);
    endUsers.push({
      end_user_id: a.endUserId,
      external_id: a.externalId,
      actual_cost: formatMoney(actual),
      simulated_cost: formatMoney(simulated),
      actual_margin: revenue === undefined ? null : marginFigures(revenue, actual).margin_amount,
      simulated_margin: revenue === undefined ? null : marginFigures(revenue, simulated).margin_amount,
    });
  }
  endUsers.sort((x, y) => compareCodePoints(x.end_user_id, y.end_user_id));
  const actual = sumMoney(input.actual.map((a) => a.cost));
  const simulated = actual.plus(sumMoney(change.values()));
  return {
    actual_cost: formatMoney(actual),
    simulated_cost: formatMoney(simulated),
    difference: formatMoney(simulated.minus(actual)),
    end_users: endUsers,
  };
}
