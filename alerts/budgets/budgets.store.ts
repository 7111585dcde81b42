// Budgets in the control plane, and their spend: sums of alert_daily_spend (kept by the processor
// from its own flushes, alerts/evaluation/spend-tally.ts) over the budget's current period. A
// budget covers one key of that table: the organization, an end user (or each end user), an agent,
// a workflow, or one value of a dimension.
import { NotFoundError } from '../../core/errors.js';
import { isUuid } from '../../core/ids.js';
import type { Queryable } from '../../core/control/db.js';
import { budgetPeriod, type BudgetPeriod, type BudgetScope } from './budget-rules.js';
import { utcDate } from '../../core/time.js';

export interface Budget {
  id: string;
  organizationId: string;
  name: string | null;
  scope: BudgetScope;
  userId: string | null;
  agentId: string | null;
  workflowId: string | null;
  dimensionKey: string | null;
  dimensionValue: string | null;
  period: BudgetPeriod;
  amount: string;
  thresholds: number[];
  createdAt: Date;
  updatedAt: Date;
}

export type BudgetInput = Omit<Budget, 'id' | 'organizationId' | 'createdAt' | 'updatedAt'>;

interface BudgetRow {
  id: string;
  organization_id: string;
  name: string | null;
  scope: BudgetScope;
  user_id: string | null;
  agent_id: string | null;
  workflow_id: string | null;
  dimension_key: string | null;
  dimension_value: string | null;
  period: BudgetPeriod;
  amount: string;
  thresholds: number[];
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'id, organization_id, name, scope, user_id, agent_id, workflow_id, dimension_key, dimension_value, period, amount, thresholds, created_at, updated_at';

function toBudget(r: BudgetRow): Budget {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    scope: r.scope,
    userId: r.user_id,
    agentId: r.agent_id,
    workflowId: r.workflow_id,
    dimensionKey: r.dimension_key,
    dimensionValue: r.dimension_value,
    period: r.period,
    amount: r.amount,
    thresholds: r.thresholds.map(Number),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Separator of a dimension key and value in alert_daily_spend.key_value (a control character no key contains). */
export const DIMENSION_SEPARATOR = '\u001f';

/** The alert_daily_spend key a budget reads; each_end_user reads every end_user key. */
function spendKey(b: Pick<Budget, 'scope' | 'userId' | 'agentId' | 'workflowId' | 'dimensionKey' | 'dimensionValue'>): {
  kind: string;
  value: string | null;
} {
  switch (b.scope) {
    case 'organization':
      return { kind: 'organization', value: '' };
    case 'end_user':
      return { kind: 'end_user', value: b.userId };
    case 'each_end_user':
      return { kind: 'end_user', value: null };
    case 'agent':
      return { kind: 'agent', value: b.agentId };
    case 'workflow':
      return { kind: 'workflow', value: b.workflowId };
    case 'dimension':
      return { kind: 'dimension', value: `${b.dimensionKey}${DIMENSION_SEPARATOR}${b.dimensionValue}` };
  }
}

export async function createBudget(db: Queryable, organizationId: string, input: BudgetInput): Promise<Budget> {
  const [row] = await db.query<BudgetRow>(
    `INSERT INTO budgets (organization_id, name, scope, user_id, agent_id, workflow_id, dimension_key, dimension_value, period, amount, thresholds)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
    [
      organizationId,
      input.name,
      input.scope,
      input.userId,
      input.agentId,
      input.workflowId,
      input.dimensionKey,
      input.dimensionValue,
      input.period,
      input.amount,
      input.thresholds,
    ],
  );
  return toBudget(row!);
}

export async function listBudgets(db: Queryable, organizationId: string): Promise<Budget[]> {
  const rows = await db.query<BudgetRow>(
    `SELECT ${COLUMNS} FROM budgets WHERE organization_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`,
    [organizationId],
  );
  return rows.map(toBudget);
}

export async function getBudget(db: Queryable, organizationId: string, budgetId: string): Promise<Budget> {
  if (!isUuid(budgetId)) throw new NotFoundError('budget', budgetId);
  const [row] = await db.query<BudgetRow>(`SELECT ${COLUMNS} FROM budgets WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL`, [
    organizationId,
    budgetId,
  ]);
  if (!row) throw new NotFoundError('budget', budgetId);
  return toBudget(row);
}

export async function updateBudget(db: Queryable, organizationId: string, budgetId: string, next: BudgetInput): Promise<Budget> {
  await getBudget(db, organizationId, budgetId);
  const [row] = await db.query<BudgetRow>(
    `UPDATE budgets SET name = $3, scope = $4, user_id = $5, agent_id = $6, workflow_id = $7, dimension_key = $8, dimension_value = $9,
            period = $10, amount = $11, thresholds = $12, updated_at = now()
      WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
    [
      organizationId,
      budgetId,
      next.name,
      next.scope,
      next.userId,
      next.agentId,
      next.workflowId,
      next.dimensionKey,
      next.dimensionValue,
      next.period,
      next.amount,
      next.thresholds,
    ],
  );
  return toBudget(row!);
}

export async function deleteBudget(db: Queryable, organizationId: string, budgetId: string): Promise<Budget> {
  const budget = await getBudget(db, organizationId, budgetId);
  await db.query('UPDATE budgets SET deleted_at = now() WHERE organization_id = $1 AND id = $2', [organizationId, budgetId]);
  return budget;
}

/**
 * Spend in each budget's current period at `now`, per subject: '' or the budget's own key, or per
 * end user for each_end_user (only `forUser` when given). One query for all budgets.
 */
export async function spendOfBudgets(
  db: Queryable,
  budgets: readonly Budget[],
  now: Date,
  forUser?: string,
): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>(budgets.map((b) => [b.id, new Map()]));
  if (budgets.length === 0) return out;
  const cols: [string[], string[], string[], Array<string | null>, string[], string[]] = [[], [], [], [], [], []];
  for (const b of budgets) {
    const { start, end } = budgetPeriod(b.period, now);
    const key = spendKey(b);
    cols[0].push(b.id);
    cols[1].push(b.organizationId);
    cols[2].push(key.kind);
    cols[3].push(key.value ?? forUser ?? null);
    cols[4].push(utcDate(start));
    cols[5].push(utcDate(end));
  }
  const rows = await db.query<{ budget_id: string; key_value: string; spent: string }>(
    `SELECT q.budget_id, s.key_value, sum(s.cost)::text AS spent
       FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::date[], $6::date[]) AS q(budget_id, org, kind, value, pstart, pend)
       JOIN alert_daily_spend s ON s.organization_id = q.org AND s.key_kind = q.kind AND (q.value IS NULL OR s.key_value = q.value)
        AND s.day >= q.pstart AND s.day < q.pend
      GROUP BY q.budget_id, s.key_value`,
    cols,
  );
  for (const r of rows) out.get(r.budget_id)!.set(r.key_value, r.spent);
  return out;
}

/** Every live budget of these organizations. */
export async function budgetsOf(db: Queryable, organizationIds: readonly string[]): Promise<Budget[]> {
  const rows = await db.query<BudgetRow>(`SELECT ${COLUMNS} FROM budgets WHERE organization_id = ANY ($1::uuid[]) AND deleted_at IS NULL`, [
    organizationIds,
  ]);
  return rows.map(toBudget);
}
