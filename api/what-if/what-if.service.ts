// POST /v1/what-if: checks the scenario and its scope, reads the range's costs and the event
// groups the scenario may touch from the lake, the organization's rates from the RateBook and (with revenue:read)
// the recognized revenue per end user, then hands them to the pure rules (what-if.ts). It reads
// only: nothing is written to the lake, the control plane or any cache but the read caches.
import { ValidationError } from '../../core/errors.js';
import { isUuid } from '../../core/ids.js';
import { Big } from '../../core/money.js';
import { assertMaxMonths, parseDateRange, type DateRange } from '../../core/time.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { isRecognizedIn, recognizeRevenue } from '../../revenue/recognize-revenue.js';
import { activeRevenueSources } from '../../revenue/revenue-sources.js';
import { cachedRevenue } from '../../revenue/revenue-cache.js';
import { requireText } from '../../core/http/input.js';
import { textFault } from '../../core/text.js';
import { assertCardsExist, linearSubstitutions, parseScenario, touchesAnyModel, whatIf } from './what-if.js';
import { actualCostsByEndUser, scenarioGroups, type WhatIfScope } from './what-if.queries.js';
import { scenarioRates } from './what-if-scenario.js';
import type { WhatIfDimension, WhatIfRequest, WhatIfResult, WhatIfScenario } from './what-if.types.js';

/** Recognized revenue of active sources per internal end-user id, for end users with a record in the range. */
async function revenueByEndUser(rc: ReadContext, range: DateRange): Promise<Map<string, Big>> {
  const [active, revenue] = await Promise.all([activeRevenueSources(rc.db, rc.organizationId), cachedRevenue(rc.db, rc.organizationId)]);
  const out = new Map<string, Big>();
  for (const r of revenue.records) {
    if (r.endUserId === null || !active.has(r.source) || !isRecognizedIn(r, range)) continue;
    out.set(r.endUserId, (out.get(r.endUserId) ?? new Big(0)).plus(recognizeRevenue(r, range)));
  }
  return out;
}

function scopeValue(field: string, raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string') throw new ValidationError(field, 'must be a string');
  requireText(field, raw, 256);
  const fault = textFault(raw);
  if (fault !== null) throw new ValidationError(field, fault);
  return raw;
}

/** The request's scope filters, checked (values exact, as the events carry them). */
function parseScope(rc: ReadContext, body: WhatIfScenario, range: DateRange): WhatIfScope {
  if (body.end_user_id !== undefined && !isUuid(body.end_user_id)) {
    throw new ValidationError('end_user_id', 'must be the internal end-user UUID (as /margin-data/by-end-user names it)');
  }
  const d: WhatIfDimension | undefined = body.dimension;
  if (d !== undefined && (typeof d !== 'object' || d === null)) throw new ValidationError('dimension', 'must be an object');
  const key = d === undefined ? undefined : scopeValue('dimension.key', d.key);
  const value = d === undefined ? undefined : scopeValue('dimension.value', d.value);
  if (d !== undefined && (key === undefined || value === undefined)) {
    throw new ValidationError(key === undefined ? 'dimension.key' : 'dimension.value', 'is required with dimension');
  }
  return {
    organizationId: rc.organizationId,
    range,
    endUserId: body.end_user_id?.toLowerCase(),
    agent: scopeValue('agent', body.agent),
    workflow: scopeValue('workflow', body.workflow),
    feature: scopeValue('feature', body.feature),
    dimension: key === undefined || value === undefined ? undefined : { key, value },
  };
}

/** The scenario's figures; margins only when `withMargins` (the caller holds revenue:read). */
export async function simulateWhatIf(rc: ReadContext, body: WhatIfRequest, withMargins: boolean): Promise<WhatIfResult> {
  const range = parseDateRange(body.start_date, body.end_date);
  assertMaxMonths(range, 12);
  const scope = parseScope(rc, body, range);
  const scenario = parseScenario(body);
  const [baseRates, cards] = await Promise.all([rc.rateBook.ratesFor(rc.organizationId), rc.rateBook.cardsFor(rc.organizationId)]);
  const rates = scenarioRates(cards, baseRates, scenario.priceChanges, scenario.cards);
  assertCardsExist(scenario.substitutions, rates, range.end);
  // Substitutions alone touch only their models' events; any other kind may touch every model's.
  const models = touchesAnyModel(scenario) ? null : scenario.substitutions.map((s) => s.fromModel);
  // Substitutions that price linearly are summed in the lake: one group per end user, not per event.
  const linear = linearSubstitutions(scenario, rates, range);
  const [actual, groups, revenue] = await Promise.all([
    actualCostsByEndUser(rc.lake, scope),
    scenarioGroups(
      rc.lake,
      scope,
      models,
      linear.map((s) => ({ fromModel: s.fromModel, ratio: s.tokenRatio.toFixed() })),
    ),
    withMargins ? revenueByEndUser(rc, range) : null,
  ]);
  return whatIf({ actual, groups, scenario, rates, revenue });
}

/** The scenario as it is saved: checked as a run would check it (scope and changes), only its known fields kept. */
export function checkedScenario(rc: ReadContext, raw: WhatIfScenario): WhatIfScenario {
  if (typeof raw !== 'object' || raw === null) throw new ValidationError('scenario', 'must be an object');
  try {
    // Any range will do to check the scope; the run gives its own.
    parseScope(rc, raw, { start: new Date(0), end: new Date(1) });
    parseScenario(raw);
  } catch (e) {
    // Fields named as the saving request has them (inside `scenario`).
    if (e instanceof ValidationError) throw new ValidationError(`scenario.${e.field}`, e.message.slice(e.field.length + 2));
    throw e;
  }
  const { end_user_id, agent, workflow, feature, dimension, substitutions, price_changes, cache_hit_rate, cards } = raw;
  return { end_user_id, agent, workflow, feature, dimension, substitutions, price_changes, cache_hit_rate, cards };
}
