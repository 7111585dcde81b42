// Wire shapes of budgets (admin and read views) and the input rules tsoa's types cannot express:
// the fields each scope needs (and only those), a positive USD decimal amount, thresholds.
import { ValidationError } from '../../core/errors.js';
import { Big, formatMoney } from '../../core/money.js';
import { parseRate } from '../../core/http/input.js';
import { budgetFigures, budgetPeriod, DEFAULT_THRESHOLDS, type BudgetPeriod, type BudgetScope } from './budget-rules.js';
import type { Budget, BudgetInput } from './budgets.store.js';

export interface BudgetBody {
  /** @maxLength 200 must be at most 200 characters */
  name?: string | null;
  /** `organization`, `end_user` (with `user_id`), `each_end_user`, `agent` (with `agent_id`), `workflow` (with `workflow_id`), `dimension` (with `dimension_key` and `dimension_value`). */
  scope: BudgetScope;
  /** The end user's external id (the `user_id` sent on events); scope `end_user` only. */
  user_id?: string | null;
  agent_id?: string | null;
  workflow_id?: string | null;
  dimension_key?: string | null;
  dimension_value?: string | null;
  /** Calendar period, UTC: `daily`, `weekly` (ISO week from Monday) or `monthly`. */
  period: BudgetPeriod;
  /** USD decimal string, above 0. */
  amount: string;
  /** Percents of amount that send `budget.threshold_crossed` (default [50, 80, 100]); each an integer from 1 to 1000. */
  thresholds?: number[];
}

export type BudgetPatchBody = Partial<BudgetBody>;

export interface BudgetView {
  id: string;
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
  created_at: string;
  updated_at: string;
}

export interface BudgetStatusView extends BudgetView {
  /** Start of the current period (ISO 8601 UTC, inclusive). */
  period_start: string;
  /** End of the current period (exclusive). */
  period_end: string;
  /** USD spent in the current period; for `each_end_user`, the end user who spent most. */
  spent: string;
  remaining: string;
  percent: number;
  /** Thresholds reached in the current period. */
  thresholds_crossed: number[];
  exhausted: boolean;
  /** `each_end_user` only: the end users who reached a threshold, costliest first (at most 100). */
  end_users?: Array<{
    user_id: string;
    spent: string;
    remaining: string;
    percent: number;
    thresholds_crossed: number[];
    exhausted: boolean;
  }>;
}

export interface BudgetList {
  budgets: BudgetStatusView[];
  total: number;
}

export interface BudgetCheck {
  user_id: string;
  /** false when any budget covering the end user is exhausted in its current period. */
  allowed: boolean;
  /** Every budget covering the end user (organization, this end user, each end user) with its figures for this user. */
  budgets: Array<{
    budget_id: string;
    name: string | null;
    scope: BudgetScope;
    period: BudgetPeriod;
    period_end: string;
    amount: string;
    spent: string;
    remaining: string;
    exhausted: boolean;
  }>;
}

export function budgetView(b: Budget): BudgetView {
  return {
    id: b.id,
    ...budgetFields(b),
    amount: formatMoney(b.amount),
    created_at: b.createdAt.toISOString(),
    updated_at: b.updatedAt.toISOString(),
  };
}

/** The view with its current-period figures; `spend` maps subject ('' or an end user) to USD spent. */
export function budgetStatusView(b: Budget, spend: Map<string, string>, now: Date): BudgetStatusView {
  const { start, end } = budgetPeriod(b.period, now);
  const bySpend = [...spend.entries()].sort((x, y) => new Big(y[1]).cmp(new Big(x[1])) || (x[0] < y[0] ? -1 : 1));
  const top = bySpend[0]?.[1] ?? '0';
  const view: BudgetStatusView = {
    ...budgetView(b),
    period_start: start.toISOString(),
    period_end: end.toISOString(),
    ...budgetFigures(top, b.amount, b.thresholds),
  };
  if (b.scope === 'each_end_user') {
    view.end_users = bySpend
      .map(([user, spent]) => ({ user_id: user, ...budgetFigures(spent, b.amount, b.thresholds) }))
      .filter((u) => u.thresholds_crossed.length > 0 || u.exhausted)
      .slice(0, 100);
  }
  return view;
}

const SCOPE_FIELDS: Record<BudgetScope, Array<'user_id' | 'agent_id' | 'workflow_id' | 'dimension_key' | 'dimension_value'>> = {
  organization: [],
  end_user: ['user_id'],
  each_end_user: [],
  agent: ['agent_id'],
  workflow: ['workflow_id'],
  dimension: ['dimension_key', 'dimension_value'],
};
const KEY_FIELDS = ['user_id', 'agent_id', 'workflow_id', 'dimension_key', 'dimension_value'] as const;

/** Validates a whole budget body (a PATCH is merged over the stored budget first). */
export function parseBudget(body: BudgetBody): BudgetInput {
  if (!(body.scope in SCOPE_FIELDS))
    throw new ValidationError('scope', 'must be one of organization, end_user, each_end_user, agent, workflow, dimension');
  const needed = SCOPE_FIELDS[body.scope];
  const keys: Record<(typeof KEY_FIELDS)[number], string | null> = {
    user_id: null,
    agent_id: null,
    workflow_id: null,
    dimension_key: null,
    dimension_value: null,
  };
  for (const field of KEY_FIELDS) {
    const v = body[field];
    const given = v !== undefined && v !== null;
    if (needed.includes(field)) {
      if (!given || v.length === 0 || v.length > 255)
        throw new ValidationError(field, `is required for scope ${body.scope} (1 to 255 characters)`);
      keys[field] = v;
    } else if (given) {
      throw new ValidationError(field, `does not apply to scope ${body.scope}`);
    }
  }
  const amount = parseRate('amount', body.amount);
  if (new Big(amount).lte(0)) throw new ValidationError('amount', 'must be above 0');
  const thresholds = body.thresholds ?? DEFAULT_THRESHOLDS;
  thresholds.forEach((t, i) => {
    if (!Number.isInteger(t) || t < 1 || t > 1000)
      throw new ValidationError(`thresholds.${i}`, 'must be an integer percent from 1 to 1000');
  });
  const name = body.name?.trim() || null;
  if (name && name.length > 200) throw new ValidationError('name', 'must be at most 200 characters');
  return {
    name,
    scope: body.scope,
    userId: keys.user_id,
    agentId: keys.agent_id,
    workflowId: keys.workflow_id,
    dimensionKey: keys.dimension_key,
    dimensionValue: keys.dimension_value,
    period: body.period,
    amount,
    thresholds: [...new Set(thresholds)].sort((a, b) => a - b),
  };
}

/** A PATCH merged over the stored budget; a new scope drops the old scope's key fields. */
export function mergeBudgetPatch(b: Budget, patch: BudgetPatchBody): BudgetBody {
  const keep = patch.scope === undefined || patch.scope === b.scope;
  return { ...storedBody(b, keep), ...patch };
}

function storedBody(b: Budget, withKeys: boolean): BudgetBody {
  if (!withKeys) return { name: b.name, scope: b.scope, period: b.period, amount: b.amount, thresholds: b.thresholds };
  return budgetFields(b);
}

/** The budget's own fields under their wire names, the amount as stored. */
function budgetFields(b: Budget): Omit<BudgetView, 'id' | 'created_at' | 'updated_at'> {
  return {
    name: b.name,
    scope: b.scope,
    user_id: b.userId,
    agent_id: b.agentId,
    workflow_id: b.workflowId,
    dimension_key: b.dimensionKey,
    dimension_value: b.dimensionValue,
    period: b.period,
    amount: b.amount,
    thresholds: b.thresholds,
  };
}
