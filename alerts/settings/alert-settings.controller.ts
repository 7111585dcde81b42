// Admin: an organization's alert settings (the credits.low level, the end_user.margin_below percent).
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Put, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import { appContext } from '../../core/app-context.js';
import { requireOrganization } from '../../core/control/organizations.js';
import { auditChange } from '../../core/http/audit-trail.js';
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
  credits_low_balance?: number | null;
  /**
   * `end_user.margin_below` fires once when an end user's trailing 30-day margin percent falls
   * under this (again after it recovers); null turns it off. From -1000 to 100, 2 decimals.
   */
  margin_below_percent?: number | null;
}

export interface AlertSettingsView {
  organization_id: string;
  credits_low_balance: number | null;
  margin_below_percent: number | null;
}

const view = (organizationId: string, s: AlertSettings): AlertSettingsView => ({
  organization_id: organizationId,
  credits_low_balance: s.creditsLowBalance,
  margin_below_percent: s.marginBelowPercent === null ? null : Number(s.marginBelowPercent),
});

@Route('admin/organizations')
@Tags('Admin: alerts')
@Security('admin', ['organization:admin'])
@Response<ErrorEnvelope>(400, 'Invalid body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token (or session)')
@Response<ErrorEnvelope>(403, 'A session of a person who is not an owner or admin of this organization, or without X-CSRF-Token on a write')
@Response<ErrorEnvelope>(404, 'Unknown organization')
export class AlertSettingsController extends Controller {
  /**
   * The organization's alert levels: `credits_low_balance` for `credits.low` and
   * `margin_below_percent` for `end_user.margin_below`; null means that alert is off.
   * @summary Retrieve alert settings
   */
  @Get('{organizationId}/alert-settings')
  public async getAlertSettings(@Request() req: ExRequest, @Path() organizationId: string): Promise<AlertSettingsView> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    return view(organizationId, await getAlertSettings(db, organizationId));
  }

  /**
   * Sets the `credits.low` balance level and the `end_user.margin_below` percent; a field not sent
   * keeps its value, null turns that alert off. A new credits level re-arms `credits.low` when the
   * balance is above it.
   * @summary Update alert settings
   */
  @Put('{organizationId}/alert-settings')
  public async putAlertSettings(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: AlertSettingsBody,
  ): Promise<AlertSettingsView> {
    const low = body.credits_low_balance;
    if (low !== undefined && low !== null && (!Number.isSafeInteger(low) || low < 1))
      throw new ValidationError('credits_low_balance', 'must be a positive integer or null');
    const below = body.margin_below_percent;
    if (below !== undefined && below !== null && (!/^-?\d+(\.\d{1,2})?$/.test(String(below)) || below < -1000 || below > 100)) {
      throw new ValidationError('margin_below_percent', 'must be a number from -1000 to 100 with at most 2 decimals, or null');
    }
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const current = await getAlertSettings(db, organizationId);
    const saved = await putAlertSettings(db, organizationId, {
      creditsLowBalance: low === undefined ? current.creditsLowBalance : low,
      marginBelowPercent: below === undefined ? current.marginBelowPercent : below === null ? null : String(below),
    });
    // A new level re-arms credits.low when the balance is above it.
    await rearmCreditAlerts(db, organizationId, (await getCreditBalance(db, organizationId)) ?? 0);
    const after = view(organizationId, saved);
    await auditChange(req, { organizationId, action: 'alert_settings.updated', before: view(organizationId, current), after });
    return after;
  }
}
