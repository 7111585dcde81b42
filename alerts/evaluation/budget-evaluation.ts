// Which budget alerts became true: for each live budget of the given organizations and each subject
// (the budget's key, or every end user for each_end_user), the thresholds the current period's
// spend has reached and whether it is exhausted. Each (budget, period, subject, threshold) fires
// once (alert_firings), so evaluating again, from any process, sends nothing twice.
import type { Queryable } from '../../core/control/db.js';
import { formatMoney, percentOf } from '../../core/money.js';
import { budgetPeriod, isExhausted, thresholdsReached } from '../budgets/budget-rules.js';
import { budgetsOf, spendOfBudgets, type Budget } from '../budgets/budgets.store.js';
import { fireOnce } from '../webhooks/outbox.js';
import type { WebhookEventType } from '../webhooks/event-types.js';
import { utcDate } from '../../core/time.js';

interface Candidate {
  budget: Budget;
  subject: string;
  spent: string;
  key: string;
  type: WebhookEventType;
  threshold: number | null;
}

/** Sends the budget events that became true for these organizations; returns how many fired. */
export async function evaluateBudgets(db: Queryable, organizationIds: string[], now: Date): Promise<number> {
  const budgets = await budgetsOf(db, organizationIds);
  if (budgets.length === 0) return 0;
  const spend = await spendOfBudgets(db, budgets, now);
  const candidates: Candidate[] = [];
  for (const budget of budgets) {
    const periodStart = utcDate(budgetPeriod(budget.period, now).start);
    for (const [subject, spent] of spend.get(budget.id)!) {
      const base = `budget:${budget.id}:${periodStart}:${subject}`;
      for (const t of thresholdsReached(spent, budget.amount, budget.thresholds)) {
        candidates.push({ budget, subject, spent, key: `${base}:${t}`, type: 'budget.threshold_crossed', threshold: t });
      }
      if (isExhausted(spent, budget.amount))
        candidates.push({ budget, subject, spent, key: `${base}:exceeded`, type: 'budget.exceeded', threshold: null });
    }
  }
  if (candidates.length === 0) return 0;
  const fired = new Set(
    (
      await db.query<{ alert_key: string }>(
        'SELECT alert_key FROM alert_firings WHERE organization_id = ANY ($1::uuid[]) AND alert_key = ANY ($2::text[])',
        [organizationIds, candidates.map((c) => c.key)],
      )
    ).map((r) => r.alert_key),
  );
  let count = 0;
  for (const c of candidates) {
    if (fired.has(c.key)) continue;
    if (await fireOnce(db, c.budget.organizationId, c.key, c.type, budgetEventData(c, now))) count++;
  }
  return count;
}

/** The `data` of budget.threshold_crossed and budget.exceeded (README "Event catalogue"). */
function budgetEventData(c: Candidate, now: Date): object {
  const b = c.budget;
  const { start, end } = budgetPeriod(b.period, now);
  return {
    budget_id: b.id,
    budget_name: b.name,
    scope: b.scope,
    user_id: b.scope === 'each_end_user' ? c.subject : b.userId,
    agent_id: b.agentId,
    workflow_id: b.workflowId,
    dimension_key: b.dimensionKey,
    dimension_value: b.dimensionValue,
    period: b.period,
    period_start: start.toISOString(),
    period_end: end.toISOString(),
    amount: formatMoney(b.amount),
    spent: formatMoney(c.spent),
    percent: percentOf(c.spent, b.amount),
    ...(c.threshold === null ? {} : { threshold: c.threshold }),
  };
}
