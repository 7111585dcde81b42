// Admin: an organization's budgets (create, list with current figures, read, change, delete).
// Spend is counted by the processor from its own flushes (alerts/evaluation/spend-tally.ts).
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { appContext } from '../../core/app-context.js';
import { requireOrganization } from '../../core/control/organizations.js';
import { auditChange } from '../../core/http/audit-trail.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { createBudget, deleteBudget, getBudget, listBudgets, updateBudget } from './budgets.store.js';
import { budgetStatuses, forgetBudgets } from './budget-status.js';
import {
  budgetView,
  mergeBudgetPatch,
  parseBudget,
  type BudgetBody,
  type BudgetList,
  type BudgetPatchBody,
  type BudgetStatusView,
  type BudgetView,
} from './budget-views.js';

@Route('admin/organizations')
@Tags('Admin: budgets')
@Security('admin', ['organization:admin'])
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token (or session)')
@Response<ErrorEnvelope>(403, 'A session of a person who is not an owner or admin of this organization, or without X-CSRF-Token on a write')
@Response<ErrorEnvelope>(404, 'Unknown organization or budget')
export class BudgetsAdminController extends Controller {
  /**
   * Creates a budget. It sends `budget.threshold_crossed` once per threshold per period and `budget.exceeded` once per period.
   * @summary Create a budget
   */
  @Post('{organizationId}/budgets')
  @SuccessResponse(201, 'Created')
  public async createBudget(@Request() req: ExRequest, @Path() organizationId: string, @Body() body: BudgetBody): Promise<BudgetView> {
    const input = parseBudget(body);
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const created = await createBudget(db, organizationId, input);
    forgetBudgets(organizationId);
    const view = budgetView(created);
    await auditChange(req, { organizationId, action: 'budget.created', after: view });
    this.setStatus(201);
    return view;
  }

  /**
   * The organization's budgets with their current-period figures.
   * @summary List an organization's budgets
   */
  @Get('{organizationId}/budgets')
  public async listBudgetsAdmin(@Request() req: ExRequest, @Path() organizationId: string): Promise<BudgetList> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const budgets = await budgetStatuses(db, await listBudgets(db, organizationId), new Date());
    return { budgets, total: budgets.length };
  }

  /**
   * One budget with its current-period figures: spent, remaining, percent, the thresholds crossed
   * and whether it is exhausted.
   * @summary Retrieve an organization's budget
   */
  @Get('{organizationId}/budgets/{budgetId}')
  public async getBudgetAdmin(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Path() budgetId: string,
  ): Promise<BudgetStatusView> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const [view] = await budgetStatuses(db, [await getBudget(db, organizationId, budgetId)], new Date());
    return view!;
  }

  /**
   * Changes a budget; fields not sent keep their values (a new scope drops the old scope's key fields).
   * @summary Update a budget
   */
  @Patch('{organizationId}/budgets/{budgetId}')
  public async updateBudget(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Path() budgetId: string,
    @Body() body: BudgetPatchBody,
  ): Promise<BudgetView> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const stored = await getBudget(db, organizationId, budgetId);
    const updated = await updateBudget(db, organizationId, budgetId, parseBudget(mergeBudgetPatch(stored, body)));
    forgetBudgets(organizationId);
    const view = budgetView(updated);
    await auditChange(req, { organizationId, action: 'budget.updated', before: budgetView(stored), after: view });
    return view;
  }

  /**
   * Deletes a budget and answers with it as it was. No new alerts come from it, and /budgets/check
   * no longer counts it.
   * @summary Delete a budget
   */
  @Delete('{organizationId}/budgets/{budgetId}')
  public async deleteBudget(@Request() req: ExRequest, @Path() organizationId: string, @Path() budgetId: string): Promise<BudgetView> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const deleted = await deleteBudget(db, organizationId, budgetId);
    forgetBudgets(organizationId);
    const view = budgetView(deleted);
    await auditChange(req, { organizationId, action: 'budget.deleted', before: view });
    return view;
  }
}
