// /end-user-costs/{externalId}: resolves the external id to the organization's end user (404 when
// no event ever named it), then reads that end user's completed costs.
import { endUserName, getEndUserByExternalId, type EndUser } from '../../core/control/end-users.js';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { adaptiveGranularity, parseDateRange, type DateRange } from '../../core/time.js';
import { breakdownItems, costMeasures } from '../costs/cost-breakdown.js';
import { seriesPoints } from '../costs/cost-series.js';
import { columnKey, dimensionKey, queryCostBuckets, queryCostGroups, queryCostTotals, type CostGroupKey } from '../costs/costs.queries.js';
import { formatMoney } from '../../core/money.js';
import type { ReadContext } from '../../core/http/read-context.js';
import type { EndUserCostBreakdown, EndUserCostSummary, EndUserCostTrend } from './end-user-costs.types.js';

async function endUserAndRange(
  rc: ReadContext,
  externalId: string,
  startDate: string,
  endDate: string,
): Promise<{ user: EndUser; range: DateRange }> {
  const range = parseDateRange(startDate, endDate);
  const user = await getEndUserByExternalId(rc.db, rc.organizationId, externalId);
  if (!user) throw new NotFoundError('end user', externalId);
  return { user, range };
}

export async function endUserSummary(rc: ReadContext, externalId: string, startDate: string, endDate: string): Promise<EndUserCostSummary> {
  const { user, range } = await endUserAndRange(rc, externalId, startDate, endDate);
  const totals = await queryCostTotals(rc.lake, { organizationId: rc.organizationId, range }, { endUserId: user.id });
  return {
    end_user_id: user.id,
    external_id: user.externalId,
    end_user_name: endUserName(user, user.id),
    period_start: range.start.toISOString(),
    period_end: range.end.toISOString(),
    ...costMeasures(totals),
  };
}

async function breakdown(
  rc: ReadContext,
  externalId: string,
  startDate: string,
  endDate: string,
  key: CostGroupKey,
): Promise<EndUserCostBreakdown> {
  const { user, range } = await endUserAndRange(rc, externalId, startDate, endDate);
  const rows = await queryCostGroups(rc.lake, { organizationId: rc.organizationId, range }, key, { endUserId: user.id });
  const { items, total } = breakdownItems(rows);
  return { end_user_id: user.id, items, total_cost: formatMoney(total) };
}

export const endUserByModel = (rc: ReadContext, externalId: string, startDate: string, endDate: string) =>
  breakdown(rc, externalId, startDate, endDate, columnKey('model'));

export const endUserByProvider = (rc: ReadContext, externalId: string, startDate: string, endDate: string) =>
  breakdown(rc, externalId, startDate, endDate, columnKey('provider'));

/** Any metadata key (feature, agent_id, workflow_id read their typed field); a key no event carries gives one Unassigned row. */
export function endUserByDimension(rc: ReadContext, externalId: string, dimension: string, startDate: string, endDate: string) {
  if (dimension === '') throw new ValidationError('dimension', 'must not be empty');
  return breakdown(rc, externalId, startDate, endDate, dimensionKey(dimension));
}

export async function endUserTrend(rc: ReadContext, externalId: string, startDate: string, endDate: string): Promise<EndUserCostTrend> {
  const { user, range } = await endUserAndRange(rc, externalId, startDate, endDate);
  const granularity = adaptiveGranularity(range);
  const rows = await queryCostBuckets(rc.lake, { organizationId: rc.organizationId, range }, granularity, null, { endUserId: user.id });
  return {
    end_user_id: user.id,
    series: [{ key: user.externalId, label: user.externalId, data_points: seriesPoints(rows) }],
    granularity,
  };
}
