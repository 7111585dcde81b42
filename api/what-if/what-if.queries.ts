// The lake reads of a what-if scenario, organization first in every filter, parameters bound:
// the stored cost of completed events per end user (the cost endpoints' own query over {{costs}},
// so "actual" is what /cost-data and /margin-data say), and the substituted models' completed
// events grouped where pricing cannot tell them apart (model, token classes, card inputs, exact
// timestamp), so each group is priced once and multiplied by its count, exactly.
import type { DateRange } from '../../core/time.js';
import { columnKey, queryCostGroups } from '../costs/costs.queries.js';
import type { LakeQuery } from '../lake/lake-query.js';
import type { ActualCost, SubstitutedGroup } from './what-if.js';

interface Scope {
  organizationId: string;
  range: DateRange;
  /** Internal end-user id, or every end user. */
  endUserId?: string;
}

/** Stored cost of completed events per end user (null: events without one). */
export async function actualCostsByEndUser(lake: LakeQuery, scope: Scope): Promise<ActualCost[]> {
  const rows = await queryCostGroups(
    lake,
    { organizationId: scope.organizationId, range: scope.range },
    columnKey('end_user_id'),
    scope.endUserId === undefined ? {} : { endUserId: scope.endUserId },
    'totals',
  );
  return rows.map((r) => ({ endUserId: r.group_value, externalId: r.external_id ?? null, cost: r.total_cost ?? '0' }));
}

/** The completed events of `models` in the range, grouped by everything pricing reads. */
export async function substitutedGroups(lake: LakeQuery, scope: Scope, models: readonly string[]): Promise<SubstitutedGroup[]> {
  const endUser = scope.endUserId === undefined ? '' : ' AND e.end_user_id = $end_user_id';
  return lake.rows<SubstitutedGroup>(
    { organizationId: scope.organizationId, range: scope.range },
    `SELECT e.end_user_id, e.model, e.provider, e.metric, e.unit, e.quantity, e.service_tier,
            e.input_tokens, e.output_tokens, e.cache_creation_input_tokens, e.cache_creation_1h_input_tokens,
            e.cache_read_input_tokens, e.reasoning_tokens, e.cost_override,
            e.event_timestamp AS timestamp,
            CAST(count(*) AS BIGINT) AS count,
            CAST(sum(e.total_cost) AS DECIMAL(38,12)) AS actual_cost
       FROM {{events}} e
      WHERE e.organization_id = $org AND e.event_timestamp >= $start AND e.event_timestamp < $end
        AND e.status = 'completed'
        AND e.model IN (SELECT unnest(from_json($models, '["VARCHAR"]')))${endUser}
      GROUP BY ALL`,
    // Bound as one JSON text (the lake binds no list parameters).
    { models: JSON.stringify(models), ...(scope.endUserId === undefined ? {} : { end_user_id: scope.endUserId }) },
  );
}
