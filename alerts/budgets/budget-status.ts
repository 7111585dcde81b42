// Budgets with their current-period figures, and the check "may this end user spend?": answered
// from the control plane's running spend (alert_daily_spend), one indexed query, never a lake scan.
import { cachedLoad, LRUCache } from '../../core/cache.js';
import type { Queryable } from '../../core/control/db.js';
import { budgetFigures, budgetPeriod } from './budget-rules.js';
import { listBudgets, spendOfBudgets, type Budget } from './budgets.store.js';
import { formatMoney } from '../../core/money.js';
import { budgetStatusView, type BudgetCheck, type BudgetStatusView } from './budget-views.js';

export async function budgetStatuses(db: Queryable, budgets: Budget[], now: Date): Promise<BudgetStatusView[]> {
  const spend = await spendOfBudgets(db, budgets, now);
  return budgets.map((b) => budgetStatusView(b, spend.get(b.id)!, now));
}

/**
 * The organization's budgets, kept 1 s per organization (so a check is one query, its spend);
 * the admin API clears an organization's entry in its own process, other replicas see a change
 * within the second.
 */
const budgetLists = new LRUCache<string, Promise<Budget[]>>({ max: 10_000, ttl: 1_000 });

export function forgetBudgets(organizationId: string): void {
  budgetLists.delete(organizationId);
}

function budgetsOfOrganization(db: Queryable, organizationId: string): Promise<Budget[]> {
  return cachedLoad(budgetLists, organizationId, () => listBudgets(db, organizationId));
}

/** Whether a budget covers an end user: the organization's, that user's, each end user's. */
function coversEndUser(b: Budget, userId: string): boolean {
  return b.scope === 'organization' || b.scope === 'each_end_user' || (b.scope === 'end_user' && b.userId === userId);
}

export async function checkEndUser(db: Queryable, organizationId: string, userId: string, now: Date): Promise<BudgetCheck> {
  const budgets = (await budgetsOfOrganization(db, organizationId)).filter((b) => coversEndUser(b, userId));
  const spend = await spendOfBudgets(db, budgets, now, userId);
  const rows = budgets.map((b) => {
    const subject = b.scope === 'organization' ? '' : userId;
    const figures = budgetFigures(spend.get(b.id)!.get(subject) ?? '0', b.amount, b.thresholds);
    return {
      budget_id: b.id,
      name: b.name,
      scope: b.scope,
      period: b.period,
      period_end: budgetPeriod(b.period, now).end.toISOString(),
      amount: formatMoney(b.amount),
      spent: figures.spent,
      remaining: figures.remaining,
      exhausted: figures.exhausted,
    };
  });
  return { user_id: userId, allowed: rows.every((r) => !r.exhausted), budgets: rows };
}
