// /cost-data: reads the lake and the control plane for one organization and applies the rules.
import { countLedgerEvents } from '../../ingest/ingest-ledger-counts.store.js';
import { listEndUsers } from '../../core/control/end-users.js';
import { ValidationError } from '../../core/errors.js';
import { formatMoney } from '../../core/money.js';
import { parseDateRange, TIME_WINDOWS, timeWindow, type TimeWindow } from '../../core/time.js';
import { columnKey, queryCostGroups, queryCostTotals } from '../costs/costs.queries.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { costChange, endUserBreakdown, statusCounts } from './cost-data.js';
import { queryLakeStatusCounts } from './cost-data.queries.js';
import type { CostByEndUser, CostSummary } from './cost-data.types.js';

export async function costSummary(rc: ReadContext, window: string | undefined): Promise<CostSummary> {
  const name = window ?? 'current-period';
  if (!(TIME_WINDOWS as readonly string[]).includes(name)) {
    throw new ValidationError('time_window', `must be one of: ${TIME_WINDOWS.join(', ')}`);
  }
  const { current, previous } = timeWindow(name as TimeWindow, rc.now());
  const org = rc.organizationId;
  const [cur, prev, lakeCounts, ledgerEvents] = await Promise.all([
    queryCostTotals(rc.lake, { organizationId: org, range: current }),
    queryCostTotals(rc.lake, { organizationId: org, range: previous }),
    queryLakeStatusCounts(rc.lake, org),
    countLedgerEvents(rc.db, org),
  ]);
  const currentCost = formatMoney(cur.total_cost ?? '0');
  const previousCost = formatMoney(prev.total_cost ?? '0');
  return {
    current_period_cost: currentCost,
    previous_period_cost: previousCost,
    ...costChange(currentCost, previousCost),
    period_start: current.start.toISOString(),
    period_end: current.end.toISOString(),
    event_count: cur.event_count ?? 0,
    status_counts: statusCounts(lakeCounts, ledgerEvents),
  };
}

export async function costByEndUser(rc: ReadContext, startDate: string, endDate: string): Promise<CostByEndUser> {
  const range = parseDateRange(startDate, endDate);
  const [rows, endUsers] = await Promise.all([
    queryCostGroups(rc.lake, { organizationId: rc.organizationId, range }, columnKey('end_user_id')),
    listEndUsers(rc.db, rc.organizationId),
  ]);
  return endUserBreakdown(rows, new Map(endUsers.map((u) => [u.id, u])));
}
