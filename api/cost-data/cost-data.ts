// Rules of /cost-data: the period comparison, the pending count, and the end-user breakdown
// (names and the `unassigned` bucket). Pure.
import { endUserName, type EndUser } from '../../core/control/end-users.js';
import type { EventStatus } from '../../core/lake/events-schema.js';
import { changePercent, formatMoney, toBig } from '../../core/money.js';
import { breakdownItems, UNASSIGNED } from '../costs/cost-breakdown.js';
import type { KeyedCostGroupRow } from '../costs/costs.queries.js';
import type { CostByEndUser, StatusCounts } from './cost-data.types.js';

export function costChange(current: string, previous: string): { change_amount: string; change_percent: number | null } {
  const diff = toBig(current).minus(toBig(previous));
  return {
    change_amount: formatMoney(diff),
    change_percent: changePercent(current, previous),
  };
}

/**
 * Status counts from the lake's per-status counts and the ledger size: every accepted event is
 * one ledger row, and every stored event one lake row, so the difference is what the pipeline
 * has not stored yet (never negative: a record with no ledger row, e.g. from another producer,
 * must not hide pending ones elsewhere — it only makes the count a lower bound).
 */
export function statusCounts(lake: Record<EventStatus, number>, ledgerEvents: number): StatusCounts {
  const stored = lake.completed + lake.pending_rate_card + lake.failed;
  return {
    completed: lake.completed,
    pending: Math.max(0, ledgerEvents - stored),
    pending_rate_card: lake.pending_rate_card,
    failed: lake.failed,
  };
}

const UNASSIGNED_END_USER_ID = 'unassigned';

/**
 * The organization end-user breakdown: every end user (no truncation), the events without one
 * under end_user_id `unassigned`; names from the control plane, else the external id.
 */
export function endUserBreakdown(rows: KeyedCostGroupRow[], endUsers: ReadonlyMap<string, EndUser>): CostByEndUser {
  const external = new Map(rows.map((r) => [r.group_value, r.external_id ?? null]));
  const { items, total } = breakdownItems(rows);
  return {
    end_users: items.map(({ attribution_value, ...m }) => {
      // End-user ids are UUIDs, so the Unassigned group can only be the events without one.
      const unassigned = attribution_value === UNASSIGNED;
      const known = endUsers.get(attribution_value);
      return {
        end_user_id: unassigned ? UNASSIGNED_END_USER_ID : attribution_value,
        end_user_name: unassigned
          ? UNASSIGNED
          : endUserName({ name: known?.name, externalId: known?.externalId ?? external.get(attribution_value) }, attribution_value),
        ...m,
      };
    }),
    total_cost: formatMoney(total),
  };
}
