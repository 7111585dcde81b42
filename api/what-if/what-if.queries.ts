// The lake reads of a what-if scenario, organization first in every filter, parameters bound:
// the stored cost of completed events per end user (with only an end-user scope, the cost
// endpoints' own query over {{costs}}, so "actual" is what /cost-data and /margin-data say; with
// agent, workflow, feature or dimension filters the same sum over the events), and the events the
// scenario may touch grouped where pricing cannot tell them apart (model, token classes, card
// inputs, exact timestamp), so each group is priced once and multiplied by its count, exactly; a
// linear substitution's events summed per end user instead (linearGroups, decision 0146).
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
 * The completed events of `models` (null: of every model) in the range and scope, grouped by
 * everything pricing reads; of the `summed` models only the events linearGroups leaves out
 * (metric events, cost overrides).
 */
export async function scenarioGroups(
  lake: LakeQuery,
  scope: WhatIfScope,
  models: readonly string[] | null,
  summed: readonly string[] = [],
): Promise<SubstitutedGroup[]> {
  const filter = scopeSql(scope);
  const byModel =
    (models === null ? ' AND e.model IS NOT NULL' : ` AND e.model IN (SELECT unnest(from_json($models, '["VARCHAR"]')))`) +
    (summed.length === 0
      ? ''
      : ` AND (e.model NOT IN (SELECT unnest(from_json($summed, '["VARCHAR"]'))) OR e.metric IS NOT NULL OR e.cost_override IS NOT NULL)`);
  return lake.rows<SubstitutedGroup>(
    { organizationId: scope.organizationId, range: scope.range },
    `SELECT e.end_user_id, e.model, e.provider, e.metric, e.unit, e.quantity, e.service_tier,
            e.input_tokens, e.output_tokens, e.cache_creation_input_tokens, e.cache_creation_1h_input_tokens,
            e.cache_read_input_tokens, e.reasoning_tokens, e.cost_override,
            e.event_timestamp AS timestamp,
            CAST(count(*) AS BIGINT) AS count,
            CAST(sum(e.total_cost) AS DECIMAL(38,12)) AS actual_cost
       FROM {{events}} e
      WHERE ${COMPLETED_IN_RANGE}${byModel}${filter.sql}
      GROUP BY ALL`,
    // Models bound as one JSON text (the lake binds no list parameters).
    {
      ...(models === null ? {} : { models: JSON.stringify(models) }),
      ...(summed.length === 0 ? {} : { summed: JSON.stringify(summed) }),
      ...filter.params,
    },
  );
}

const TOKEN_CLASSES = [
  'input_tokens',
  'output_tokens',
  'cache_creation_input_tokens',
  'cache_creation_1h_input_tokens',
  'cache_read_input_tokens',
  'reasoning_tokens',
] as const;

/**
 * A linear substitution's events (what-if.ts, linearSubstitutions) summed per end user, provider
 * and service tier: each token class scaled per event by the ratio and rounded half-up to a whole
 * token (the rule of scaleTokens; DuckDB rounds halves away from zero, the same for counts), then
 * summed, so one priceEvent per group prices them all. Token events without cost_override only.
 */
export async function linearGroups(lake: LakeQuery, scope: WhatIfScope, fromModel: string, ratio: string): Promise<SubstitutedGroup[]> {
  const filter = scopeSql(scope);
  const scaled = TOKEN_CLASSES.map(
    (c) => `CAST(sum(round(CAST(e.${c} AS DECIMAL(18,0)) * CAST($ratio AS DECIMAL(18,12)), 0)) AS BIGINT) AS ${c}`,
  ).join(',\n            ');
  const rows = await lake.rows<SubstitutedGroup>(
    { organizationId: scope.organizationId, range: scope.range },
    `SELECT e.end_user_id, e.provider, e.service_tier, min(e.event_timestamp) AS timestamp,
            ${scaled},
            CAST(sum(e.total_cost) AS DECIMAL(38,12)) AS actual_cost
       FROM {{events}} e
      WHERE ${COMPLETED_IN_RANGE} AND e.model = $from_model AND e.metric IS NULL AND e.cost_override IS NULL${filter.sql}
      GROUP BY ALL`,
    { from_model: fromModel, ratio, ...filter.params },
  );
  return rows.map((r) => ({
    ...r,
    model: fromModel,
    metric: null,
    unit: null,
    quantity: null,
    cost_override: null,
    count: 1,
    tokens_scaled: true,
  }));
}
