// Cost over time by model/provider/agent/workflow/feature (the top values plus "Other", the same
// rule as /dimension-data/cost-trend) and the models waiting for a rate card, from the
// daily_costs rollup for whole days and raw events for the partial hours at a range's ends.
import { ValidationError } from '../../core/errors.js';
import { adaptiveGranularity, parseDateRange } from '../../core/time.js';
import { seriesPoints, topValueSeries } from '../costs/cost-series.js';
import { columnKey, queryCostBuckets } from '../costs/costs.queries.js';
import type { ReadContext } from '../../core/http/read-context.js';
import type { CostTrend, CostTrendGroupBy, PendingRateCards } from './cost-trend.types.js';

const GROUPS: readonly CostTrendGroupBy[] = ['total', 'model', 'provider', 'agent_id', 'workflow_id', 'feature'];
const MAX_TOP = 20;

export async function costTrend(
  rc: ReadContext,
  q: { start_date: string; end_date: string; group_by?: string; top?: number },
): Promise<CostTrend> {
  const range = parseDateRange(q.start_date, q.end_date);
  const groupBy = (q.group_by ?? 'total') as CostTrendGroupBy;
  if (!GROUPS.includes(groupBy)) throw new ValidationError('group_by', `must be one of: ${GROUPS.join(', ')}`);
  const top = q.top ?? 5;
  if (!Number.isInteger(top) || top < 1 || top > MAX_TOP) throw new ValidationError('top', `must be an integer from 1 to ${MAX_TOP}`);
  const granularity = adaptiveGranularity(range);
  const scope = { organizationId: rc.organizationId, range };
  if (groupBy === 'total') {
    const rows = await queryCostBuckets(rc.lake, scope, granularity, null);
    return { series: [{ key: 'total', label: 'Total', data_points: seriesPoints(rows) }], granularity, group_by: groupBy };
  }
  const rows = await queryCostBuckets(rc.lake, scope, granularity, columnKey(groupBy));
  const series = topValueSeries(
    rows.map((r) => ({ ...r, group_value: r.group_value ?? 'Unassigned' })),
    top,
  );
  return { series, granularity, group_by: groupBy };
}

export async function pendingRateCards(rc: ReadContext, q: { start_date: string; end_date: string }): Promise<PendingRateCards> {
  const range = parseDateRange(q.start_date, q.end_date);
  const rows = await rc.lake.rows<{ model: string | null; provider: string | null; event_count: number }>(
    { organizationId: rc.organizationId, range },
    `SELECT c.model, c.provider, CAST(sum(c.event_count) AS BIGINT) AS event_count
       FROM {{costs}} c WHERE c.organization_id = $org AND c.status = 'pending_rate_card'
      GROUP BY ALL
      ORDER BY event_count DESC, c.model NULLS LAST, c.provider NULLS LAST`,
  );
  const items = rows.map((r) => ({ model: r.model, provider: r.provider, event_count: Number(r.event_count) }));
  return {
    items,
    total_events: items.reduce((n, r) => n + r.event_count, 0),
    period_start: range.start.toISOString(),
    period_end: range.end.toISOString(),
  };
}
