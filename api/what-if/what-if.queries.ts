// The lake reads of a what-if scenario, organization first in every filter, parameters bound:
// the stored cost of completed events per end user (with only an end-user scope, the cost
// endpoints' own query over {{costs}}, so "actual" is what /cost-data and /margin-data say; with
// agent, workflow, feature or dimension filters the same sum over the events), and the events the
// scenario may touch grouped where pricing cannot tell them apart (model, token classes, card
// inputs, exact timestamp), so each group is priced once and multiplied by its count, exactly; a
// linear substitution's events summed per end user instead, all in one scan (scenarioGroups,
// decisions 0146 and 0154).
import type { DateRange } from '../../core/time.js';
import { dimensionValueSql, jsonPointer } from '../../core/lake/dimension-rollups.js';
import { columnKey, queryCostGroups } from '../costs/costs.queries.js';
import { isTypedAttributionKey } from '../costs/dimension-derivations.js';
import type { LakeQuery } from '../lake/lake-query.js';
import type { ActualCost, SubstitutedGroup } from './what-if.js';

export interface WhatIfScope {
  organizationId: string;
  range: DateRange;
  /** Internal end-user id, or every end user. */
  endUserId?: string;
  agent?: string;
  workflow?: string;
  feature?: string;
  dimension?: { key: string; value: string };
}

/** The scope's filters over events `e`, beyond organization, range and status; columns fixed, values bound. */
function scopeSql(scope: WhatIfScope): { sql: string; params: Record<string, string> } {
  const parts: string[] = [];
  const params: Record<string, string> = {};
  const equal = (column: string, param: string, value: string | undefined) => {
    if (value === undefined) return;
    parts.push(`${column} = $${param}`);
    params[param] = value;
  };
  equal('e.end_user_id', 'end_user_id', scope.endUserId);
  equal('e.agent_id', 'agent', scope.agent);
  equal('e.workflow_id', 'workflow', scope.workflow);
  equal('e.feature', 'feature', scope.feature);
  if (scope.dimension) {
    const { key, value } = scope.dimension;
    if (isTypedAttributionKey(key)) equal(`e.${key}`, 'dim_value', value);
    else {
      params.dim_path = jsonPointer(key);
      equal(dimensionValueSql('e.metadata', '$dim_path'), 'dim_value', value);
    }
  }
  return { sql: parts.map((p) => ` AND ${p}`).join(''), params };
}

const COMPLETED_IN_RANGE = `e.organization_id = $org AND e.event_timestamp >= $start AND e.event_timestamp < $end AND e.status = 'completed'`;

/** Stored cost of completed events per end user (null: events without one). */
export async function actualCostsByEndUser(lake: LakeQuery, scope: WhatIfScope): Promise<ActualCost[]> {
  const lakeScope = { organizationId: scope.organizationId, range: scope.range };
  if (scope.agent === undefined && scope.workflow === undefined && scope.feature === undefined && scope.dimension === undefined) {
    const rows = await queryCostGroups(
      lake,
      lakeScope,
      columnKey('end_user_id'),
      scope.endUserId === undefined ? {} : { endUserId: scope.endUserId },
      'totals',
    );
    return rows.map((r) => ({ endUserId: r.group_value, externalId: r.external_id ?? null, cost: r.total_cost ?? '0' }));
  }
  const filter = scopeSql(scope);
  const rows = await lake.rows<{ end_user_id: string | null; external_id: string | null; cost: string | null }>(
    lakeScope,
    `SELECT e.end_user_id, max(e.user_id) AS external_id, CAST(sum(e.total_cost) AS DECIMAL(38,12)) AS cost
       FROM {{events}} e
      WHERE ${COMPLETED_IN_RANGE}${filter.sql}
      GROUP BY 1`,
    filter.params,
  );
  return rows.map((r) => ({ endUserId: r.end_user_id, externalId: r.external_id, cost: r.cost ?? '0' }));
}

/**
 * `names` as a list of bound parameters ($prefix_0, $prefix_1, …): a constant IN list the Parquet
 * scan filters on while reading, where `IN (SELECT unnest(…))` became a join after the whole
 * range's rows were read (0.86 s of CPU against 0.09 s over the benchmark lake, decision 0154).
 */
function modelList(prefix: string, names: readonly string[]): { sql: string; params: Record<string, string> } {
  const params = Object.fromEntries(names.map((name, i) => [`${prefix}_${i}`, name]));
  return {
    sql: Object.keys(params)
      .map((p) => `$${p}`)
      .join(', '),
    params,
  };
}

/** A linear substitution as the lake applies it: its model's token classes scaled by the ratio (a decimal text). */
interface SummedModel {
  fromModel: string;
  ratio: string;
}

const TOKEN_CLASSES = [
  'input_tokens',
  'output_tokens',
  'cache_creation_input_tokens',
  'cache_creation_1h_input_tokens',
  'cache_read_input_tokens',
  'reasoning_tokens',
] as const;

/** Columns that tell apart events pricing may price differently (NULL for summed events, which group per end user). */
const EVENT_KEYS = ['metric', 'unit', 'quantity', 'cost_override'] as const;

/**
 * The completed events of `models` (null: of every model) in the range and scope, in one scan:
 * grouped by everything pricing reads (exact timestamp included), except the token events without
 * cost_override of a `summed` model (what-if.ts, linearSubstitutions), which are summed per end
 * user, provider and service tier: each token class scaled per event by the ratio and rounded
 * half-up to a whole token (the rule of scaleTokens; DuckDB rounds halves away from zero, the same
 * for counts), so one priceEvent per group prices them all (decisions 0146, 0154).
 */
export async function scenarioGroups(
  lake: LakeQuery,
  scope: WhatIfScope,
  models: readonly string[] | null,
  summed: readonly SummedModel[] = [],
): Promise<SubstitutedGroup[]> {
  const filter = scopeSql(scope);
  const listed = modelList('model', models ?? []);
  const byModel = models === null ? ' AND e.model IS NOT NULL' : models.length === 0 ? ' AND false' : ` AND e.model IN (${listed.sql})`;
  const ratios: Record<string, string> = {};
  const whens = summed.map((m, i) => {
    ratios[`summed_${i}`] = m.fromModel;
    ratios[`ratio_${i}`] = m.ratio;
    return ` WHEN $summed_${i} THEN CAST($ratio_${i} AS DECIMAL(18,12))`;
  });
  const ratio = whens.length === 0 ? 'CAST(NULL AS DECIMAL(18,12))' : `CASE e.model${whens.join('')} END`;
  const keys = [
    ...EVENT_KEYS.map((c) => `CASE WHEN summed THEN NULL ELSE ${c} END AS ${c}`),
    ...TOKEN_CLASSES.map((c) => `CASE WHEN summed THEN NULL ELSE ${c} END AS event_${c}`),
    ...TOKEN_CLASSES.map((c) => `${c} AS summed_${c}`),
  ].join(', ');
  const tokens = TOKEN_CLASSES.map(
    (c) => `CASE WHEN summed THEN CAST(sum(round(CAST(summed_${c} AS DECIMAL(18,0)) * ratio, 0)) AS BIGINT) ELSE event_${c} END AS ${c}`,
  ).join(', ');
  const rows = await lake.rows<SubstitutedGroup & { summed: boolean }>(
    { organizationId: scope.organizationId, range: scope.range },
    `SELECT end_user_id, model, provider, service_tier, ${EVENT_KEYS.join(', ')}, summed, ${tokens},
            min(event_timestamp) AS timestamp,
            CAST(count(*) AS BIGINT) AS count,
            CAST(sum(total_cost) AS DECIMAL(38,12)) AS actual_cost
       FROM (SELECT end_user_id, model, provider, service_tier, total_cost, event_timestamp, summed, ratio, ${keys},
                    CASE WHEN summed THEN NULL ELSE event_timestamp END AS event_at
               FROM (SELECT e.*, ${ratio} AS ratio,
                            (${ratio}) IS NOT NULL AND e.metric IS NULL AND e.cost_override IS NULL AS summed
                       FROM {{events}} e
                      WHERE ${COMPLETED_IN_RANGE}${byModel}${filter.sql}))
      GROUP BY end_user_id, model, provider, service_tier, summed, ratio, event_at, ${EVENT_KEYS.join(', ')}, ${TOKEN_CLASSES.map((c) => `event_${c}`).join(', ')}`,
    { ...listed.params, ...ratios, ...filter.params },
  );
  // A summed group stands for its events' scaled sums, priced once (count 1).
  return rows.map(({ summed: isSummed, ...r }) => (isSummed ? { ...r, count: 1, tokens_scaled: true } : r));
}
