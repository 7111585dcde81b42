// POST /v1/what-if: checks the scenario, reads the range's costs and the substituted models'
// event groups from the lake, the organization's rates from the RateBook and (with revenue:read)
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
import { assertCardsExist, parseSubstitutions, whatIf } from './what-if.js';
import { actualCostsByEndUser, substitutedGroups } from './what-if.queries.js';
import type { WhatIfRequest, WhatIfResult } from './what-if.types.js';

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

/** The scenario's figures; margins only when `withMargins` (the caller holds revenue:read). */
export async function simulateWhatIf(rc: ReadContext, body: WhatIfRequest, withMargins: boolean): Promise<WhatIfResult> {
  const range = parseDateRange(body.start_date, body.end_date);
  assertMaxMonths(range, 12);
  if (body.end_user_id !== undefined && !isUuid(body.end_user_id)) {
    throw new ValidationError('end_user_id', 'must be the internal end-user UUID (as /margin-data/by-end-user names it)');
  }
  const substitutions = parseSubstitutions(body.substitutions);
  const rates = await rc.rateBook.ratesFor(rc.organizationId);
  assertCardsExist(substitutions, rates, range.end);
  const scope = { organizationId: rc.organizationId, range, endUserId: body.end_user_id?.toLowerCase() };
  const [actual, groups, revenue] = await Promise.all([
    actualCostsByEndUser(rc.lake, scope),
    substitutedGroups(
      rc.lake,
      scope,
      substitutions.map((s) => s.fromModel),
    ),
    withMargins ? revenueByEndUser(rc, range) : null,
  ]);
  return whatIf({ actual, groups, substitutions, rates, revenue });
}
