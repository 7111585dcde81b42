// Budgets with their current-period figures, and the check "may this end user spend?": answered
// from the control plane's running spend (alert_daily_spend), one indexed query, never a lake scan.
import type { Queryable } from '../../core/control/db.js';
import { budgetFigures, budgetPeriod } from './budget-rules.js';
import { budgetsCoveringEndUser, spendOfBudgets, type Budget } from './budgets.store.js';
import { budgetStatusView, type BudgetCheck, type BudgetStatusView } from './budget-views.js';

export async function budgetStatuses(db: Queryable, budgets: Budget[], now: Date): Promise<BudgetStatusView[]> {
  const spend = await spendOfBudgets(db, budgets, now);
  return budgets.map((b) => budgetStatusView(b, spend.get(b.id)!, now));
}

export async function checkEndUser(db: Queryable, organizationId: string, userId: string, now: Date): Promise<BudgetCheck> {
  const budgets = await budgetsCoveringEndUser(db, organizationId, userId);
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
      amount: budgetStatusView(b, new Map(), now).amount,
      spent: figures.spent,
      remaining: figures.remaining,
      exhausted: figures.exhausted,
    };
  });
  return { user_id: userId, allowed: rows.every((r) => !r.exhausted), budgets: rows };
}
