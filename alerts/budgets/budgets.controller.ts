// GET /v1/budgets…: read-only budget views for API keys with costs:read, and the check a caller
// makes before a model call (answered from the control plane's running spend, not the lake).
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import { appContext } from '../../core/app-context.js';
import { authOf } from '../../core/http/authentication.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import type { ExternalIdParam } from '../../core/http/params.js';
import { getBudget, listBudgets } from './budgets.store.js';
import { budgetStatuses, checkEndUser } from './budget-status.js';
import type { BudgetCheck, BudgetList, BudgetStatusView } from './budget-views.js';

@Route('budgets')
@Tags('Budgets')
@Security('api_key', ['costs:read'])
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks costs:read')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class BudgetsController extends Controller {
  /**
   * The organization's budgets with spent, remaining, percent and the thresholds crossed in the current period.
   * @summary List budgets
   */
  @Get()
  public async listBudgets(@Request() req: ExRequest): Promise<BudgetList> {
    const { db } = appContext(req);
    const budgets = await budgetStatuses(db, await listBudgets(db, authOf(req).organizationId), new Date());
    return { budgets, total: budgets.length };
  }

  /**
   * Whether any budget covering the end user (the organization's, this end user's, each end
   * user's) is exhausted in its current period: `allowed: false` then. Fast enough to ask before
   * each model call.
   * @summary Check an end user's budgets
   * @param user_id The end user's external id (the `user_id` sent on events).
   */
  @Get('check')
  @Response<ErrorEnvelope>(400, 'Missing or invalid user_id')
  public async checkBudgets(@Request() req: ExRequest, @Query() user_id: ExternalIdParam): Promise<BudgetCheck> {
    return checkEndUser(appContext(req).db, authOf(req).organizationId, user_id, new Date());
  }

  /**
   * One budget of the organization with its current-period figures: spent, remaining, percent, the
   * thresholds crossed and whether it is exhausted.
   * @summary Retrieve a budget
   */
  @Get('{budgetId}')
  @Response<ErrorEnvelope>(404, 'Unknown budget')
  public async getBudget(@Request() req: ExRequest, @Path() budgetId: string): Promise<BudgetStatusView> {
    const { db } = appContext(req);
    const [view] = await budgetStatuses(db, [await getBudget(db, authOf(req).organizationId, budgetId)], new Date());
    return view!;
  }
}
