// Admin: event credits. Each accepted event spends one; a grant adds to the balance and is kept
// in a ledger.
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { appContext } from '../../core/app-context.js';
import { getCreditBalance, grantCredits, listCreditGrants } from '../../core/control/credits.js';
import { requireOrganization } from '../../core/control/organizations.js';
import { auditChange } from '../../core/http/audit-trail.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { requireText } from '../../core/http/input.js';
import { rearmCreditAlerts } from '../../alerts/credits/credit-alerts.js';
import { creditGrantView, type CreditBalanceView, type CreditGrantResult } from './admin-views.js';

export interface GrantCreditsBody {
  /**
   * Event credits to add.
   * @isInt must be a positive integer
   * @minimum 1 must be a positive integer
   * @maximum 1000000000 must be at most 1000000000 per grant
   */
  amount: number;
  /**
   * Why (a purchase reference, a trial); kept with the grant.
   * @maxLength 500 must be at most 500 characters
   */
  note?: string;
}

@Route('admin/organizations')
@Tags('Admin: credits')
@Security('admin')
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token')
@Response<ErrorEnvelope>(404, 'Unknown organization')
export class CreditsController extends Controller {
  /**
   * Adds event credits and returns the new balance.
   * @summary Grant event credits
   */
  @Post('{organizationId}/credits')
  @SuccessResponse(201, 'Created')
  @Response<ErrorEnvelope>(400, 'Invalid body; error.details.field names the field')
  public async grantCredits(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: GrantCreditsBody,
  ): Promise<CreditGrantResult> {
    const note = body.note === undefined ? null : requireText('note', body.note, 500);
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const { balance, grantId } = await grantCredits(db, organizationId, body.amount, note);
    await rearmCreditAlerts(db, organizationId, balance);
    await auditChange(req, {
      organizationId,
      action: 'credits.granted',
      details: { grant_id: grantId, amount: body.amount, note, balance },
    });
    this.setStatus(201);
    return { organization_id: organizationId, balance, grant_id: grantId };
  }

  /**
   * The current balance and every grant.
   * @summary Retrieve the credit balance
   */
  @Get('{organizationId}/credits')
  public async getCredits(@Request() req: ExRequest, @Path() organizationId: string): Promise<CreditBalanceView> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const [balance, grants] = await Promise.all([getCreditBalance(db, organizationId), listCreditGrants(db, organizationId)]);
    return { organization_id: organizationId, balance: balance ?? 0, grants: grants.map(creditGrantView) };
  }
}
