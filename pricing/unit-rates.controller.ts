// Admin: per-unit rates for metric events, keyed by (model or provider, metric, unit). Units are
// matched exactly as sent and never converted.
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { appContext } from '../core/app-context.js';
import { requireOrganization } from '../core/control/organizations.js';
import { createUnitRate, listUnitRates } from './rate-cards.store.js';
import { auditChange } from '../core/http/audit-trail.js';
import type { ErrorEnvelope } from '../core/http/error-envelope.js';
import { parseDateParam } from '../core/time.js';
import { exactlyOne, parseRate, requireText } from '../core/http/input.js';
import { unitRateView, type UnitRateList, type UnitRateView } from './rate-card-views.js';
import type { Rate } from './rate-cards.controller.js';

export interface CreateUnitRateBody {
  /** The model this rate prices (lowercased). Give exactly one of model and provider. */
  model?: string;
  /** The provider this rate prices (lowercased). Give exactly one of model and provider. */
  provider?: string;
  /**
   * The event's `metric`, e.g. `image_generation` (lowercased).
   * @minLength 1 must not be empty
   * @maxLength 255 must be at most 255 characters
   */
  metric: string;
  /**
   * The event's `unit`, matched exactly (case included).
   * @minLength 1 must not be empty
   * @maxLength 255 must be at most 255 characters
   */
  unit: string;
  /** USD per unit: a decimal string or a JSON number, >= 0. */
  cost_per_unit: Rate;
  /**
   * ISO 8601 date (UTC midnight) or date-time (UTC unless an offset is given) from which the
   * rate applies. Absent: always.
   */
  effective_from?: string;
}

@Route('admin/organizations')
@Tags('Admin: unit rates')
@Security('admin', ['organization:admin'])
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token (or session)')
@Response<ErrorEnvelope>(403, 'A session of a person who is not an owner or admin of this organization, or without X-CSRF-Token on a write')
@Response<ErrorEnvelope>(404, 'Unknown organization')
export class UnitRatesController extends Controller {
  /**
   * Adds a rate in USD per `unit` of a `metric`, for exactly one model or provider, from
   * `effective_from` on (always when absent). A rate with the same key and effective_from answers
   * 409.
   * @summary Add a per-unit rate
   */
  @Post('{organizationId}/unit-rates')
  @SuccessResponse(201, 'Created')
  @Response<ErrorEnvelope>(400, 'Invalid body; error.details.field names the field')
  @Response<ErrorEnvelope>(409, 'A rate for this key and effective_from exists')
  public async createUnitRate(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: CreateUnitRateBody,
  ): Promise<UnitRateView> {
    const target = exactlyOne(['model', body.model], ['provider', body.provider]);
    const name = requireText(target.field, target.value, 255);
    const input = {
      model: target.field === 'model' ? name : null,
      provider: target.field === 'provider' ? name : null,
      metric: requireText('metric', body.metric, 255),
      unit: requireText('unit', body.unit, 255),
      costPerUnit: parseRate('cost_per_unit', body.cost_per_unit),
      effectiveFrom: body.effective_from === undefined ? undefined : (parseDateParam('effective_from', body.effective_from) as Date),
    };
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const rate = await createUnitRate(db, organizationId, input);
    const view = unitRateView(rate);
    await auditChange(req, { organizationId, action: 'unit_rate.created', after: view });
    this.setStatus(201);
    return view;
  }

  /**
   * The organization's per-unit rates, by metric, unit, model/provider, effective_from.
   * @summary List per-unit rates
   */
  @Get('{organizationId}/unit-rates')
  public async listUnitRates(@Request() req: ExRequest, @Path() organizationId: string): Promise<UnitRateList> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const rates = await listUnitRates(db, organizationId);
    return { unit_rates: rates.map(unitRateView), total: rates.length };
  }
}
