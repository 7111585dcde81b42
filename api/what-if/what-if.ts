// What-if re-pricing rules over plain data: a scenario's substitutions, the rewrite of an event
// group under one (model renamed, every token class scaled and rounded half-up to whole tokens),
// and the actual and simulated figures per end user. Pricing is priceEvent itself, the processor's
// function, over the organization's cards in effect at each event's timestamp; an event with
// cost_override keeps its override (priceEvent returns it), and events of other models are never
// re-priced: their stored cost is carried over exactly. Nothing here does I/O.
import { AppError, ValidationError } from '../../core/errors.js';
import { Big, formatMoney, sumMoney, toBig } from '../../core/money.js';
import { priceEvent, type PriceableEvent, type PricingRates } from '../../pricing/price-event.js';
import { matchTokenCard } from '../../pricing/rate-card-match.js';
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

/** The request's substitutions, checked: 1 to 20, names non-empty, each from_model once, ratios in (0, 1000]. */
export function parseSubstitutions(raw: readonly WhatIfSubstitution[] | undefined): Substitution[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new ValidationError('substitutions', 'must list at least one substitution');
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
 * Events of a substituted model that price alike: same model, token classes, card inputs and
 * timestamp (cards and time-of-day windows depend on it), same end user; `count` of them whose
 * stored costs sum to `actual_cost`.
 */
export interface SubstitutedGroup extends PriceableEvent {
  end_user_id: string | null;
  count: number;
  actual_cost: string;
}

/** The group's events as the scenario has them: the target model, every token class scaled. */
function substitutedEvent(group: SubstitutedGroup, sub: Substitution): PriceableEvent {
  const r = sub.tokenRatio;
  return {
    timestamp: group.timestamp,
    model: sub.toModel,
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

/** The simulated cost of all the group's events; 422 naming the to_model when its cards cannot price them. */
export function simulatedCostOf(group: SubstitutedGroup, sub: Substitution, rates: PricingRates): Big {
  const priced = priceEvent(substitutedEvent(group, sub), rates);
  if (priced.status !== 'completed')
    throw new NoRateCardError(`substitutions[${sub.index}].to_model`, priced.pending_reason ?? 'not priced');
  return toBig(priced.total_cost).times(group.count);
}

/** 422 when a to_model has no standard-tier card in effect at the range's last instant (checked before reading the lake). */
export function assertCardsExist(subs: readonly Substitution[], rates: PricingRates, end: Date): void {
  const last = new Date(end.getTime() - 1);
  for (const s of subs) {
    if (!matchTokenCard(rates.tokenCards, s.toModel, last)) {
      throw new NoRateCardError(`substitutions[${s.index}].to_model`, `no rate card for model "${s.toModel}" at ${last.toISOString()}`);
    }
  }
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
  substitutions: readonly Substitution[];
  rates: PricingRates;
  /** Recognized revenue per internal end-user id (those with revenue in the range); null = margins not shown. */
  revenue: ReadonlyMap<string, Big> | null;
}

/** Actual and simulated cost in total and per end user, with margins where revenue is known. */
export function whatIf(input: WhatIfInput): WhatIfResult {
  const byModel = new Map(input.substitutions.map((s) => [s.fromModel, s]));
  // Per end user (key '' for unattributed): the change the scenario makes to its stored cost.
  const change = new Map<string, Big>();
  for (const g of input.groups) {
    const sub = byModel.get(g.model ?? '');
    if (!sub) continue;
    const key = g.end_user_id ?? '';
    const delta = simulatedCostOf(g, sub, input.rates).minus(toBig(g.actual_cost));
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
