// /dimension-data: looks the dimension up among the caller's definitions (404 when unknown),
// validates the parameters, reads the lake and applies the rules.
import { getDimension, listDimensions, type DimensionDefinition } from '../../core/control/dimensions.js';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { formatMoney } from '../../core/money.js';
import { adaptiveGranularity, parseDateRange } from '../../core/time.js';
import { dimensionView } from '../admin/admin-views.js';
import { breakdownItems, UNASSIGNED } from '../costs/cost-breakdown.js';
import { seriesPoints, topValueSeries } from '../costs/cost-series.js';
import { dimensionKey, queryCostBuckets, queryCostGroups } from '../costs/costs.queries.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { assertAggregation, assertInterval, numericTrendPoints, numericValue } from './dimension-data.js';
import { queryNumericBuckets, queryNumericTotals } from './dimension-data.queries.js';
import type {
  DimensionCostBreakdown,
  DimensionCostTrend,
  DimensionDefinitions,
  NumericSummary,
  NumericTrend,
} from './dimension-data.types.js';

export async function dimensionDefinitions(rc: ReadContext): Promise<DimensionDefinitions> {
  const dims = await listDimensions(rc.db, rc.organizationId);
  return { dimensions: dims.map(dimensionView), total: dims.length };
}

// A definition never changes once created (there is no update or delete), so one found is kept
// per control plane and spares every dimension query a control-plane round trip; a miss is asked
// again each time (the dimension may be defined a moment later).
const knownDimensions = new WeakMap<object, Map<string, DimensionDefinition>>();

async function requireDimension(rc: ReadContext, key: string | undefined, field = 'dimension_key'): Promise<DimensionDefinition> {
  if (key === undefined || key === '') throw new ValidationError(field, 'is required');
  let known = knownDimensions.get(rc.db);
  if (!known) knownDimensions.set(rc.db, (known = new Map()));
  const id = `${rc.organizationId}\u0000${key}`;
  const dim = known.get(id) ?? (await getDimension(rc.db, rc.organizationId, key));
  if (!dim) throw new NotFoundError('dimension', key);
  known.set(id, dim);
  return dim;
}

async function requireNumericDimension(rc: ReadContext, key: string): Promise<DimensionDefinition> {
  const dim = await requireDimension(rc, key);
  if (dim.valueType !== 'number')
    throw new ValidationError(
      'dimension_key',
      `dimension ${key} has value_type ${dim.valueType}; only number dimensions aggregate numerically`,
    );
  return dim;
}

export async function dimensionCostTrend(
  rc: ReadContext,
  q: { start_date: string; end_date: string; dimension_key?: string; dimension_value?: string },
): Promise<DimensionCostTrend> {
  const range = parseDateRange(q.start_date, q.end_date);
  if (q.dimension_value !== undefined && q.dimension_key === undefined) {
    throw new ValidationError('dimension_value', 'needs dimension_key');
  }
  const granularity = adaptiveGranularity(range);
  const scope = { organizationId: rc.organizationId, range };
  if (q.dimension_key === undefined) {
    const rows = await queryCostBuckets(rc.lake, scope, granularity, null);
    return { series: [{ key: 'total', label: 'Total', data_points: seriesPoints(rows) }], granularity };
  }
  const dim = await requireDimension(rc, q.dimension_key);
  // No end-user filter here: the derivation without end users has far fewer rows per day.
  const key = dimensionKey(dim.key, { endUser: false });
  if (q.dimension_value !== undefined) {
    const rows = await queryCostBuckets(rc.lake, scope, granularity, null, { dimension: { key, value: q.dimension_value } });
    return { series: [{ key: q.dimension_value, label: q.dimension_value, data_points: seriesPoints(rows) }], granularity };
  }
  const rows = await queryCostBuckets(rc.lake, scope, granularity, key);
  return { series: topValueSeries(rows.map((r) => ({ ...r, group_value: r.group_value ?? UNASSIGNED }))), granularity };
}

export async function dimensionNumericTrend(
  rc: ReadContext,
  q: { dimension_key: string; aggregation: string; start_date: string; end_date: string; interval?: string },
): Promise<NumericTrend> {
  const range = parseDateRange(q.start_date, q.end_date);
  const aggregation = assertAggregation(q.aggregation);
  const granularity = assertInterval(q.interval) ?? adaptiveGranularity(range);
  const dim = await requireNumericDimension(rc, q.dimension_key);
  const groups = await queryNumericBuckets(rc.lake, { organizationId: rc.organizationId, range }, dim.key, granularity);
  return { data_points: numericTrendPoints(range, granularity, groups, aggregation), granularity, aggregation, dimension_key: dim.key };
}

export async function dimensionNumericSummary(
  rc: ReadContext,
  q: { dimension_key: string; start_date: string; end_date: string },
): Promise<NumericSummary> {
  const range = parseDateRange(q.start_date, q.end_date);
  const dim = await requireNumericDimension(rc, q.dimension_key);
  const g = await queryNumericTotals(rc.lake, { organizationId: rc.organizationId, range }, dim.key);
  return {
    dimension_key: dim.key,
    period_start: range.start.toISOString(),
    period_end: range.end.toISOString(),
    event_count: g.event_count,
    sum: numericValue(g, 'sum'),
    avg: numericValue(g, 'avg'),
    min: numericValue(g, 'min'),
    max: numericValue(g, 'max'),
  };
}

export async function dimensionCostBreakdown(
  rc: ReadContext,
  q: { dimension_key: string; start_date: string; end_date: string },
): Promise<DimensionCostBreakdown> {
  const range = parseDateRange(q.start_date, q.end_date);
  const dim = await requireDimension(rc, q.dimension_key);
  const rows = await queryCostGroups(
    rc.lake,
    { organizationId: rc.organizationId, range },
    dimensionKey(dim.key, { endUser: false }),
    {},
    'tokens',
  );
  const { items, total } = breakdownItems(rows);
  return {
    items: items.map((i) => ({
      dimension_value: i.attribution_value,
      total_cost: i.total_cost,
      input_tokens: i.input_tokens,
      output_tokens: i.output_tokens,
      event_count: i.event_count,
      percent_of_total: i.percent_of_total,
    })),
    total_cost: formatMoney(total),
  };
}
