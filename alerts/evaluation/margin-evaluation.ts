// End-user margin alerts over the trailing 30 UTC days (today included): revenue recognized from
// the records of active revenue sources (recognizeRevenue, the margin endpoints' rule) minus the
// cost counted in alert_daily_spend, classified by marginFigures (the spec's profitability rule).
//  - end_user.unprofitable when an end user's category turns `unprofitable` (negative margin, or
//    cost with no revenue); end_user.profitable when it stops being so (only after an unprofitable);
//  - end_user.margin_below when margin_percent falls under the organization's chosen percent;
//    re-armed once it is back at or above it.
// Evaluated for the end users a processor flush touched, and for all of an organization's end users
// after a revenue import. Organizations without an active revenue source are skipped (every user
// would read as unprofitable).
import type { Queryable } from '../../core/control/db.js';
import { Big, formatMoney } from '../../core/money.js';
import { DAY_MS, utcDate } from '../../core/time.js';
import { marginFigures } from '../../revenue/profitability.js';
import { activeRevenueSources, recognizedRevenueByEndUser } from '../../revenue/revenue-sources.js';
import { getAlertSettings } from '../settings/alert-settings.store.js';
import { fireOnce, fireRecovery, rearm } from '../webhooks/outbox.js';

const TRAILING_DAYS = 30;

/** [midnight 29 days ago, tomorrow's midnight): 30 whole UTC days, today included. */
function trailingWindow(now: Date): { start: Date; end: Date } {
  const tomorrow = Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS;
  return { start: new Date(tomorrow - TRAILING_DAYS * DAY_MS), end: new Date(tomorrow) };
}

/** Evaluates the given end users (external ids), or every end user with revenue or cost when null. */
export async function evaluateEndUserMargins(
  db: Queryable,
  organizationId: string,
  userIds: readonly string[] | null,
  now: Date,
): Promise<number> {
  const active = await activeRevenueSources(db, organizationId);
  if (active.size === 0 || (userIds && userIds.length === 0)) return 0;
  const window = trailingWindow(now);
  const revenue = await recognizedRevenueByEndUser(db, organizationId, window, active, userIds);
  const costs = await db.query<{ key_value: string; cost: string }>(
    `SELECT key_value, sum(cost)::text AS cost FROM alert_daily_spend
      WHERE organization_id = $1 AND key_kind = 'end_user' AND day >= $2::date AND day < $3::date AND ($4::text[] IS NULL OR key_value = ANY ($4))
      GROUP BY key_value`,
    [organizationId, utcDate(window.start), utcDate(window.end), userIds],
  );
  const cost = new Map(costs.map((c) => [c.key_value, c.cost]));
  const below = (await getAlertSettings(db, organizationId)).marginBelowPercent;
  const users = [...new Set([...revenue.keys(), ...cost.keys()])];
  // Which alerts hold now, in one query: only transitions make a statement.
  const held = new Set(
    (
      await db.query<{ alert_key: string }>(
        'SELECT alert_key FROM alert_firings WHERE organization_id = $1 AND alert_key = ANY ($2::text[])',
        [organizationId, users.flatMap((u) => [`end_user.unprofitable:${u}`, `end_user.margin_below:${u}`])],
      )
    ).map((r) => r.alert_key),
  );
  let fired = 0;
  for (const user of users) {
    const figures = marginFigures(revenue.get(user) ?? new Big(0), cost.get(user) ?? '0');
    const data = { user_id: user, window_start: window.start.toISOString(), window_end: window.end.toISOString(), ...figures };
    const downKey = `end_user.unprofitable:${user}`;
    const unprofitable = figures.profitability_category === 'unprofitable';
    if (unprofitable && !held.has(downKey)) {
      if (await fireOnce(db, organizationId, downKey, 'end_user.unprofitable', data)) fired++;
    } else if (!unprofitable && held.has(downKey)) {
      if (await fireRecovery(db, organizationId, downKey, 'end_user.profitable', data)) fired++;
    }
    if (below === null || figures.margin_percent === null) continue;
    const belowKey = `end_user.margin_below:${user}`;
    const isBelow = figures.margin_percent < Number(below);
    if (isBelow && !held.has(belowKey)) {
      if (await fireOnce(db, organizationId, belowKey, 'end_user.margin_below', { ...data, threshold_percent: Number(formatMoney(below)) }))
        fired++;
    } else if (!isBelow && held.has(belowKey)) await rearm(db, organizationId, [belowKey]);
  }
  return fired;
}
