// Admin: an organization's alert settings (the credits.low level).
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Put, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import { appContext } from '../../core/app-context.js';
import { requireOrganization } from '../../core/control/organizations.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { ValidationError } from '../../core/errors.js';
import { rearmCreditAlerts } from '../credits/credit-alerts.js';
import { getCreditBalance } from '../../core/control/credits.js';
import { getAlertSettings, putAlertSettings, type AlertSettings } from './alert-settings.store.js';

export interface AlertSettingsBody {
  /**
   * `credits.low` fires once when the event-credit balance falls to this level or below (again
   * after a grant lifts it above); null turns it off. `credits.exhausted` (balance 0) needs no setting.
   */
  credits_low_balance: number | null;
}

export interface AlertSettingsView {
  organization_id: string;
  credits_low_balance: number | null;
}

const view = (organizationId: string, s: AlertSettings): AlertSettingsView => ({ organization_id: organizationId, credits_low_balance: s.creditsLowBalance });

@Route('admin/organizations')
@Tags('Admin: alerts')
@Security('admin')
@Response<ErrorEnvelope>(400, 'Invalid body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token')
@Response<ErrorEnvelope>(404, 'Unknown organization')
export class AlertSettingsController extends Controller {
  @Get('{organizationId}/alert-settings')
  public async getAlertSettings(@Request() req: ExRequest, @Path() organizationId: string): Promise<AlertSettingsView> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    return view(organizationId, await getAlertSettings(db, organizationId));
  }

  @Put('{organizationId}/alert-settings')
  public async putAlertSettings(@Request() req: ExRequest, @Path() organizationId: string, @Body() body: AlertSettingsBody): Promise<AlertSettingsView> {
    const low = body.credits_low_balance;
    if (low !== null && (!Number.isSafeInteger(low) || low < 1)) throw new ValidationError('credits_low_balance', 'must be a positive integer or null');
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const current = await getAlertSettings(db, organizationId);
    const saved = await putAlertSettings(db, organizationId, { ...current, creditsLowBalance: low });
    // A new level re-arms credits.low when the balance is above it.
    await rearmCreditAlerts(db, organizationId, (await getCreditBalance(db, organizationId)) ?? 0);
    return view(organizationId, saved);
  }
}
